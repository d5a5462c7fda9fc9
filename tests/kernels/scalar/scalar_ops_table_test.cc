// Tests of the scalar-op table (kernels/common/scalar_ops.def) and what is
// derived from it (kernels/common/scalar_program.cc): codes dense up to
// kMaxScalarOpCode, the queries, the facts' consistency, and the classes
// column against the program verifier and the reference evaluator (which is
// why these tests live beside kernels/scalar's), and AsStandardReduction.
#include <gtest/gtest.h>

#include <iterator>
#include <set>
#include <string>

#include "tests/kernels/scalar/scalar_test_util.h"

namespace kiln::ref {
namespace {

using namespace scalar_test;

// The rows as this test reads them, independently of scalar_program.cc.
struct Row {
  ScalarOp op;
  int code;
  std::string_view name;
  int arity;
  std::string_view classes;
  unsigned facts;
};
const Row kRows[] = {
#define KILN_SCALAR_OP(name, code, op_name, arity, classes, facts) \
  {ScalarOp::name, code, op_name, arity, classes, static_cast<unsigned>(facts)},
#include "kernels/common/scalar_ops.def"
#undef KILN_SCALAR_OP
};

unsigned ClassMask(std::string_view letters) {
  unsigned m = 0;
  for (char c : letters) {
    if (c == 'b') m |= kBoolClass;
    if (c == 's') m |= kSignedClass;
    if (c == 'u') m |= kUnsignedClass;
    if (c == 'f') m |= kFloatClass;
    if (c == 'c') m |= kComplexClass;
  }
  return m;
}

// Appending a row without a code one past the last (or reusing a code) fails
// here; kMaxScalarOpCode and the lookup table follow the rows by themselves.
TEST(ScalarOpTable, CodesAreDenseUpToTheDerivedMaximum) {
  EXPECT_EQ(static_cast<int>(std::size(kRows)), kMaxScalarOpCode);
  std::set<int> codes;
  for (const Row& r : kRows) {
    EXPECT_EQ(static_cast<int>(r.op), r.code) << r.name;
    codes.insert(r.code);
  }
  EXPECT_EQ(codes.size(), std::size(kRows));
  EXPECT_EQ(*codes.begin(), 1);
  EXPECT_EQ(*codes.rbegin(), kMaxScalarOpCode);
  ScalarOp op;
  for (int c = 1; c <= kMaxScalarOpCode; ++c) EXPECT_TRUE(ScalarOpFromCode(c, &op)) << c;
  EXPECT_FALSE(ScalarOpFromCode(0, &op));
  EXPECT_FALSE(ScalarOpFromCode(kMaxScalarOpCode + 1, &op));
}

TEST(ScalarOpTable, QueriesReturnEachRow) {
  std::set<std::string_view> names;
  for (const Row& r : kRows) {
    EXPECT_TRUE(names.insert(r.name).second) << "duplicate name " << r.name;
    EXPECT_EQ(ScalarOpName(r.op), r.name);
    EXPECT_EQ(ScalarOpArity(r.op), r.arity) << r.name;
    EXPECT_EQ(ScalarOpFromName(r.name), r.op) << r.name;
    EXPECT_EQ(ScalarOpClasses(r.op), ClassMask(r.classes)) << r.name;
    for (ScalarOpFact f : {kSameType, kQuantizedOk, kVmInteger, kPredicate})
      EXPECT_EQ(HasScalarOpFact(r.op, f), (r.facts & f) != 0) << r.name << " fact " << f;
  }
  EXPECT_EQ(ScalarOpFromName("stablehlo.dot_general"), ScalarOp::kInvalid);
  EXPECT_EQ(ScalarOpArity(ScalarOp::kInvalid), -1);
  EXPECT_EQ(ScalarOpClasses(ScalarOp::kInvalid), 0u);
  EXPECT_FALSE(HasScalarOpFact(ScalarOp::kInvalid, kSameType));
  EXPECT_FALSE(HasScalarOpFact(static_cast<ScalarOp>(kMaxScalarOpCode + 1), kVmInteger));
}

TEST(ScalarOpTable, FactsAreConsistent) {
  for (const Row& r : kRows) {
    SCOPED_TRACE(std::string(r.name));
    EXPECT_GE(r.arity, 0);
    EXPECT_LE(r.arity, 3);
    EXPECT_EQ(r.classes.find_first_not_of("bsufc"), std::string_view::npos);
    EXPECT_NE(ClassMask(r.classes), 0u);
    if (r.facts & kSameType) {
      EXPECT_GE(r.arity, 1);
      EXPECT_FALSE(r.facts & kPredicate);  // an i1 result would force i1 operands
    }
    // The VM's scalar.op holds integers and i1 only.
    if (r.facts & kVmInteger) {
      EXPECT_NE(ClassMask(r.classes) & (kBoolClass | kIntClass), 0u);
    }
    EXPECT_TRUE(r.name.starts_with("stablehlo.") || r.name.starts_with("chlo."));
  }
}

// Sample types: every class, narrow and wide widths.
const ET kSampleTypes[] = {ET::kI1,  ET::kSI4, ET::kSI8,      ET::kSI32, ET::kSI64, ET::kUI8, ET::kUI32,
                           ET::kUI64, ET::kF16, ET::kBF16,    ET::kF32,  ET::kF64,  ET::kF8E4M3FN,
                           ET::kF8E5M2, ET::kC64, ET::kC128};

// The result type of `op` computing on `t` by the op's own rule, or kInvalid
// where no instruction of that shape exists (complex of a non-f32/f64 part).
ET ResultType(const Row& r, ET t) {
  if (r.facts & kPredicate) return ET::kI1;
  switch (r.op) {
    case ScalarOp::kAbs:
    case ScalarOp::kReal:
    case ScalarOp::kImag: return ComplexPartType(t);
    case ScalarOp::kComplex:
      return t == ET::kF32 ? ET::kC64 : t == ET::kF64 ? ET::kC128 : ET::kInvalid;
    default: return t;
  }
}

bool IsValueOf(ET t, const Scalar& s) {
  if (IsInteger(t) || IsBool(t)) return WrapInteger(t, s.i) == s.i;
  if (IsFloat(t)) return SameValue(RoundToFloatType(t, s.re), s.re);
  const ET part = ComplexPartType(t);
  return SameValue(RoundToFloatType(part, s.re), s.re) && SameValue(RoundToFloatType(part, s.im), s.im);
}

// For every op and sample type: the program verifier accepts the op on the
// type exactly when the classes column has the type's class, and then the
// evaluator produces a value of the result type.
TEST(ScalarOpTable, ClassesAreWhatTheVerifierAndEvaluatorAccept) {
  int accepted = 0, refused = 0;
  for (const Row& r : kRows) {
    if (r.arity == 0) continue;  // kConstant: no operand
    for (ET t : kSampleTypes) {
      const ET rt = ResultType(r, t);
      if (rt == ET::kInvalid) continue;
      std::vector<ET> operand_types(r.arity, t);
      if (r.op == ScalarOp::kSelect) operand_types[0] = ET::kI1;
      const int64_t a0 = r.op == ScalarOp::kReducePrecision ? 5 : static_cast<int64_t>(ComparisonDirection::kLT);
      const int64_t a1 = r.op == ScalarOp::kReducePrecision ? 10 : 0;
      ScalarProgram p = OneInstr(r.op, rt, operand_types, a0, a1);
      const bool in_class = (TypeClassOf(t) & ScalarOpClasses(r.op)) != 0;
      Status s = VerifyScalarProgram(p);
      EXPECT_EQ(s.ok(), in_class) << r.name << " on " << Name(t) << ": " << s.message();
      if (!s.ok()) {
        ++refused;
        continue;
      }
      ++accepted;
      Scalar params[3];
      for (int k = 0; k < r.arity; ++k) params[k] = ConvertScalar(ET::kF64, operand_types[k], F(1.5));
      std::vector<Scalar> scratch(p.num_values());
      Scalar result;
      RunScalarProgram(p, params, scratch.data(), &result);
      EXPECT_TRUE(IsValueOf(rt, result)) << r.name << " on " << Name(t);
    }
  }
  // Both outcomes are exercised (the loop cannot pass vacuously).
  EXPECT_GT(accepted, 300);
  EXPECT_GT(refused, 300);
}

// ----- AsStandardReduction --------------------------------------------------

TEST(ScalarProgramReduction, RecognisesPlainReducers) {
  for (ScalarOp op : {ScalarOp::kAdd, ScalarOp::kMultiply, ScalarOp::kMaximum, ScalarOp::kMinimum}) {
    EXPECT_EQ(OneInstr(op, ET::kF32, {ET::kF32, ET::kF32}).AsStandardReduction(), op);
    ScalarProgram swapped = OneInstr(op, ET::kSI32, {ET::kSI32, ET::kSI32});
    std::swap(swapped.instrs[0].operands[0], swapped.instrs[0].operands[1]);
    EXPECT_EQ(swapped.AsStandardReduction(), op);
  }
  EXPECT_EQ(OneInstr(ScalarOp::kAnd, ET::kI1, {ET::kI1, ET::kI1}).AsStandardReduction(), ScalarOp::kAnd);
  EXPECT_EQ(OneInstr(ScalarOp::kOr, ET::kUI8, {ET::kUI8, ET::kUI8}).AsStandardReduction(), ScalarOp::kOr);
}

TEST(ScalarProgramReduction, RefusesEverythingElse) {
  // Not a standard combiner.
  EXPECT_EQ(OneInstr(ScalarOp::kSubtract, ET::kF32, {ET::kF32, ET::kF32}).AsStandardReduction(), ScalarOp::kInvalid);
  EXPECT_EQ(OneInstr(ScalarOp::kXor, ET::kI1, {ET::kI1, ET::kI1}).AsStandardReduction(), ScalarOp::kInvalid);
  // Reads one parameter twice.
  ScalarProgram p = OneInstr(ScalarOp::kAdd, ET::kF32, {ET::kF32, ET::kF32});
  p.instrs[0].operands[1] = 0;
  EXPECT_EQ(p.AsStandardReduction(), ScalarOp::kInvalid);
  // Returns a parameter.
  p = OneInstr(ScalarOp::kAdd, ET::kF32, {ET::kF32, ET::kF32});
  p.results = {0};
  EXPECT_EQ(p.AsStandardReduction(), ScalarOp::kInvalid);
  // Two results, or a second instruction.
  p = OneInstr(ScalarOp::kAdd, ET::kF32, {ET::kF32, ET::kF32});
  p.results = {2, 2};
  EXPECT_EQ(p.AsStandardReduction(), ScalarOp::kInvalid);
  p = OneInstr(ScalarOp::kAdd, ET::kF32, {ET::kF32, ET::kF32});
  p.instrs.push_back(Instr(ScalarOp::kNegate, ET::kF32, {2}));
  EXPECT_EQ(p.AsStandardReduction(), ScalarOp::kInvalid);
  // Types that differ.
  EXPECT_EQ(OneInstr(ScalarOp::kAdd, ET::kF32, {ET::kF32, ET::kF16}).AsStandardReduction(), ScalarOp::kInvalid);
  EXPECT_EQ(OneInstr(ScalarOp::kAdd, ET::kF64, {ET::kF32, ET::kF32}).AsStandardReduction(), ScalarOp::kInvalid);
  // Three parameters.
  EXPECT_EQ(OneInstr(ScalarOp::kClamp, ET::kF32, {ET::kF32, ET::kF32, ET::kF32}).AsStandardReduction(),
            ScalarOp::kInvalid);
}

}  // namespace
}  // namespace kiln::ref
