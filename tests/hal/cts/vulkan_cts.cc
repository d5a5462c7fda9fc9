// The HAL conformance suite (hal/cts/) on the Vulkan device (the preferred
// one: lavapipe in CI), with the validation layer on (ctest sets
// KILN_VULKAN_VALIDATION=1 and fails a test on any message it prints). Its add executable comes from the compiler's
// vulkan target: a module holding one stablehlo.add, whose shaders are the
// Vulkan payload. Built only where the Vulkan driver and the compiler are.
#include <cstdlib>
#include <string>

#include "compiler/compile.h"
#include "hal/cts/cts.h"
#include "hal/vulkan/shader_abi.h"
#include "hal/vulkan/vulkan_device.h"
#include "tests/support/scoped_env.h"
#include "vm/module.h"

namespace kiln::hal::cts {
namespace {

StatusOr<ExecutableSpec> VulkanAddF32() {
  static const char* kSource = R"(
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
)";
  compiler::CompileOptions options;
  options.target = "vulkan";
  KILN_ASSIGN_OR_RETURN(auto bytes, compiler::Compile(kSource, "cts_add.mlir", options, nullptr));
  KILN_ASSIGN_OR_RETURN(auto module, vm::LoadModule(std::move(bytes)));
  for (size_t i = 0; i < module->executables.size(); ++i) {
    if (module->vulkan_shaders[i].empty()) continue;
    ExecutableSpec spec{module->executables[i].kernel, {}};
    spec.Add(kVulkanShaderFormat,
             std::shared_ptr<const std::vector<ShaderVariant>>(module, &module->vulkan_shaders[i]));
    return spec;
  }
  return Internal("the compiled add has no Vulkan shader");
}

CtsDriver Vulkan() {
  return CtsDriver{"vulkan", []() { return CreateVulkanDevice(-1); }, VulkanAddF32};
}

// The memory modes of discrete GPUs (hal/vulkan/vulkan_core.h), forced on
// the unified device CI has: "staging" (device-local buffers, staged
// transfers, zero-fills on the queue) and "bar" (mapped but uncached: large
// downloads staged).
CtsDriver VulkanMemoryMode(const char* mode) {
  return CtsDriver{std::string("vulkan_") + mode,
                   [mode]() {
                     test::ScopedEnv memory("KILN_VULKAN_MEMORY", mode);
                     return CreateVulkanDevice(-1);
                   },
                   VulkanAddF32};
}

KILN_HAL_CTS_INSTANTIATE(Vulkan, Vulkan(), VulkanMemoryMode("staging"), VulkanMemoryMode("bar"));

}  // namespace
}  // namespace kiln::hal::cts
