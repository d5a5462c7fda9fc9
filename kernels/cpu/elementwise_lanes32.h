// The CPU kiln.elementwise and variadic reduce for programs over 32-bit
// lanes that hold integers: every value f32, si32, ui32, i1 or an 8- or
// 16-bit integer, and some integer value or i1 operand (index arithmetic,
// masks from iota compares, converts between integers and floats, integer
// hashing, 8- and 16-bit integer arithmetic). Implemented in
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

// stablehlo.reduce with a body of 32-bit lane types (2n params: the n
// accumulators, then the n elements; n results of the accumulators' types)
// that is not a single sum (the float reduce's tree order): argmax and
// argmin, reduces of integers and predicates, any variadic body. Each
// output folds its elements one at a time in row-major order from its
// initial values, as the reference does, the outputs side by side in
// vector lanes. Calls it does not take (a fused input program, converted
// types) go to the reference.
bool IsReduceLanes32Body(const ScalarProgram& body);
Status RunReduceLanes32(const KernelCall& call);

}  // namespace kiln::cpu
