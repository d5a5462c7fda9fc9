// Simulated Vulkan faults, for tests: lavapipe neither loses its device nor
// runs out of device memory, so the driver's handling of both is driven from
// here (docs/vulkan.md, "Faults"). Set before a device opens:
//
//   KILN_TEST_VULKAN_FAULT=device_lost:N           the N-th queue submission
//       reports VK_ERROR_DEVICE_LOST instead of running; the device stays
//       lost: every later submission, allocation and transfer fails too.
//   KILN_TEST_VULKAN_FAULT=out_of_device_memory:N  the N-th vkAllocateMemory
//       reports VK_ERROR_OUT_OF_DEVICE_MEMORY (once).
//
// N counts from 1, per device. A real VK_ERROR_DEVICE_LOST from the driver
// marks the device lost the same way.
#pragma once
#include <vulkan/vulkan.h>

#include <atomic>
#include <cstdint>

#include "kernels/common/status.h"

namespace kiln::hal::vk {

class FaultHook {
 public:
  // Reads KILN_TEST_VULKAN_FAULT; an unknown value is refused, naming the forms.
  Status ConfigureFromEnv();

  // What a queue submission or a memory allocation must report instead of
  // going ahead: VK_SUCCESS to go ahead.
  VkResult BeforeSubmit();
  VkResult BeforeAllocate();

  // Lost for good: a submission reported (or was made to report) device loss.
  void MarkLost() { lost_.store(true, std::memory_order_release); }
  bool lost() const { return lost_.load(std::memory_order_acquire); }

 private:
  int64_t lose_at_ = 0, oom_at_ = 0;  // 0: never
  std::atomic<int64_t> submits_{0}, allocations_{0};
  std::atomic<bool> lost_{false};
};

// The error every use of a lost device reports (Unavailable).
Status DeviceLost(std::string_view what);

}  // namespace kiln::hal::vk
