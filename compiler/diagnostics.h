// How every stage reports an error at a source location: a formatter made by
// compile.cc from the source text ("file:line:col: error: ..." with the
// source line and a caret, see ir::FormatDiagnostic in compiler/parse/parser.h).
// compile.cc makes a second one for warnings ("file:line:col: warning: ...").
// An unknown location (line 0) gives "file: error: ...".
#pragma once
#include <functional>
#include <string>

#include "compiler/ir.h"

namespace kiln::compiler {

using ErrorFormatter = std::function<std::string(ir::Location, const std::string&)>;

}  // namespace kiln::compiler
