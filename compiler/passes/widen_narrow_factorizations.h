// An IR -> IR rewrite that compile.cc runs for the Vulkan target alone: a
// stablehlo.cholesky or kiln.lu of f16 or bf16 matrices becomes the same
// factorization in f32 between two converts. The Vulkan shaders factor in
// the element type and read back what they wrote (kernels/vulkan/
// cholesky.glsl, lu.glsl), so a 16-bit type would round every partial
// result; the reference widens such matrices too (kernels/reference/
// linalg.cc: LU in f32, Cholesky in f64, both rounded once to the 16-bit
// type). LU's pivots and info come from the f32 factorization, as the
// reference's do. A module for every target keeps the 16-bit op, which the
// CPU runs (the function is then unavailable on Vulkan, as before).
#pragma once
#include "compiler/ir.h"

namespace kiln::compiler {

// For each cholesky / kiln.lu of f16 or bf16 (nested blocks included):
// its operand converted to f32, its first result computed in f32 and
// converted back to the old type for the old result's users.
void WidenNarrowFactorizations(ir::Module* module);

}  // namespace kiln::compiler
