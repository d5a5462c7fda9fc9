// libFuzzer target: bytes -> the MLIR bytecode reader (StableHLO portable
// artifacts, compiler/parse/bytecode). Every malformed input must give a
// status, never a crash, an out-of-bounds read, a hang or a huge allocation.
// Seeds: the artifacts of ../shared/conformance/vhlo (scripts/fuzz_smoke.sh).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "compiler/parse/bytecode/read_bytecode.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)kiln::ir::ReadBytecodeModule(bytes, "fuzz.mlir.bc");
  return 0;
}
