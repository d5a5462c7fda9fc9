// An IR -> IR rewrite that compile.cc runs (with fusion on) before lowering:
// a scan's per-step input projection is hoisted out of its while loop.
//
// JAX's lax.scan over a sequence (an RNN, a GRU or LSTM layer) lowers to a
// stablehlo.while whose body slices step i out of the sequence and
// multiplies it by a weight matrix: dot_general(reshape(dynamic_slice(xs,
// .., i, ..)), w), with xs and w carried through the loop unchanged. That
// is one thin product (a matrix-vector product at batch 1) per step, each
// reading all of w. The rewrite computes the products of every step at
// once before the loop -- ys = dot_general(xs, w), one GEMM -- and the body
// slices step i out of ys instead. Each element of ys is the same sum of
// products as the element the body computed (the contraction is over the
// same operands in the same order), and dynamic_slice clamps i into the
// sliced dim the same way for xs and for ys, so results are unchanged for
// every i; the loop only reads its precomputed rows.
#pragma once
#include "compiler/ir.h"
#include "kernels/common/status.h"

namespace kiln::compiler {

// For each stablehlo.while (at any depth) and each dot_general at the top
// level of its body whose rhs is loop-invariant (a body argument the body
// returns unchanged, or a value from outside the loop) and whose lhs is
// dynamic_slice(x, ...) -- optionally reshaped to drop the sliced unit dim
// -- of a loop-invariant x, slicing exactly one dim to size 1 that the dot
// neither contracts nor batches: the dot over the whole x is inserted before
// the loop and the body's dot becomes a dynamic_slice of it at the same
// index (and the same reshape). Only steps of at most 16 rows (the lhs's
// free elements; more rows already reuse w within the step's own GEMM) and
// static shapes of at most 256 MiB of result; quantized operands are left
// alone.
Status HoistLoopInvariantProjections(ir::Module* module);

}  // namespace kiln::compiler
