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

// Requantizing producers: an int8 dot_general or convolution whose i32
// accumulators the compiler's requantize fold (compiler/passes/
// quantized_integer_contraction.h) requantizes before they are stored:
//   out = uniform_quantize(producer(operands...))
// with the accumulators' quantization in "product_scales",
// "product_zero_points" and "product_quantized_dimension", and the
// result's in the plain names (scales, zero_points, quantized_dimension,
// storage_min, storage_max), as a requantizing uniform_quantize has them
// with "operand_". A fused epilogue then runs over the requantized result.
bool HasRequantize(const KernelParams& params);
// `params` less the product_* attributes: the producer of the accumulators.
KernelParams ProductParams(const KernelParams& params);
// The uniform_quantize of the accumulators: product_* renamed operand_*.
KernelParams RequantizeParams(const KernelParams& params);
// Runs `producer` (with ProductParams) into i32 scratch, then the reference
// requantize into the output. Without product_* attributes, just `producer`.
Status RunWithRequantize(const KernelCall& call, KernelFn producer);

}  // namespace kiln::ref
