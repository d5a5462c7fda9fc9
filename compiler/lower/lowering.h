// Lowering: verified, legalized IR -> VM bytecode, constants and executables
// (compiler/lower/function_lowering.h has the per-function machinery).
#pragma once
#include <string>
#include <vector>

#include "compiler/diagnostics.h"
#include "compiler/ir.h"
#include "compiler/module_builder.h"
#include "compiler/options.h"
#include "kernels/common/status.h"

namespace kiln::compiler {

// Lowers every function of `module` into `out` (bytecode, executables,
// constants, and per function the dispatches and calls it made, which the
// vulkan target reads next).
Status LowerModule(const ir::Module& module, const CompileOptions& options, const ErrorFormatter& format_error,
                   ModuleBuilder* out);

}  // namespace kiln::compiler
