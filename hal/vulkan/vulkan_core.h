// The Vulkan driver's shared internals: error mapping, the process-wide
// instance and the logical device ("Core") that buffers, executables and the
// device share. Included only by hal/vulkan/*.cc.
#pragma once
#include <vulkan/vulkan.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hal/device.h"
#include "hal/vulkan/fault_hook.h"
#include "hal/vulkan/shader_abi.h"

namespace kiln::hal::vk {

// "VK_ERROR_UNKNOWN (-13)": a result's name and number.
std::string VkResultName(VkResult r);
// A Vulkan result as a Status naming what was being done and the result.
Status VkError(VkResult r, std::string_view what);
// "the module's shader for KERNEL is invalid (corrupted file?)".
std::string InvalidShader(const std::string& kernel);
#define KILN_VK(expr, what)                                        \
  do {                                                             \
    VkResult kiln_vk_r = (expr);                                   \
    if (kiln_vk_r != VK_SUCCESS) return ::kiln::hal::vk::VkError(kiln_vk_r, what); \
  } while (0)

bool EnvIs(const char* name, std::string_view value);

// The instance (and the validation messenger), shared by everything that
// uses it.
struct Instance {
  VkInstance instance = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  ~Instance();
};

// The logical device and what everything built on it shares. Buffers and
// executables hold it, so it outlives them whatever the destruction order.
struct Core {
  std::shared_ptr<Instance> instance;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties props{};
  VkPhysicalDeviceMemoryProperties memory{};
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t queue_family = 0;
  std::mutex queue_mu;  // vkQueueSubmit needs external synchronization
  uint32_t features = 0;  // ShaderFeature bits the device has (and we enabled)
  // Where tensor buffers live (vulkan_instance.cc picks it; docs/vulkan.md):
  //   kUnified: device-local, mapped, host-cached: transfers are memcpy.
  //   kMappedUncached: device-local, mapped but uncached for the host (a
  //     discrete GPU's resizable BAR): uploads are memcpy, downloads above
  //     kDirectReadBytes are staged through host-cached memory.
  //   kStaging: device-local, not mapped: transfers are staged.
  enum class TensorMemory { kUnified, kMappedUncached, kStaging };
  TensorMemory tensor_memory = TensorMemory::kStaging;
  static constexpr size_t kDirectReadBytes = 4096;
  // Tensors; parameters and upload staging; download staging.
  uint32_t device_memory_type = 0, host_memory_type = 0, readback_memory_type = 0;
  VkPipelineCache pipeline_cache = VK_NULL_HANDLE;
  std::mutex pipelines_mu;
  // Layouts by binding count, pipelines by SPIR-V (identical shaders of
  // different modules share one pipeline).
  // Layouts by (storage bindings, texel bindings after them).
  std::map<std::pair<uint32_t, uint32_t>, std::pair<VkDescriptorSetLayout, VkPipelineLayout>> layouts;
  std::map<std::vector<uint32_t>, VkPipeline> pipelines;
  // Bytes of device memory held by buffers (DeviceStats::live_bytes), under live_mu.
  std::mutex live_mu;
  uint64_t live_bytes = 0, peak_live_bytes = 0;
  // The device's memory limit and test hook (Device::allocation_gate), asked
  // under live_mu before each allocation.
  std::shared_ptr<AllocationGate> gate;
  // Device loss (real or simulated) and the simulated faults of
  // KILN_TEST_VULKAN_FAULT (fault_hook.h).
  FaultHook faults;

  ~Core();
  // Both under pipelines_mu (vulkan_executable.cc).
  // `bindings` storage buffers, then `texels` uniform texel buffers.
  StatusOr<std::pair<VkDescriptorSetLayout, VkPipelineLayout>> Layout(uint32_t bindings, uint32_t texels = 0);
  // `kernel` names the executable in errors.
  StatusOr<VkPipeline> Pipeline(const ShaderVariant& v, VkPipelineLayout layout, const std::string& kernel);
};

// Opens physical device `index` (-1: the preferred one) (vulkan_instance.cc).
StatusOr<std::shared_ptr<Core>> OpenCore(int index);

// The HAL device over an open core (vulkan_device.cc).
std::unique_ptr<Device> NewVulkanDevice(std::shared_ptr<Core> core);

}  // namespace kiln::hal::vk
