// The vulkan target: after lowering, one compute shader per distinct
// signature of every executable a function dispatches. A function with an
// op or type the target cannot handle is recorded as unavailable on the
// vulkan device (--target=all, with a warning) or refused (--target=vulkan).
#pragma once
#include <string>
#include <vector>

#include "compiler/lower/lowering.h"
#include "compiler/module_builder.h"

namespace kiln::compiler {

// What lowering one function added to ModuleBuilder::dispatch_uses and
// ModuleBuilder::call_uses (half-open ranges).
struct FunctionUses {
  size_t dispatch_begin = 0, dispatch_end = 0;
  size_t call_begin = 0, call_end = 0;
};

Status AddVulkanTarget(const ir::Module& module, const CompileOptions& options, const ErrorFormatter& format_error,
                       const std::vector<FunctionUses>& uses, ModuleBuilder* out,
                       std::vector<std::string>* warnings);

}  // namespace kiln::compiler
