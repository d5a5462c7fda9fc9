// libFuzzer target: text -> ir::ParseModule; if it parses, the same text
// through compiler::Compile (target cpu, no folding). Every error must be a
// status, never a crash, an out-of-bounds read or a hang. See docs/fuzzing.md.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/compile.h"
#include "compiler/parse/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view source(reinterpret_cast<const char*>(data), size);
  auto module = kiln::ir::ParseModule(source, "fuzz.mlir");
  if (!module.ok()) return 0;
  kiln::compiler::CompileOptions options;
  options.target = "cpu";
  std::vector<std::string> warnings;
  (void)kiln::compiler::Compile(source, "fuzz.mlir", options, &warnings);
  return 0;
}
