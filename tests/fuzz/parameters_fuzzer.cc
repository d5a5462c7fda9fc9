// libFuzzer target: bytes -> the safetensors reader (vm::ParseSafetensors);
// if the file parses, every tensor's bytes are read (so a span the reader
// wrongly accepted shows up under ASan) and checksummed as on first use,
// and each tensor is bound to a
// parameter constant of its own type and shape as the loader binds one,
// then to one of another shape (which must be refused). See docs/fuzzing.md.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "vm/module.h"
#include "vm/parameters.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kiln;
  auto file = vm::ParameterFile::FromBytes("fuzz.safetensors", std::vector<uint8_t>(data, data + size));
  if (!file.ok()) return 0;
  vm::ParameterSet set;
  if (!set.Add("", *file).ok()) return 0;
  volatile uint8_t sink = 0;
  for (const auto& t : (*file)->header().tensors) {
    const uint8_t* bytes = (*file)->data() + t.offset;
    for (uint64_t i = 0; i < t.size; ++i) sink = sink ^ bytes[i];
    vm::LoadedConstant c;
    c.type = t.type;
    c.dims = t.dims;
    c.size = t.size;
    c.parameter = vm::ParameterRef{"", t.key, 0, false};
    if (!vm::BindParameter(&set, true, &c).ok() || !c.bound || c.size != t.size) __builtin_trap();
    c.verify = true;  // the first-use check reads the bytes again
    (void)c.Data();
    vm::LoadedConstant other;
    other.type = t.type;
    other.dims = t.dims;
    other.dims.push_back(2);
    other.size = t.size;
    other.parameter = c.parameter;
    if (vm::BindParameter(&set, true, &other).ok()) __builtin_trap();
  }
  return 0;
}
