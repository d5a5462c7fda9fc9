// Device creation for the tools (tools/common/device.h).
#include "tools/common/device.h"

#include "hal/cpu/thread_pool.h"
#include "hal/devices.h"

namespace kiln::tools {

StatusOr<std::unique_ptr<hal::Device>> CreateDevice(const std::string& spec, int threads) {
  if (threads < 0 || threads > hal::ThreadPool::kMaxThreads)
    return InvalidArgument("--threads must be 0 to " + std::to_string(hal::ThreadPool::kMaxThreads) +
                           " (0: one per core), not " + std::to_string(threads));
  return hal::CreateDeviceByName(spec, threads);
}

std::vector<std::string> ListDevices() { return hal::ListDeviceNames(); }

}  // namespace kiln::tools
