// The vulkan target: run by compile.cc after lowering, one compute shader per distinct
// signature of every executable a function dispatches. A function with an
// op or type the target cannot handle is recorded as unavailable on the
// vulkan device (--target=all, with a warning) or refused (--target=vulkan).
#pragma once
#include <string>
#include <vector>

#include "compiler/diagnostics.h"
#include "compiler/ir.h"
#include "compiler/module_builder.h"
#include "compiler/options.h"

namespace kiln::compiler {

// Errors (--target=vulkan) and warnings (--target=all) name the op the
// target cannot compile, at its location: format_error and format_warning
// make the full diagnostics.
Status AddVulkanTarget(const ir::Module& module, const CompileOptions& options, const ErrorFormatter& format_error,
                       const ErrorFormatter& format_warning, ModuleBuilder* out, std::vector<std::string>* warnings);

}  // namespace kiln::compiler
