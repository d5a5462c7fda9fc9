// What kiln-compile's flags choose: the targets to build for and whether
// elementwise chains are fused. Read by lowering and the vulkan target.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::compiler {

struct CompileOptions {
  std::string target = "all";  // cpu | vulkan | all
  // Fuse elementwise chains (compiler/passes/fuse_elementwise.h).
  bool fuse = true;
  // Plan statically sized transients into one arena per function
  // (compiler/passes/memory_plan.h); kiln-compile --no-arena turns it off.
  bool plan_memory = true;
  // External weights (compiler/externalize.h): move constants of at least
  // this many bytes into a safetensors file (Compile's `parameters`); unset:
  // every constant stays inline. Their parameters' scope is `params_scope`.
  std::optional<uint64_t> externalize_min_bytes;
  std::string params_scope;
  // Arguments of public functions that become parameters of `params_scope`
  // (compiler/passes/params_from_args.h): "all", or names / pytree prefixes
  // of their jax.arg_info.
  std::vector<std::string> params_from_args;
  // The platforms of a JAX multi-platform export, in its order (jax.export's
  // Exported.platforms; kiln-compile --platforms): the platform-index
  // argument is bound to cpu's index (compiler/passes/platform_index.h).
  // Empty: unknown, the argument stays an argument.
  std::vector<std::string> platforms;
  // Write format 0.4's layout (constants inside the FlatBuffer, no data
  // segment; ModuleBuilder::Layout::kInline04), for tests that check that
  // old files still load. kiln-compile --format=0.4.
  bool format_04 = false;
  // There is no `fold`: the compiler evaluates nothing at compile time except
  // stablehlo.constant, which is what kiln-compile's --no-fold asks for (the
  // flag is accepted and changes nothing).
};

}  // namespace kiln::compiler
