#include "hal/vulkan/fault_hook.h"

#include <charconv>
#include <cstdlib>
#include <string>
#include <string_view>

namespace kiln::hal::vk {

Status FaultHook::ConfigureFromEnv() {
  const char* env = std::getenv("KILN_TEST_VULKAN_FAULT");
  if (!env || !*env) return Status::Ok();
  const std::string_view v(env);
  const size_t colon = v.find(':');
  const std::string_view kind = v.substr(0, colon);
  int64_t n = 0;
  if (colon != std::string_view::npos) {
    const std::string_view num = v.substr(colon + 1);
    auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), n);
    if (ec != std::errc() || end != num.data() + num.size()) n = 0;
  }
  if (n < 1 || (kind != "device_lost" && kind != "out_of_device_memory"))
    return InvalidArgument("KILN_TEST_VULKAN_FAULT='" + std::string(v) +
                           "': expected device_lost:N or out_of_device_memory:N (N >= 1)");
  (kind == "device_lost" ? lose_at_ : oom_at_) = n;
  return Status::Ok();
}

VkResult FaultHook::BeforeSubmit() {
  if (lost()) return VK_ERROR_DEVICE_LOST;
  if (lose_at_ && submits_.fetch_add(1, std::memory_order_relaxed) + 1 == lose_at_) {
    MarkLost();
    return VK_ERROR_DEVICE_LOST;
  }
  return VK_SUCCESS;
}

VkResult FaultHook::BeforeAllocate() {
  if (lost()) return VK_ERROR_DEVICE_LOST;
  if (oom_at_ && allocations_.fetch_add(1, std::memory_order_relaxed) + 1 == oom_at_)
    return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  return VK_SUCCESS;
}

Status DeviceLost(std::string_view what) {
  return Unavailable(std::string(what) +
                     ": the Vulkan device was lost (VK_ERROR_DEVICE_LOST); it runs nothing more: "
                     "create a new device (a new session) to go on");
}

}  // namespace kiln::hal::vk
