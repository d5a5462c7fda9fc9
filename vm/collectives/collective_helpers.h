// What the two halves of the VM's collectives (context_collectives.cc, the
// general path through host tensors; context_in_place.cc, straight between
// buffers) both need.
#pragma once
#include <string>

#include "kernels/common/kernel.h"
#include "vm/collectives/collectives.h"
#include "vm/host_tensor.h"

namespace kiln::vm {

// "tensor<2x3xf32>", as a collective's signature names its operands.
std::string TypeText(const HostTensor& t);

// The reduction body as a standard reduction (one add/multiply/maximum/
// minimum of the two parameters), else kNone.
StandardReduction StandardOf(const KernelParams& params);

}  // namespace kiln::vm
