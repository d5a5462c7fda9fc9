// A device that runs another device's work one command at a time, for
// vm-run --compare-with=cpu on a device that does not report its dispatches
// (Vulkan): each dispatch is its own submission, and its observer sees it
// just before it is submitted (BeforeDispatch) and once it has finished
// (OnDispatch), when its buffers can be read with Download. Everything
// else (buffers, executables, transfers, the name) is the wrapped device's.
// Slow by design: a debugging tool's device.
#pragma once
#include <memory>

#include "hal/hal.h"

namespace kiln::tools {

std::unique_ptr<hal::Device> MakeSteppingDevice(std::unique_ptr<hal::Device> inner);

}  // namespace kiln::tools
