// What the vm-* tools share: parsing --input values, .npy files, and
// choosing a device.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "hal/hal.h"
#include "kernels/common/status.h"
#include "vm/host_tensor.h"

namespace kiln::tools {

// Parses one --input value: "2x3xf32=1,2,3,4,5,6", "f32=7", "4xi1=1,0,1,1",
// "2xcomplex<f32>=(1,2),(3,4)" or "@file.npy". A single value fills the
// whole shape (splat). Integers and dimensions are decimal ("010" is ten)
// or hexadecimal with "0x".
StatusOr<vm::HostTensor> ParseInput(const std::string& text);

StatusOr<vm::HostTensor> ReadNpy(const std::string& path);
// Types numpy lacks (bf16, f8, i4, ...) are written as raw bits of the
// same width (uint8/uint16). A tuple or token result is refused (.npy holds
// one array); a failed write (a full disk, /dev/full) is an error.
Status WriteNpy(const std::string& path, const vm::HostTensor& t);

// "cpu" (the default) or "vulkan[:N]". `threads`: the CPU device's kernel
// thread pool (--threads=N); 0 means one per core.
StatusOr<std::unique_ptr<hal::Device>> CreateDevice(const std::string& spec, int threads = 0);
std::vector<std::string> ListDevices();

}  // namespace kiln::tools
