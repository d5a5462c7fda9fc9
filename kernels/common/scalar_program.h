// Scalar-expression programs (DESIGN.md): the typed SSA form in which region
// bodies (reduce, sort, scatter, map, select_and_scatter, reduce_window) and
// fused elementwise chains travel inside executables. Kernels run them per
// element; the Vulkan code generator translates the same program to GLSL.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include "kernels/common/element_type.h"

namespace kiln {

enum class ScalarOp : uint16_t {
  kInvalid = 0,
#define KILN_SCALAR_OP(name, code, op_name, arity, classes, facts) name = code,
#include "kernels/common/scalar_ops.def"
#undef KILN_SCALAR_OP
};
// The highest code in the table (codes are dense from 1: a test checks).
constexpr int kMaxScalarOpCode = std::max({0
#define KILN_SCALAR_OP(name, code, op_name, arity, classes, facts) , code
#include "kernels/common/scalar_ops.def"
#undef KILN_SCALAR_OP
});

// Element-type classes, one bit per ElementKind: the table's classes column
// ("bsufc") as a mask.
enum TypeClass : unsigned {
  kBoolClass = 1,
  kSignedClass = 2,
  kUnsignedClass = 4,
  kFloatClass = 8,
  kComplexClass = 16,
  kIntClass = kSignedClass | kUnsignedClass,
  kAnyClass = kBoolClass | kIntClass | kFloatClass | kComplexClass,
};
unsigned TypeClassOf(ElementType t);  // 0 for kInvalid

// The table's facts column (scalar_ops.def explains each).
enum ScalarOpFact : unsigned {
  kSameType = 1,
  kQuantizedOk = 2,
  kVmInteger = 4,
  kPredicate = 8,
};

// The spec's comparison_direction and compare_type, as stored in attr0/attr1.
enum class ComparisonDirection : int64_t { kEQ = 0, kNE, kGE, kGT, kLE, kLT };
enum class ComparisonType : int64_t { kNotype = 0, kFloat, kTotalOrder, kSigned, kUnsigned };

// One scalar value, its element type known from context.
//  - i1 and integers: `i`, sign-extended for signed types, zero-extended for
//    unsigned ones (ui64 keeps its bit pattern in `i`);
//  - floats of every width: `re`, holding a value exactly representable in
//    the type (small floats are widened exactly to double);
//  - complex: `re` and `im`.
struct Scalar {
  int64_t i = 0;
  double re = 0;
  double im = 0;
};

struct ScalarInstr {
  ScalarOp op = ScalarOp::kInvalid;
  ElementType type = ElementType::kInvalid;  // result type
  uint8_t num_operands = 0;
  uint16_t operands[3] = {0, 0, 0};          // value indices (see ScalarProgram)
  int64_t attr0 = 0;
  int64_t attr1 = 0;
  Scalar constant;                           // kConstant only
};

// Values are numbered: params 0..P-1, then instruction k defines value P+k.
// An instruction reads only values defined before it.
struct ScalarProgram {
  std::vector<ElementType> param_types;
  std::vector<ScalarInstr> instrs;
  std::vector<uint16_t> results;  // value indices
  size_t num_values() const { return param_types.size() + instrs.size(); }
  ElementType ValueType(size_t v) const {
    return v < param_types.size() ? param_types[v] : instrs[v - param_types.size()].type;
  }
  // The op of a plain reducer body, for fast paths that combine natively
  // (SIMD reductions, a transport's all-reduce): two parameters of one type,
  // one instruction of that type applying kAdd, kMultiply, kMaximum,
  // kMinimum, kAnd or kOr to them (either order), and its value the one
  // result. kInvalid for any other program.
  ScalarOp AsStandardReduction() const;
};

// `a > b` on values 0 and 1 of type t, as chlo.top_k and sorts in
// descending order compare: the total order for floats (NaN above +inf),
// signed or unsigned for integers.
inline ScalarInstr GreaterThanInstr(ElementType t) {
  ScalarInstr gt;
  gt.op = ScalarOp::kCompare;
  gt.type = ElementType::kI1;
  gt.num_operands = 2;
  gt.operands[0] = 0;
  gt.operands[1] = 1;
  gt.attr0 = static_cast<int64_t>(ComparisonDirection::kGT);
  gt.attr1 = static_cast<int64_t>(IsFloat(t)                           ? ComparisonType::kTotalOrder
                                  : KindOf(t) == ElementKind::kSigned ? ComparisonType::kSigned
                                                                      : ComparisonType::kUnsigned);
  return gt;
}

// Operand count of an op (from the table), -1 if unknown.
int ScalarOpArity(ScalarOp op);
std::string_view ScalarOpName(ScalarOp op);  // "stablehlo.add"
// The operand classes (TypeClass mask) an op accepts; 0 if unknown.
unsigned ScalarOpClasses(ScalarOp op);
// Whether the table gives `op` the fact `f` (false for an unknown op).
bool HasScalarOpFact(ScalarOp op, ScalarOpFact f);
// The scalar op that evaluates an elementwise source op, or kInvalid.
ScalarOp ScalarOpFromName(std::string_view op_name);
bool ScalarOpFromCode(uint32_t code, ScalarOp* out);

}  // namespace kiln
