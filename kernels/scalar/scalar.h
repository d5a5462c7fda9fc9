// Reference scalar semantics (library kiln_scalar): reading and writing
// elements of every element type, converting between types (codec.cc),
// evaluating scalar-expression programs (eval.cc, special_functions.cc) and
// verifying them (program_verifier.cc). Plain, type-generic and obviously
// correct: the oracle every fast kernel and every shader is tested against.
// The reference kernels, the VM's scalar.op, the compiler and the tools all
// use these semantics, so they depend on kernels/common only. The namespace
// stays ref:: (these are the reference semantics).
#pragma once
#include <bit>
#include <cstdint>
#include <limits>
#include <span>

#include "kernels/common/element_type.h"
#include "kernels/common/scalar_program.h"
#include "kernels/common/status.h"

namespace kiln::ref {

// IEEE totalOrder as a monotonic signed integer (the TOTALORDER compare).
inline int64_t TotalOrderKey(double v) {
  const int64_t b = std::bit_cast<int64_t>(v);
  return b < 0 ? b ^ std::numeric_limits<int64_t>::max() : b;
}

// a `d` b on values of one native type (the last step of every compare).
template <typename T>
bool ApplyDirection(ComparisonDirection d, const T& a, const T& b) {
  switch (d) {
    case ComparisonDirection::kEQ: return a == b;
    case ComparisonDirection::kNE: return a != b;
    case ComparisonDirection::kGE: return a >= b;
    case ComparisonDirection::kGT: return a > b;
    case ComparisonDirection::kLE: return a <= b;
    case ComparisonDirection::kLT: return a < b;
  }
  return false;
}


// Reads one element stored at `p` in `type`'s storage encoding.
Scalar LoadScalar(ElementType type, const uint8_t* p);
// Writes `s` (already a valid value of `type`, see Scalar) at `p`.
void StoreScalar(ElementType type, const Scalar& s, uint8_t* p);

// Rounds a double to the nearest value of float type `type` (round to
// nearest, ties to even), applying the type's rules for overflow, infinities,
// NaN, negative zero and subnormals (e.g. f8E4M3FN has no infinity: overflow
// gives NaN; *FNUZ types have no negative zero; f8E8M0FNU has no sign).
double RoundToFloatType(ElementType type, double v);

// The spec's `convert` from one element type to another (every pair,
// including bool, integers, floats of every width and complex).
Scalar ConvertScalar(ElementType from, ElementType to, const Scalar& s);

// Wraps an integer to `type`'s bit width (sign- or zero-extending).
int64_t WrapInteger(ElementType type, int64_t v);

// Evaluates one instruction; `operand_types` and `operands` have
// instr.num_operands entries.
Scalar EvalScalarInstr(const ScalarInstr& instr, const ElementType* operand_types,
                       const Scalar* operands);

// Runs a whole program. `params` has program.param_types.size() entries,
// `scratch` at least program.num_values(); results are written to `results`
// (program.results.size() entries).
void RunScalarProgram(const ScalarProgram& program, const Scalar* params, Scalar* scratch,
                      Scalar* results);

// Checks that a program is well formed (operand indices defined before use,
// types valid, and arity, operand classes, same-type and i1 predicates as the
// op table says). Module loading calls this.
Status VerifyScalarProgram(const ScalarProgram& program);

}  // namespace kiln::ref
