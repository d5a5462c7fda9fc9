// Part of the quantized legalization (compiler/passes/legalize_quantized_ops.cc):
// a dot_general, dot or convolution on quantized lhs and rhs whose result's
// scale is exactly lhs scale * rhs scale (per output channel) with zero
// points 0 — the i32 accumulation type quantized programs use — computes the
// exact integer sum: the stored values (of at most 16 bits) less the lhs
// zero point, the op on f64 (every product and partial sum an integer f64
// holds exactly, up to 2^21 terms, and the CPU's fast f64 GEMM and
// convolution run it), the sum clamped to the result's storage range. That
// is the spec's dequantize_op_quantize evaluated without rounding, where the
// expressed type's arithmetic would round once the partial sums pass 2^24
// (f32). Other quantized contractions keep the dequantize -> op -> quantize
// form.
#pragma once
#include <cstddef>

#include "compiler/ir.h"

namespace kiln::compiler {

// Rewrites `block->ops[at]` if it qualifies; returns how many ops now stand
// in its place, or 0 when it left the op alone.
size_t RewriteIntegerContraction(ir::Block* block, size_t at);

// After the rewrites of a block: where the 8-bit form's zero-point
// correction (acc - broadcast(z * weight sums)) is read only by a
// uniform_quantize (a requantize), the correction becomes that quantize's
// operand zero points instead (per output feature), and the subtract and
// its broadcast go: requantize computes (acc - zp) * scale, the same
// integers, without a pass over the i32 accumulators.
void FoldZeroPointCorrections(ir::Block* block);

// For the CPU target (compile.cc): an int8 dot_general or convolution whose
// i32 accumulators are read only by a requantize (bitcast_convert to the
// quantized i32 type, then uniform_quantize to 8-bit storage, f32
// expressed) takes the requantize in: its result becomes the requantize's,
// and attribute "product_type" (a type) keeps the accumulators'
// quantization, which lowering passes on as the product_* kernel
// attributes (kernels/reference/epilogue.h, "requantizing producers"). The
// kernel requantizes each chunk of accumulators while in cache, and the i32
// tensor never exists. Same integers: the requantize's arithmetic is the
// same, only where it runs moves.
void FuseRequantizeIntoContractions(ir::Module* module);

// For the CPU target: the `pad` of an 8-bit integer convolution's input
// with a constant (the zero point's pad of the 8-bit form, or one the
// program wrote), over spatial dims and at their edges, becomes the
// convolution's own padding, with attribute "padding_value" the stored
// value the padded elements hold (kernels/reference/contraction.cc): the
// CPU pads each chunk in cache instead of a pass over a padded copy.
void FoldZeroPointPadsIntoConvolutions(ir::Module* module);

}  // namespace kiln::compiler
