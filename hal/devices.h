// Choosing a device by name, shared by the tools and the embedding APIs:
// "cpu" (driver mode from KILN_CPU_MODE, see hal/cpu/cpu_device.h) or
// "vulkan[:N]" (the preferred Vulkan device, or the N-th that
// ListDeviceNames lists).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "hal/cpu/thread_pool.h"
#include "hal/hal.h"

namespace kiln::hal {

// `cpu_threads`: the CPU device's kernel thread pool; 0 means the default
// (KILN_THREADS, else one per core). An empty name is refused.
StatusOr<std::unique_ptr<Device>> CreateDeviceByName(const std::string& name, int cpu_threads = 0);
// The same with every setting of the CPU device's pool (thread count, spin
// policy, affinity); a Vulkan device ignores them.
StatusOr<std::unique_ptr<Device>> CreateDeviceByName(const std::string& name, const ThreadPoolOptions& cpu);

// One line per device this runtime can open, "name: description".
std::vector<std::string> ListDeviceNames();

}  // namespace kiln::hal
