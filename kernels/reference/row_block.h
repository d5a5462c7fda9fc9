// kiln.row_block (docs/kernels.md, "Row blocks"; the attribute parsing lives
// in kernels/common/row_block.cc, the compiler reads it too): one dispatch that runs a
// short list of sub-dispatches ("units") whose intermediate results are
// small per-row tensors, so that a fast kernel can take a block of rows
// through all of them while the block is in cache (softmax, log-softmax,
// layer and RMS norms: the row reductions and the broadcasting tail).
//
// Attributes: "units" = {K}; for unit k (0-based), attributes named "k." +
// the unit's own attribute names (e.g. "0.body", "0.dimensions", "2.input")
// and three of the row block's own:
//  - "k.kernel" (str): stablehlo.reduce, kiln.elementwise,
//    stablehlo.broadcast_in_dim or stablehlo.reshape;
//  - "k.inputs" (ints): the unit's inputs as value indices, the dispatch's
//    inputs being values 0..I-1 and unit j's result value I + j (j < k);
//  - "k.dims" (ints): the unit's result dims.
// The last unit's result is the dispatch's one output. Each unit computes
// exactly what the same kernel would as a dispatch of its own, so a row
// block gives the bits of the unfused dispatches.
#pragma once
#include <string>
#include <vector>

#include "kernels/common/kernel.h"

namespace kiln::ref {

struct RowBlockUnit {
  KernelParams params;          // the unit's own kernel and attributes
  std::vector<int64_t> inputs;  // value indices
  std::vector<int64_t> dims;    // result dims
};

// Most units a row block may hold; a module asking for more is refused.
constexpr int64_t kMaxRowBlockUnits = 256;

// Splits a kiln.row_block's attributes into its units and checks what does
// not depend on the tensors: the unit count, the kernel names, input
// indices that name only dispatch inputs or earlier units, non-negative
// dims whose element count cannot overflow.
Status ParseRowBlock(const KernelParams& params, size_t num_inputs, std::vector<RowBlockUnit>* units);

// The element type of unit k's result given its inputs' types: a reduce's
// init value (its last input), an elementwise program's result, a
// broadcast's or reshape's operand. kInvalid if it cannot be told.
ElementType RowBlockUnitType(const RowBlockUnit& unit, const std::vector<ElementType>& input_types);

}  // namespace kiln::ref
