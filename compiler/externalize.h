// External weights, the compiler's side (format 0.4, docs/parameters.md):
// moving large constants out of the module into a safetensors file, and
// writing that file. The runtime's reader is vm/parameters.h.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/module_builder.h"
#include "kernels/common/status.h"

namespace kiln::compiler {

struct SafetensorsEntryOut {
  std::string key;
  ElementType type = ElementType::kInvalid;  // one with a safetensors dtype
  std::vector<int64_t> dims;
  const std::vector<uint8_t>* data = nullptr;
};

// A safetensors file: the 8-byte little-endian header length, the JSON
// header (keys in the given order, `__metadata__` last) padded with spaces
// so the data starts 64-byte aligned, then the tensors' bytes back to back
// in order of falling element size, so each starts aligned to its element
// size (a mapped file is then read in place; vm/context.cc copies a
// misaligned one). Refuses an element type safetensors cannot name.
StatusOr<std::vector<uint8_t>> WriteSafetensors(const std::vector<SafetensorsEntryOut>& tensors,
                                                const std::vector<std::pair<std::string, std::string>>& metadata);

// Moves every constant of `builder` holding at least `min_bytes` bytes (and
// of a type safetensors can hold) into a safetensors file, returned; each
// becomes a parameter of `scope` keyed "constant.N" (N its index in the
// module), recording the bytes' xxHash64. Constants already parameters
// (--params-from-args) are left as they are. `moved` counts them.
StatusOr<std::vector<uint8_t>> ExternalizeConstants(ModuleBuilder* builder, uint64_t min_bytes,
                                                     const std::string& scope, size_t* moved);

}  // namespace kiln::compiler
