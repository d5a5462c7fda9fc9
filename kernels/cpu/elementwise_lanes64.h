// The CPU kiln.elementwise for programs with 64-bit values: every value
// f32, f64, si32, ui32, si64, ui64 or i1, and some si64, ui64 or f64 value
// (PyTorch's exports carry their indices, aranges and the masks built from
// them in 64 bits; f64 programs with i1 results or f32 values beside).
// Implemented in elementwise_lanes64.cc; elementwise.cc hands it such
// programs that the float interpreter does not take.
#pragma once
#include "kernels/common/kernel.h"
#include "kernels/common/scalar_program.h"

namespace kiln::cpu {

bool IsLanes64Program(const ScalarProgram& prog);
// Runs `prog` over the call as the reference would (its bits); calls it
// cannot take go to the reference, which reports them.
Status RunLanes64Program(const KernelCall& call, const ScalarProgram& prog, const KernelAttr* map);

}  // namespace kiln::cpu
