// Choosing a device by name, for the embedding APIs: "cpu" (driver mode from
// KILN_CPU_MODE, see hal/cpu/cpu_device.h).
#pragma once
#include <memory>
#include <string>

#include "hal/hal.h"

namespace kiln::hal {

StatusOr<std::unique_ptr<Device>> CreateDeviceByName(const std::string& name);

}  // namespace kiln::hal
