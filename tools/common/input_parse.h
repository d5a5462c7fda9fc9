// Parsing one --input value of the vm-* tools.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "kernels/common/status.h"
#include "vm/host_tensor.h"
#include "vm/module.h"

namespace kiln::tools {

// The most elements one input may have (an --input value or a .npy file).
inline constexpr int64_t kMaxInputElements = int64_t{1} << 32;

// Parses one --input value: "2x3xf32=1,2,3,4,5,6", "f32=7", "4xi1=1,0,1,1",
// "2xcomplex<f32>=(1,2),(3,4)" or "@file.npy". A single value fills the
// whole shape (splat). Integers and dimensions are decimal ("010" is ten)
// or hexadecimal with "0x". A value out of its type's range is an error,
// for floats as for integers ("1e40" for f32; explicit inf and nan are
// values). `expected`: the argument's element type where known (see
// ArgumentType), so that a .npy of raw bits can feed a type numpy lacks
// (ReadNpy).
StatusOr<vm::HostTensor> ParseInput(const std::string& text, ElementType expected = ElementType::kInvalid);

// The element type of argument `index` of `function`, or kInvalid where
// there is no such tensor argument (Context::Invoke reports that).
ElementType ArgumentType(const vm::LoadedModule& module, const std::string& function, size_t index);

}  // namespace kiln::tools
