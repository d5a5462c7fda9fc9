// stablehlo.reduce of a float operand and an index operand whose body only
// compares and selects: argmax and argmin as JAX, PyTorch's exporters and
// hand-written programs spell them (first or last index on ties, NaN
// first or not). Implemented in reduction_select.cc; reduction.cc hands
// such reduces to it before the lane-by-lane fold of elementwise_lanes32.h.
//
// Such a body's results are always two of its four params, and which two
// depends only on how the accumulator (acc_v, acc_i) relates to the element
// (x_v, x_i): the order of the two values (six classes, NaN included) and
// of the two indices (three). AnalyzeSelectFold derives that table from
// the body by walking it once per case, with no arithmetic evaluated. The
// kernel then folds each row from its initial values in the reference's
// order, acc = body(acc, x), but tests a vector of elements at a time for
// whether any of them would change the accumulator and skips those that
// would not: the reference's results bit for bit, in about one vector pass
// over the row.
#pragma once
#include <cstdint>

#include "kernels/common/kernel.h"
#include "kernels/common/scalar_program.h"

namespace kiln::cpu {

// How the accumulator's value relates to the element's.
enum SelectValueClass : uint8_t {
  kAccLess = 0,    // acc_v < x_v
  kAccEqual,       // acc_v == x_v (also -0 against +0)
  kAccGreater,     // acc_v > x_v
  kAccNaN,         // acc_v NaN, x_v not
  kElementNaN,     // x_v NaN, acc_v not
  kBothNaN,
  kNumValueClasses
};
// How the accumulator's index relates to the element's (in the body's
// integer comparison: signed or unsigned).
enum SelectIndexRelation : uint8_t { kIndexLess = 0, kIndexEqual, kIndexGreater, kNumIndexRelations };

struct SelectFoldTable {
  // Which operand of the reduce holds the values (the other the indices).
  int value_operand = 0;
  bool unsigned_index = false;
  // Per case, bit 0: the result value is the element's (else the
  // accumulator's); bit 1: the result index is the element's.
  uint8_t pick[kNumValueClasses][kNumIndexRelations] = {};
};

// True, with `table` filled, when `body` (2 x 2 params: the accumulators,
// then the elements; 2 results) has an f32 value param and a 32- or 64-bit
// integer index param (PyTorch's exports index in i64) and only compares
// (float, or one integer signedness), combines predicates (and, or, xor,
// not, i1 constants) and selects.
bool AnalyzeSelectFold(const ScalarProgram& body, SelectFoldTable* table);

// Runs a reduce whose body AnalyzeSelectFold takes, over reduced axes that
// are the operand's innermost ones (each output's elements one contiguous
// run), with no fused producer. False, with nothing written, for a call it
// does not take.
bool RunSelectFold(const KernelCall& call);

}  // namespace kiln::cpu
