// The scalar path: which values of a function live in i64 registers.
//
// Loop counters, indices and flags in StableHLO are rank-0 integer or boolean
// tensors. Computing each step with a kernel dispatch (and reading a loop's
// predicate back from the device) costs microseconds per op; holding these
// values in the VM's i64 registers costs nanoseconds. The plan marks a value
// "scalar" when it is a rank-0 integer/boolean tensor that is
//   - a constant,
//   - an argument of the function (loaded once on entry when some scalar op
//     reads it),
//   - a get_dimension_size (the VM's dim instruction writes the register),
//   - the result of an integer elementwise op (add, compare, select, convert,
//     ...) whose operands are all scalar, or
//   - a `while` loop-carried value whose initial value and every value the
//     body yields for it are scalar (found by a fixpoint: a carried value is
//     assumed scalar and demoted when its body yields a non-scalar).
// Registers hold Scalar::i's normalization (sign- or zero-extended to 64
// bits), so every op has exactly the reference's semantics. Where a scalar
// value is needed as a tensor (a dispatch operand, a result), the lowering
// writes it into a rank-0 tensor at that point.
#pragma once
#include <set>

#include "compiler/ir.h"
#include "kernels/common/scalar_program.h"
#include "kernels/common/status.h"
#include "vm/bytecode.h"

namespace kiln::compiler {

struct ScalarPlan {
  std::set<const ir::Value*> scalar;         // lives in an i64 register
  std::set<const ir::Value*> entry_loads;    // function arguments read into i64 registers on entry
  bool IsScalar(const ir::Value* v) const { return scalar.count(v) != 0; }
};

// A rank-0, non-quantized integer or boolean tensor type.
bool IsScalarType(const ir::Type& t);
// Whether `op` computes a scalar from scalar operands (given the plan so far).
bool IsScalarOp(const ir::Operation& op, const ScalarPlan& plan);

ScalarPlan PlanScalars(const ir::Function& f);

// Emits `op` (an op for which IsScalarOp holds) computing into i64 register
// `dst` from the operand registers `regs`: a fast 64-bit instruction where
// its semantics equal the reference's for these types, scalar.op otherwise.
Status EmitScalarOp(const ir::Operation& op, uint32_t dst, const std::vector<uint32_t>& regs,
                    vm::BytecodeWriter* out);

}  // namespace kiln::compiler
