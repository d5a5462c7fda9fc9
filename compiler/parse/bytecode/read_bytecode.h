// Reading StableHLO portable artifacts (VHLO in MLIR bytecode, what
// `stablehlo-translate --serialize` and jax.export write) into Kiln's IR.
// The container is read by bytecode_reader.h, attributes and types by
// attr_types.h; vhlo_to_ir.cc maps each vhlo.*_vN op to the StableHLO op of
// that name and writes the program as StableHLO text, which the text parser
// then reads — so both inputs meet the same parser, normalizations and
// diagnostics.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir.h"
#include "kernels/common/status.h"

namespace kiln::ir {

// The newest StableHLO version whose artifacts Kiln has been checked with;
// newer minor versions are read (any op, attribute or type they changed is
// refused by name), a newer major version is refused.
inline constexpr int kNewestStableHloVersion[3] = {1, 20, 0};

// One function of an artifact as StableHLO text (func.func ...).
struct BytecodeFunction {
  std::string name;
  std::string text;
};

// The functions of `bytes`, each as StableHLO text. On malformed input the
// status message is `file: error: ... (at byte N)`.
StatusOr<std::vector<BytecodeFunction>> ReadBytecodeFunctions(std::string_view bytes, std::string_view file_name);

// The whole artifact as a module (what ParseModule returns for bytecode).
StatusOr<std::unique_ptr<Module>> ReadBytecodeModule(std::string_view bytes, std::string_view file_name);

}  // namespace kiln::ir
