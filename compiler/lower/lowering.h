// Lowering: verified IR -> VM bytecode, constants and executables.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "compiler/ir.h"
#include "compiler/module_builder.h"
#include "kernels/common/status.h"

namespace kiln::compiler {

struct CompileOptions {
  std::string target = "all";  // cpu | vulkan | all
  bool fold = true;            // --no-fold: evaluate nothing at compile time
  bool fuse = true;            // fuse elementwise chains (compiler/fuse_elementwise.h)
};

// Formats an error at a source location ("file:line:col: error: ...").
using ErrorFormatter = std::function<std::string(ir::Location, const std::string&)>;

// Lowers every function of `module` into `out`. Warnings (e.g. a function
// recorded as unavailable on a device) go to `warnings`.
Status LowerModule(const ir::Module& module, const CompileOptions& options, const ErrorFormatter& format_error,
                   ModuleBuilder* out, std::vector<std::string>* warnings);

// Converts a region (reduce body, sort comparator, ...) into a scalar
// program: block arguments become parameters, the terminator's operands the
// results. Fails, naming the op, if the body is not elementwise on scalars.
StatusOr<ScalarProgram> RegionToScalarProgram(const ir::Region& region);

// The kernel attributes of an op: its attributes flattened under the spec's
// names (see kernels/common/kernel.h), with regions as scalar programs.
StatusOr<KernelParams> KernelParamsForOp(const ir::Operation& op);

}  // namespace kiln::compiler
