// Parsing one --input value of the vm-* tools.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "kernels/common/status.h"
#include "vm/host_tensor.h"

namespace kiln::tools {

// The most elements one input may have (an --input value or a .npy file).
inline constexpr int64_t kMaxInputElements = int64_t{1} << 32;

// Parses one --input value: "2x3xf32=1,2,3,4,5,6", "f32=7", "4xi1=1,0,1,1",
// "2xcomplex<f32>=(1,2),(3,4)" or "@file.npy". A single value fills the
// whole shape (splat). Integers and dimensions are decimal ("010" is ten)
// or hexadecimal with "0x".
StatusOr<vm::HostTensor> ParseInput(const std::string& text);

// An integer as --input reads one: decimal, or hexadecimal after "0x".
bool ParseInteger(std::string_view s, int64_t* out);

}  // namespace kiln::tools
