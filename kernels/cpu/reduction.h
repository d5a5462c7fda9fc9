// The fast row reducer of reduction.cc as a building block: stablehlo.reduce
// runs it over task-sized row ranges, kiln.row_block (reduction_row_block.cc)
// over the rows of one cache-sized block, between its other units.
#pragma once
#include <cstddef>

#include "kernels/common/element_type.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/reduce_body.h"

namespace kiln::cpu {

// The operand viewed as [outer, r, inner], reduced over r.
struct ReduceProblem {
  const void* in = nullptr;  // the operand, or null with a producer
  const ElementwiseProblem* producer = nullptr;  // computes the operand
  void* out = nullptr;
  const void* init = nullptr;
  size_t outer = 0, r = 0, inner = 0;
  size_t row_begin = 0, row_end = 0;  // the outer rows to compute
  ReduceOp op = ReduceOp::kAdd;
};

// A reduce whose reduced axes form two blocks with one kept block between
// them: the operand as [k0, r0, k1, r1, k2] (reduction.cc,
// ReduceSplitRows); results [begin, end) of the k0 * k1 rows of k2.
struct SplitReduceProblem {
  const void* in = nullptr;
  void* out = nullptr;
  const void* init = nullptr;
  size_t k0 = 1, r0 = 1, k1 = 1, r1 = 1, k2 = 1;
  size_t begin = 0, end = 0;
  ReduceOp op = ReduceOp::kAdd;
};

// Scratch elements a producer fills per step: a multiple of 16 and of kBlock.
constexpr size_t kChunk = 16 * 1024;

// Computes results [row_begin, row_end) * inner of `p` (type f32, f64, f16 or
// bf16; a 16-bit type without a producer) on
// the calling thread, in the order reduction.cc states.
void RunReduceRows(const ReduceProblem& p, ElementType type);

}  // namespace kiln::cpu
