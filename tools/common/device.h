// Choosing the device a tool runs on (--device, --threads, --list-devices).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "hal/hal.h"
#include "kernels/common/status.h"

namespace kiln::tools {

// "cpu" (the default) or "vulkan[:N]". `threads`: the CPU device's kernel
// thread pool (--threads=N); 0 means one per core.
StatusOr<std::unique_ptr<hal::Device>> CreateDevice(const std::string& spec, int threads = 0);
std::vector<std::string> ListDevices();

}  // namespace kiln::tools
