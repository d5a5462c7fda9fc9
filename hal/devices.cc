#include "hal/devices.h"

#include <charconv>

#include "hal/cpu/cpu_device.h"
#ifdef KILN_HAVE_VULKAN
#include "hal/vulkan/vulkan_device.h"
#endif

namespace kiln::hal {

StatusOr<std::unique_ptr<Device>> CreateDeviceByName(const std::string& name, int cpu_threads) {
  if (cpu_threads < 0)
    return InvalidArgument("the thread count must be at least 0 (0: KILN_THREADS, else one per core)");
  ThreadPoolOptions cpu;
  cpu.threads = cpu_threads;
  return CreateDeviceByName(name, cpu);
}

StatusOr<std::unique_ptr<Device>> CreateDeviceByName(const std::string& name, const ThreadPoolOptions& cpu) {
  if (cpu.threads < 0)
    return InvalidArgument("the thread count must be at least 0 (0: KILN_THREADS, else one per core)");
  // "" is no device's name: the default is for callers to spell ("cpu").
  if (name.empty()) return InvalidArgument("the device name is empty (expected cpu or vulkan[:N])");
  if (name == "cpu") return CreateCheckedCpuDevice(CpuModeFromEnvironment(), cpu);
  if (name == "vulkan" || name.rfind("vulkan:", 0) == 0) {
#ifdef KILN_HAVE_VULKAN
    int index = -1;  // the preferred device
    if (name.size() > 7) {
      const char* first = name.data() + 7;
      const char* last = name.data() + name.size();
      auto [end, ec] = std::from_chars(first, last, index);
      if (ec != std::errc() || end != last || index < 0 || index > 1000)
        return InvalidArgument("bad device '" + name + "' (expected vulkan:N)");
    }
    return CreateVulkanDevice(index);
#else
    return Unimplemented("this build has no Vulkan device (built with KILN_ENABLE_VULKAN=OFF)");
#endif
  }
  return InvalidArgument("unknown device '" + name + "' (expected cpu or vulkan[:N])");
}

std::vector<std::string> ListDeviceNames() {
  std::vector<std::string> out = {
      "cpu: the host CPU (Highway kernels, reference kernels otherwise; a thread pool of --threads, else "
      "KILN_THREADS, else one thread per core)"};
#ifdef KILN_HAVE_VULKAN
  auto devs = ListVulkanDevices();
  if (!devs.ok()) {
    out.push_back("vulkan: unavailable (" + devs.status().message() + ")");
  } else {
    for (const auto& d : *devs)
      out.push_back("vulkan:" + std::to_string(d.index) + ": " + d.name + " (" + d.type + ", Vulkan " +
                    d.api_version + ")");
  }
#endif
  return out;
}

}  // namespace kiln::hal
