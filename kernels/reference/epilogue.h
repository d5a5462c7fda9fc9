// Epilogues: an elementwise program fused onto a producer dispatch
// (dot_general, dot, convolution) by the compiler (compiler/
// fuse_elementwise.h), so a bias add and an activation cost no dispatch and
// no tensor of their own.
//
// A producer's KernelParams may carry
//   "epilogue"            a scalar program; its param 0 is the producer's
//                         result element, params 1.. are the dispatch's
//                         inputs after the producer's own operands;
//   "epilogue_broadcast"  (optional) how every param is read, as
//                         kiln.elementwise's "input_broadcast" (param 0 is
//                         always read at the output's own index).
// The output is the program's only result, of the producer's result type and
// shape: out = epilogue(producer(operands...), extra inputs...).
#pragma once
#include <cstddef>

#include "kernels/common/kernel.h"

namespace kiln::ref {

// An elementwise kernel with its program and axis map given explicitly
// (ref::RunElementwiseProgram, cpu::RunElementwiseProgram).
using ElementwiseProgramFn = Status (*)(const KernelCall&, const ScalarProgram*, const KernelAttr* map);

// Runs `producer` on the first `producer_inputs` inputs into the output, then
// `elementwise` over that output in place with the extra inputs. Without an epilogue (or with call.without_epilogue), just
// `producer`, which must ignore the epilogue's attributes.
Status RunWithEpilogue(const KernelCall& call, size_t producer_inputs, KernelFn producer,
                       ElementwiseProgramFn elementwise);

}  // namespace kiln::ref
