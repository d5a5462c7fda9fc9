// An IR -> IR rewrite that compile.cc runs when fusion is on: a compare of
// two si64 tensors whose values provably fit in si32 compares their si32
// forms instead. What is followed: iotas along an axis of at most 2^31
// elements, constants, si32 and narrower integers converted to si64,
// broadcasts and reshapes, and add, subtract, minimum, maximum and negate,
// each value's range bounded from its operands' and required to lie in
// si32 (so the si32 arithmetic takes the same values). PyTorch's exports
// build masks from si64 indices (a causal mask: iota >= iota; a band:
// iota - iota <= k); compared as si32 the fused program runs in 32-bit
// lanes beside its f32 operands rather than widening them all to 64 bits
// (and the Vulkan target needs no 64-bit integers for it). The same
// results: the order of values within si32 is the same in si32 and si64.
// A convert of such an si64 value to a float type or to si32 (positions as
// floats) converts its si32 form likewise: the same values.
#pragma once
#include "compiler/ir.h"

namespace kiln::compiler {

// Narrows each such compare's operands (clones of the index computations,
// in si32, placed before the compare); the si64 originals left unread are
// removed.
void NarrowIndexCompares(ir::Module* module);

}  // namespace kiln::compiler
