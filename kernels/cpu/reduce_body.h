// The reduction bodies the fast reduce and reduce_window kernels handle:
// one add, maximum or minimum of the two parameters (either order) of one
// float type. Their SIMD fold, Combine, is in float_ops-inl.h.
#pragma once
#include "kernels/common/scalar_program.h"

namespace kiln::cpu {

enum class ReduceOp { kAdd, kMax, kMin };

// The op of a body that is exactly `op(p0, p1)` or `op(p1, p0)` on two
// params of type f32 or f64 (stored in *type); false otherwise.
bool ReduceBodyOp(const ScalarProgram& prog, ReduceOp* op, ElementType* type);

}  // namespace kiln::cpu
