#include "hal/devices.h"

#include "hal/cpu/cpu_device.h"

namespace kiln::hal {

StatusOr<std::unique_ptr<Device>> CreateDeviceByName(const std::string& name) {
  if (name.empty() || name == "cpu") return CreateCpuDevice(CpuModeFromEnvironment());
  return InvalidArgument("unknown device '" + name + "' (this runtime has: cpu)");
}

}  // namespace kiln::hal
