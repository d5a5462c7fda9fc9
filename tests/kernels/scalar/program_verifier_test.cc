// Tests of the scalar program verifier (kernels/scalar/program_verifier.cc):
// malformed programs are refused, and the op table's classes, same-type and
// predicate facts are what it enforces.
#include <gtest/gtest.h>

#include "tests/kernels/scalar/scalar_test_util.h"

namespace kiln::ref {
namespace {

using namespace scalar_test;

TEST(ScalarProgram, VerifyRejectsMalformedPrograms) {
  auto base = [] {
    ScalarProgram p;
    p.param_types = {ET::kF32, ET::kF32};
    p.instrs.push_back(Instr(ScalarOp::kAdd, ET::kF32, {0, 1}));
    p.results = {2};
    return p;
  };
  EXPECT_TRUE(VerifyScalarProgram(base()).ok());
  ScalarProgram p = base();
  p.instrs[0].operands[1] = 2;  // uses itself
  EXPECT_FALSE(VerifyScalarProgram(p).ok());
  p = base();
  p.instrs[0].num_operands = 1;
  EXPECT_FALSE(VerifyScalarProgram(p).ok());
  p = base();
  p.instrs[0].op = static_cast<ScalarOp>(999);
  EXPECT_FALSE(VerifyScalarProgram(p).ok());
  p = base();
  p.results = {3};
  EXPECT_FALSE(VerifyScalarProgram(p).ok());
  p = base();
  p.param_types[1] = ET::kInvalid;
  EXPECT_FALSE(VerifyScalarProgram(p).ok());
  p = base();
  p.instrs[0].type = ET::kF16;  // operand/result mismatch
  EXPECT_FALSE(VerifyScalarProgram(p).ok());
  p = base();
  p.instrs.push_back(Instr(ScalarOp::kCompare, ET::kF32, {0, 1}));  // result must be i1
  EXPECT_FALSE(VerifyScalarProgram(p).ok());
  p = base();
  p.instrs.push_back(Instr(ScalarOp::kShiftLeft, ET::kF32, {0, 1}));  // not on floats
  EXPECT_FALSE(VerifyScalarProgram(p).ok());
  p = base();
  p.instrs.push_back(Instr(ScalarOp::kCompare, ET::kI1, {0, 1}, 9));  // bad direction
  EXPECT_FALSE(VerifyScalarProgram(p).ok());
}

// The classes column is the spec's, narrower than what the evaluator could
// compute: subtract has no i1 form, sign no unsigned one.
TEST(ScalarProgram, VerifyKeepsToTheSpecsTypeClasses) {
  EXPECT_TRUE(VerifyScalarProgram(OneInstr(ScalarOp::kSubtract, ET::kSI8, {ET::kSI8, ET::kSI8})).ok());
  EXPECT_FALSE(VerifyScalarProgram(OneInstr(ScalarOp::kSubtract, ET::kI1, {ET::kI1, ET::kI1})).ok());
  EXPECT_TRUE(VerifyScalarProgram(OneInstr(ScalarOp::kAdd, ET::kI1, {ET::kI1, ET::kI1})).ok());
  EXPECT_TRUE(VerifyScalarProgram(OneInstr(ScalarOp::kSign, ET::kSI32, {ET::kSI32})).ok());
  EXPECT_FALSE(VerifyScalarProgram(OneInstr(ScalarOp::kSign, ET::kUI32, {ET::kUI32})).ok());
  EXPECT_FALSE(VerifyScalarProgram(OneInstr(ScalarOp::kErf, ET::kSI32, {ET::kSI32})).ok());
  EXPECT_FALSE(VerifyScalarProgram(OneInstr(ScalarOp::kClamp, ET::kC64, {ET::kC64, ET::kC64, ET::kC64})).ok());
  EXPECT_TRUE(VerifyScalarProgram(OneInstr(ScalarOp::kClamp, ET::kI1, {ET::kI1, ET::kI1, ET::kI1})).ok());
}

// kSameType covers unary ops too: ceil f32 -> f16 is two ops (ceil, convert).
TEST(ScalarProgram, VerifySameTypeAndPredicateFacts) {
  EXPECT_TRUE(VerifyScalarProgram(OneInstr(ScalarOp::kCeil, ET::kF32, {ET::kF32})).ok());
  EXPECT_FALSE(VerifyScalarProgram(OneInstr(ScalarOp::kCeil, ET::kF16, {ET::kF32})).ok());
  EXPECT_FALSE(VerifyScalarProgram(OneInstr(ScalarOp::kPopcnt, ET::kSI8, {ET::kSI32})).ok());
  EXPECT_FALSE(VerifyScalarProgram(OneInstr(ScalarOp::kShiftLeft, ET::kSI32, {ET::kSI32, ET::kSI8})).ok());
  EXPECT_FALSE(VerifyScalarProgram(OneInstr(ScalarOp::kClamp, ET::kF32, {ET::kF64, ET::kF32, ET::kF32})).ok());
  // Not same-type: convert, abs of complex, compare.
  EXPECT_TRUE(VerifyScalarProgram(OneInstr(ScalarOp::kConvert, ET::kF16, {ET::kSI32})).ok());
  EXPECT_TRUE(VerifyScalarProgram(OneInstr(ScalarOp::kAbs, ET::kF32, {ET::kC64})).ok());
  // Predicates: i1 results only.
  EXPECT_TRUE(VerifyScalarProgram(OneInstr(ScalarOp::kIsInf, ET::kI1, {ET::kF32})).ok());
  EXPECT_FALSE(VerifyScalarProgram(OneInstr(ScalarOp::kIsInf, ET::kF32, {ET::kF32})).ok());
  EXPECT_FALSE(VerifyScalarProgram(OneInstr(ScalarOp::kIsFinite, ET::kSI8, {ET::kF32})).ok());
  EXPECT_FALSE(VerifyScalarProgram(OneInstr(ScalarOp::kCompare, ET::kSI8, {ET::kF32, ET::kF32})).ok());
}

TEST(ScalarProgram, VerifySelectChecksItsBranchesNotThePredicate) {
  EXPECT_TRUE(VerifyScalarProgram(OneInstr(ScalarOp::kSelect, ET::kC64, {ET::kI1, ET::kC64, ET::kC64})).ok());
  EXPECT_FALSE(VerifyScalarProgram(OneInstr(ScalarOp::kSelect, ET::kC64, {ET::kSI8, ET::kC64, ET::kC64})).ok());
  EXPECT_FALSE(VerifyScalarProgram(OneInstr(ScalarOp::kSelect, ET::kC64, {ET::kI1, ET::kC64, ET::kC128})).ok());
}

}  // namespace
}  // namespace kiln::ref
