// An IR -> IR rewrite that compile.cc runs for the CPU target (with fusion
// on): a stablehlo.convert that widens f16 or bf16 to f32 and feeds an f32
// dot_general, dot or convolution is folded into it, so the contraction
// reads the 16-bit operand itself (the mixed-precision form: bf16 weights,
// f32 activations). The CPU kernels widen such an operand exactly as they
// read it (kernels/cpu/contraction_dot_general.cc: batch-1 layers stream
// the 16-bit weights, larger products widen them once per packing; a
// constant is packed once), the same values the convert gave, so the
// result is unchanged, without a conversion pass over the weights per call
// or an f32 copy of them in memory. The Vulkan target keeps the convert:
// its register-blocked shader reads f32 operands only.
#pragma once
#include "compiler/ir.h"

namespace kiln::compiler {

// For each operand x = convert(y) of an f32 dot_general, dot or convolution
// with y f16 or bf16 and x f32: the operand becomes y. A convert left with
// no users is removed; one with other users stays for them.
void FoldWideningConvertsIntoContractions(ir::Module* module);

}  // namespace kiln::compiler
