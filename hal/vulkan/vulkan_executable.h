// Vulkan executables: the shader variants of one dispatch, the choice of
// variant for a signature, the pipelines built from them and the work-group
// grid that covers a dispatch.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "hal/vulkan/vulkan_core.h"

namespace kiln::hal::vk {

class VulkanExecutable final : public Executable {
 public:
  VulkanExecutable(std::string name, std::shared_ptr<const std::vector<ShaderVariant>> v, const Core* core)
      : name_(std::move(name)), variants_(std::move(v)), core_(core), pipelines_(variants_->size(), VK_NULL_HANDLE) {}
  const std::string& name() const override { return name_; }
  // The variant compiled for these operands' types and ranks, or null.
  const ShaderVariant* Find(const std::vector<BufferView>& in, const std::vector<BufferView>& out) const;
  // The pipeline of `v`, one of this executable's variants (from Find):
  // looked up in the core's pipelines (by SPIR-V, shared between modules)
  // or created on first use, then kept here when `core` is the one the
  // executable was prepared for, so that later dispatches skip comparing
  // SPIR-V words. Under core.pipelines_mu.
  StatusOr<VkPipeline> Pipeline(Core& core, const ShaderVariant& v, VkPipelineLayout layout) const;

 private:
  std::string name_;
  std::shared_ptr<const std::vector<ShaderVariant>> variants_;
  const Core* core_;                           // the core it was prepared for
  mutable std::vector<VkPipeline> pipelines_;  // by variant, under Core::pipelines_mu
};

// Takes the spec's Vulkan shaders, checking at load that the device has the
// features each needs, so a missing one is named before anything runs.
StatusOr<std::shared_ptr<Executable>> PrepareVulkanExecutable(const Core& core, const ExecutableSpec& spec);

// Work-group counts of a dispatch of `v` whose output 0 is `out0` with
// `total` elements; `*empty` when there is nothing to compute.
Status GridOf(const Core& core, const ShaderVariant& v, const BufferView& out0, uint32_t total, uint32_t groups[3],
              bool* empty);

// "(rank-2 f32, rank-1 i32) -> (rank-2 f32)", for the error of a signature
// the module has no shader for.
std::string DescribeSignature(const std::vector<BufferView>& in, const std::vector<BufferView>& out);

}  // namespace kiln::hal::vk
