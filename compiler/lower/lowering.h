// Lowering: verified IR -> VM bytecode, constants and executables.
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

// Converts a region (reduce body, sort comparator, ...) into a scalar
// program: block arguments become parameters, the terminator's operands the
// results. Fails, naming the op, if the body is not elementwise on scalars.
StatusOr<ScalarProgram> RegionToScalarProgram(const ir::Region& region);

// The kernel attributes of an op: its attributes flattened under the spec's
// names (see kernels/common/kernel.h), with regions as scalar programs.
StatusOr<KernelParams> KernelParamsForOp(const ir::Operation& op);

}  // namespace kiln::compiler
