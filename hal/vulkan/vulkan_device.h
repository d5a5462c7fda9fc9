// The Vulkan device: buffers in device memory, dispatches run the compute
// shaders that the compiler's vulkan target stored in the module (SPIR-V);
// the runtime compiles no shaders. See docs/vulkan.md.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hal/hal.h"

namespace kiln::hal {

struct VulkanDeviceInfo {
  int index = 0;
  std::string name;
  std::string type;  // "discrete GPU", "integrated GPU", "CPU", ...
  std::string api_version;
};

// The physical devices the Vulkan loader reports, in its order.
StatusOr<std::vector<VulkanDeviceInfo>> ListVulkanDevices();

// Opens physical device `index` (vulkan:N), or with -1 the preferred one (a
// discrete GPU, then an integrated one, then anything else).
// The Khronos validation layer is enabled when the environment variable
// KILN_VULKAN_VALIDATION is 1; every message it reports is printed to stderr
// and counted (VulkanValidationMessages), so tests can fail on it.
StatusOr<std::unique_ptr<Device>> CreateVulkanDevice(int index);

uint64_t VulkanValidationMessages();

}  // namespace kiln::hal
