// An IR -> IR rewrite that compile.cc runs for the Vulkan target alone: a
// stablehlo.dot_general or stablehlo.convolution of f16 or bf16 operands
// becomes the same op on f32 operands (exact converts before it), its f32
// result converted back where the result is 16-bit. The Vulkan device's
// register-blocked contraction shaders read f32 (kernels/vulkan/
// dot_general_blocked.glsl, convolution_blocked.glsl); 16-bit operands took
// the generic shared-memory tile, 24x slower on lavapipe (a bf16 256x512 by
// 512x512 product: 161 ms against 6.8 ms in f32). The sums are f32 either
// way (the generic shader accumulates in f32 for 16-bit types) and are
// rounded to the 16-bit result once, at the end; the reference sums in f64
// and rounds once. A module for every target keeps the 16-bit op, which the
// CPU's own 16-bit kernels run.
#pragma once
#include "compiler/ir.h"

namespace kiln::compiler {

// For each dot_general / convolution (nested blocks included) whose
// operands are f16, bf16 or f32, at least one of them 16-bit, with an f16,
// bf16 or f32 result, none quantized: each 16-bit operand converted to f32,
// the op computed in f32, and, for a 16-bit result, converted back to the
// old type for the old result's users.
void WidenNarrowContractions(ir::Module* module);

}  // namespace kiln::compiler
