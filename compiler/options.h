// What kiln-compile's flags choose: the targets to build for and whether
// elementwise chains are fused. Read by lowering and the vulkan target.
#pragma once
#include <string>

namespace kiln::compiler {

struct CompileOptions {
  std::string target = "all";  // cpu | vulkan | all
  // Fuse elementwise chains (compiler/passes/fuse_elementwise.h).
  bool fuse = true;
  // Plan statically sized transients into one arena per function
  // (compiler/passes/memory_plan.h); kiln-compile --no-arena turns it off.
  bool plan_memory = true;
  // There is no `fold`: the compiler evaluates nothing at compile time except
  // stablehlo.constant, which is what kiln-compile's --no-fold asks for (the
  // flag is accepted and changes nothing).
};

}  // namespace kiln::compiler
