// The CPU kiln.elementwise for programs over 32-bit lanes that hold
// integers: every value f32, si32, ui32 or i1, and some integer value or
// i1 operand (index arithmetic, masks from iota compares, converts between
// integers and floats, integer hashing). Implemented in
// elementwise_lanes32.cc; elementwise.cc hands such programs to it.
#pragma once
#include "kernels/common/kernel.h"
#include "kernels/common/scalar_program.h"

namespace kiln::cpu {

bool IsLanes32Program(const ScalarProgram& prog);
// Runs `prog` over the call as the reference would (its bits); calls it
// cannot take (types or shapes the program does not declare) go to the
// reference, which reports them.
Status RunLanes32Program(const KernelCall& call, const ScalarProgram& prog, const KernelAttr* map);

}  // namespace kiln::cpu
