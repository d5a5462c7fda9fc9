// .npy files: reading inputs (--input=@x.npy) and writing results (--output).
#pragma once
#include <string>

#include "kernels/common/status.h"
#include "vm/host_tensor.h"

namespace kiln::tools {

StatusOr<vm::HostTensor> ReadNpy(const std::string& path);
// Types numpy lacks (bf16, f8, i4, ...) are written as raw bits of the
// same width (uint8/uint16). A tuple or token result is refused (.npy holds
// one array); a failed write (a full disk, /dev/full) is an error.
Status WriteNpy(const std::string& path, const vm::HostTensor& t);

}  // namespace kiln::tools
