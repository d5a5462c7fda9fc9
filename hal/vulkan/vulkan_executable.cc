// Vulkan executables, pipelines and grids (hal/vulkan/vulkan_executable.h).
#include "hal/vulkan/vulkan_executable.h"

#include <algorithm>

#include "hal/vulkan/spirv_check.h"

namespace kiln::hal::vk {

const ShaderVariant* VulkanExecutable::Find(const std::vector<BufferView>& in, const std::vector<BufferView>& out) const {
  for (const auto& v : *variants_) {
    if (v.input_types.size() != in.size() || v.output_types.size() != out.size()) continue;
    bool ok = true;
    for (size_t i = 0; ok && i < in.size(); ++i)
      ok = v.input_types[i] == in[i].type && v.input_ranks[i] == in[i].dims.size();
    for (size_t i = 0; ok && i < out.size(); ++i)
      ok = v.output_types[i] == out[i].type && v.output_ranks[i] == out[i].dims.size();
    if (ok) return &v;
  }
  return nullptr;
}

StatusOr<VkPipeline> VulkanExecutable::Pipeline(Core& core, const ShaderVariant& v, VkPipelineLayout layout) const {
  if (&core != core_) return core.Pipeline(v, layout, name_);
  VkPipeline& kept = pipelines_[static_cast<size_t>(&v - variants_->data())];
  if (kept == VK_NULL_HANDLE) {
    KILN_ASSIGN_OR_RETURN(kept, core.Pipeline(v, layout, name_));
  }
  return kept;
}

StatusOr<std::shared_ptr<Executable>> PrepareVulkanExecutable(const Core& core, const ExecutableSpec& spec) {
  auto shaders = spec.Find<std::vector<ShaderVariant>>(kVulkanShaderFormat);
  if (!shaders) return spec.Missing(kVulkanShaderFormat, "the Vulkan device");
  // A module may hold executables without shaders: those of functions that
  // are unavailable on this device (the VM refuses them by name).
  for (const auto& v : *shaders) {
    uint32_t missing = v.features & ~core.features;
    if (missing)
      return Unimplemented(spec.name + " needs the Vulkan device feature(s) " + ShaderFeatureNames(missing) +
                           ", which " + core.props.deviceName + " lacks");
    if (v.spirv.empty() || v.input_ranks.size() != v.input_types.size() ||
        v.output_ranks.size() != v.output_types.size() || v.workgroup_size == 0)
      return InvalidArgument(spec.name + ": malformed Vulkan shader");
    if (v.grid_kind == ShaderGrid::kTiles && v.grid_args.size() != 4)
      return InvalidArgument(spec.name + ": malformed Vulkan tile grid");
    if (v.grid_kind == ShaderGrid::kPerElement && !ValidElementGrid(v.grid_args))
      return InvalidArgument(spec.name + ": malformed Vulkan element grid");
    if (v.grid_kind == ShaderGrid::kPerRow && !v.grid_args.empty() &&
        (v.grid_args.size() != 1 || v.grid_args[0] == 0 || v.grid_args[0] > v.workgroup_size))
      return InvalidArgument(spec.name + ": malformed Vulkan row grid");
    if ((v.input_types.size() < 32 && (v.texel_inputs >> v.input_types.size()) != 0) ||
        (v.texel_inputs != 0 && !(v.features & kTexelInputs)))
      return InvalidArgument(spec.name + ": malformed Vulkan texel inputs");
    // Before any of it reaches the driver, which may crash on malformed SPIR-V.
    Status s = CheckSpirvStructure(v.spirv);
    if (!s.ok()) return InvalidArgument(InvalidShader(spec.name) + ": " + s.message());
  }
  return std::shared_ptr<Executable>(std::make_shared<VulkanExecutable>(spec.name, std::move(shaders), &core));
}

StatusOr<std::pair<VkDescriptorSetLayout, VkPipelineLayout>> Core::Layout(uint32_t bindings, uint32_t texels) {
  const std::pair<uint32_t, uint32_t> key{bindings, texels};
  auto it = layouts.find(key);
  if (it != layouts.end()) return it->second;
  std::vector<VkDescriptorSetLayoutBinding> b(bindings + texels);
  for (uint32_t i = 0; i < bindings + texels; ++i)
    b[i] = VkDescriptorSetLayoutBinding{
        i, i < bindings ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER : VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, 1,
        VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  VkDescriptorSetLayoutCreateInfo dci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  dci.bindingCount = bindings + texels;
  dci.pBindings = b.data();
  VkDescriptorSetLayout dsl;
  KILN_VK(vkCreateDescriptorSetLayout(device, &dci, nullptr, &dsl), "creating a descriptor set layout");
  VkPipelineLayoutCreateInfo pci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pci.setLayoutCount = 1;
  pci.pSetLayouts = &dsl;
  VkPipelineLayout pl;
  VkResult r = vkCreatePipelineLayout(device, &pci, nullptr, &pl);
  if (r != VK_SUCCESS) {
    vkDestroyDescriptorSetLayout(device, dsl, nullptr);
    return VkError(r, "creating a pipeline layout");
  }
  layouts[key] = {dsl, pl};
  return layouts[key];
}

std::string InvalidShader(const std::string& kernel) {
  return "the module's shader for " + kernel + " is invalid (corrupted file?)";
}

StatusOr<VkPipeline> Core::Pipeline(const ShaderVariant& v, VkPipelineLayout layout, const std::string& kernel) {
  // The driver's refusal of a shader names the kernel; running out of memory
  // is not the shader's fault and keeps its own message.
  auto shader_error = [&](VkResult r, const char* what) {
    if (r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_DEVICE_LOST)
      return VkError(r, what);
    return Status(StatusCode::kInvalidArgument,
                  InvalidShader(kernel) + ": " + what + " failed with " + VkResultName(r));
  };
  auto it = pipelines.find(v.spirv);
  if (it != pipelines.end()) return it->second;
  VkShaderModuleCreateInfo sci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  sci.codeSize = v.spirv.size() * 4;
  sci.pCode = v.spirv.data();
  VkShaderModule sm;
  VkResult r = vkCreateShaderModule(device, &sci, nullptr, &sm);
  if (r != VK_SUCCESS) return shader_error(r, "creating a shader module");
  VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  ci.stage = VkPipelineShaderStageCreateInfo{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.module = sm;
  ci.stage.pName = "main";
  ci.layout = layout;
  VkPipeline p;
  r = vkCreateComputePipelines(device, pipeline_cache, 1, &ci, nullptr, &p);
  vkDestroyShaderModule(device, sm, nullptr);
  if (r != VK_SUCCESS) return shader_error(r, "creating a compute pipeline");
  pipelines[v.spirv] = p;
  return p;
}

Status GridOf(const Core& core, const ShaderVariant& v, const BufferView& out0, uint32_t total, uint32_t groups[3],
              bool* empty) {
  const uint32_t max_x = core.props.limits.maxComputeWorkGroupCount[0];
  const uint32_t max_y = core.props.limits.maxComputeWorkGroupCount[1];
  const uint32_t max_z = core.props.limits.maxComputeWorkGroupCount[2];
  if (v.grid_kind == ShaderGrid::kPerElement || v.grid_kind == ShaderGrid::kPerGroup ||
      v.grid_kind == ShaderGrid::kPerRow) {
    if (total == 0) return *empty = true, Status::Ok();
    uint64_t per_group = v.grid_kind == ShaderGrid::kPerGroup ? 1 : uint64_t{v.workgroup_size} * ElementsPerInvocation(v);
    if (v.grid_kind == ShaderGrid::kPerRow) {
      if (out0.dims.empty()) return InvalidArgument("a per-row Vulkan grid over a scalar");
      // grid_args {R}: R rows per work group (short rows, one invocation
      // each); none: one row per work group.
      const uint64_t rows_per_group = v.grid_args.empty() ? 1 : v.grid_args[0];
      per_group = static_cast<uint64_t>(out0.dims.back()) * rows_per_group;  // total > 0: the last dim is not 0
    }
    uint64_t count = (uint64_t{total} + per_group - 1) / per_group;
    // Rows of equal length: a count just past max_x as two half rows, not
    // a full row and a second one of work groups that find nothing to do
    // (lavapipe starts each: a 16M-element add took 71 ms instead of 39).
    uint64_t gy = (count + max_x - 1) / max_x;
    uint64_t gx = (count + gy - 1) / gy;
    if (gy > max_y) return Unimplemented("a dispatch too large for the Vulkan device's work-group limits");
    groups[0] = static_cast<uint32_t>(gx);
    groups[1] = static_cast<uint32_t>(gy);
    return Status::Ok();
  }
  const uint32_t nb = v.grid_args[0], nm = v.grid_args[1], tm = v.grid_args[2], tn = v.grid_args[3];
  if (nb + nm > out0.dims.size() || tm == 0 || tn == 0) return InvalidArgument("malformed Vulkan tile grid");
  uint64_t b = 1, m = 1, n = 1;
  for (size_t d = 0; d < out0.dims.size(); ++d)
    (d < nb ? b : d < nb + nm ? m : n) *= static_cast<uint64_t>(out0.dims[d]);
  if (b * m * n == 0) return *empty = true, Status::Ok();
  uint64_t gx = (n + tn - 1) / tn, gy = (m + tm - 1) / tm;
  if (gx > max_x || gy > max_y || b > max_z)
    return Unimplemented("a dispatch too large for the Vulkan device's work-group limits");
  groups[0] = static_cast<uint32_t>(gx);
  groups[1] = static_cast<uint32_t>(gy);
  groups[2] = static_cast<uint32_t>(b);
  return Status::Ok();
}

std::string DescribeSignature(const std::vector<BufferView>& in, const std::vector<BufferView>& out) {
  std::string s = "(";
  auto add = [&](const BufferView& v) {
    s += "rank-" + std::to_string(v.dims.size()) + " " + std::string(Name(v.type));
  };
  for (size_t i = 0; i < in.size(); ++i) {
    if (i) s += ", ";
    add(in[i]);
  }
  s += ") -> (";
  for (size_t i = 0; i < out.size(); ++i) {
    if (i) s += ", ";
    add(out[i]);
  }
  return s + ")";
}

}  // namespace kiln::hal::vk
