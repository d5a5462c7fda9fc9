// The StableHLO text front end: MLIR source (generic and pretty syntax) -> IR.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir.h"
#include "kernels/common/status.h"

namespace kiln::ir {

// Parses one program (bare func.func ops, or one `module @name {...}`).
// `first_line` is the line in `file_name` where `source` starts, so that
// errors in a chunk of a larger file name the file's own line.
// On error the status message is the full diagnostic:
//   file:line:col: error: message
//   <the source line>
//   <spaces>^
StatusOr<std::unique_ptr<Module>> ParseModule(std::string_view source, std::string_view file_name,
                                              int first_line = 1);

// A test file holds several programs separated by lines that are exactly
// `// -----`. Returns each chunk with the line it starts on.
struct SourceChunk {
  std::string text;
  int first_line = 1;
};
std::vector<SourceChunk> SplitChunks(std::string_view source);

// Formats a diagnostic the way ParseModule and the verifier report them.
std::string FormatDiagnostic(std::string_view file_name, std::string_view source, int first_line,
                             Location loc, std::string_view severity, std::string_view message);

// Writes the module in MLIR's generic form; ParseModule reads it back to an
// equal IR.
std::string PrintModule(const Module& module);

}  // namespace kiln::ir
