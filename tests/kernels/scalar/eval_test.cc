// Tests of the reference evaluator (kernels/scalar/eval.cc and
// special_functions.cc): every op's semantics, the spec-open choices written
// in eval.cc, and running whole programs. Expected values come from the
// StableHLO conformance files, hand-computed constants or closed forms;
// never from the functions under test.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <vector>

#include "tests/kernels/scalar/scalar_test_util.h"

namespace kiln::ref {
namespace {

using namespace scalar_test;

Scalar Eval(ScalarOp op, ET result, std::initializer_list<std::pair<ET, Scalar>> args, int64_t a0 = 0,
            int64_t a1 = 0) {
  ScalarInstr in;
  in.op = op;
  in.type = result;
  in.num_operands = static_cast<uint8_t>(args.size());
  in.attr0 = a0;
  in.attr1 = a1;
  ET types[3];
  Scalar vals[3];
  int k = 0;
  for (const auto& [t, v] : args) {
    types[k] = t;
    vals[k] = v;
    ++k;
  }
  return EvalScalarInstr(in, types, vals);
}
int64_t EvalI(ScalarOp op, ET t, int64_t a, int64_t b) { return Eval(op, t, {{t, I(a)}, {t, I(b)}}).i; }
int64_t EvalI1(ScalarOp op, ET t, int64_t a) { return Eval(op, t, {{t, I(a)}}).i; }
double EvalF(ScalarOp op, ET t, double a, double b) { return Eval(op, t, {{t, F(a)}, {t, F(b)}}).re; }
double EvalF1(ScalarOp op, ET t, double a) { return Eval(op, t, {{t, F(a)}}).re; }

TEST(ScalarEval, IntegerArithmeticWrapsAtEveryWidth) {
  EXPECT_EQ(EvalI(ScalarOp::kAdd, ET::kSI8, 127, 1), -128);
  EXPECT_EQ(EvalI(ScalarOp::kAdd, ET::kUI8, 255, 1), 0);
  EXPECT_EQ(EvalI(ScalarOp::kAdd, ET::kSI4, 7, 1), -8);
  EXPECT_EQ(EvalI(ScalarOp::kAdd, ET::kUI4, 15, 2), 1);
  EXPECT_EQ(EvalI(ScalarOp::kAdd, ET::kSI2, 1, 1), -2);
  EXPECT_EQ(EvalI(ScalarOp::kAdd, ET::kUI2, 3, 1), 0);
  EXPECT_EQ(EvalI(ScalarOp::kSubtract, ET::kUI16, 0, 1), 65535);
  EXPECT_EQ(EvalI(ScalarOp::kSubtract, ET::kSI16, -32768, 1), 32767);
  EXPECT_EQ(EvalI(ScalarOp::kMultiply, ET::kSI32, 65536, 65536), 0);
  EXPECT_EQ(EvalI(ScalarOp::kMultiply, ET::kUI32, 0xFFFFFFFFll, 0xFFFFFFFFll), 1);
  EXPECT_EQ(EvalI(ScalarOp::kAdd, ET::kSI64, std::numeric_limits<int64_t>::max(), 1),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(EvalI(ScalarOp::kAdd, ET::kUI64, -1, 1), 0);
  EXPECT_EQ(EvalI1(ScalarOp::kNegate, ET::kSI8, -128), -128);
  EXPECT_EQ(EvalI1(ScalarOp::kNegate, ET::kUI8, 1), 255);
  EXPECT_EQ(EvalI1(ScalarOp::kAbs, ET::kSI8, -128), -128);
  EXPECT_EQ(EvalI1(ScalarOp::kAbs, ET::kSI32, -5), 5);
  EXPECT_EQ(EvalI1(ScalarOp::kNot, ET::kUI8, 0), 255);
  EXPECT_EQ(EvalI1(ScalarOp::kNot, ET::kSI4, 0), -1);
  EXPECT_EQ(EvalI1(ScalarOp::kNot, ET::kI1, 1), 0);
  EXPECT_EQ(EvalI(ScalarOp::kAdd, ET::kI1, 1, 1), 1);       // bool add = or
  EXPECT_EQ(EvalI(ScalarOp::kMultiply, ET::kI1, 1, 0), 0);  // bool mul = and
  EXPECT_EQ(EvalI(ScalarOp::kXor, ET::kUI8, 0xF0, 0xFF), 0x0F);
  EXPECT_EQ(EvalI(ScalarOp::kAnd, ET::kSI8, -1, 0x55), 0x55);
  EXPECT_EQ(EvalI(ScalarOp::kOr, ET::kSI8, 0x40, 0x3F), 0x7F);
  EXPECT_EQ(EvalI(ScalarOp::kMaximum, ET::kUI64, -1, 5), -1);  // unsigned order
  EXPECT_EQ(EvalI(ScalarOp::kMinimum, ET::kSI64, -1, 5), -1);
  EXPECT_EQ(EvalI(ScalarOp::kMaximum, ET::kI1, 0, 1), 1);
}

TEST(ScalarEval, IntegerDivisionEdgeCases) {
  // divide.mlir / remainder.mlir
  EXPECT_EQ(EvalI(ScalarOp::kDivide, ET::kSI64, 17, 3), 5);
  EXPECT_EQ(EvalI(ScalarOp::kDivide, ET::kSI64, -17, 3), -5);
  EXPECT_EQ(EvalI(ScalarOp::kDivide, ET::kSI64, 17, -3), -5);
  EXPECT_EQ(EvalI(ScalarOp::kDivide, ET::kSI64, -17, -3), 5);
  EXPECT_EQ(EvalI(ScalarOp::kRemainder, ET::kSI64, 17, 3), 2);
  EXPECT_EQ(EvalI(ScalarOp::kRemainder, ET::kSI64, -17, 3), -2);
  EXPECT_EQ(EvalI(ScalarOp::kRemainder, ET::kSI64, 17, -3), 2);
  EXPECT_EQ(EvalI(ScalarOp::kRemainder, ET::kSI64, -17, -3), -2);
  EXPECT_EQ(EvalI(ScalarOp::kRemainder, ET::kUI64, 20, 7), 6);
  // by zero and overflow
  EXPECT_EQ(EvalI(ScalarOp::kDivide, ET::kSI32, 7, 0), -1);
  EXPECT_EQ(EvalI(ScalarOp::kDivide, ET::kUI8, 7, 0), 255);
  EXPECT_EQ(EvalI(ScalarOp::kDivide, ET::kUI64, 7, 0), -1);
  EXPECT_EQ(EvalI(ScalarOp::kRemainder, ET::kSI32, 7, 0), 7);
  EXPECT_EQ(EvalI(ScalarOp::kRemainder, ET::kUI8, 200, 0), 200);
  EXPECT_EQ(EvalI(ScalarOp::kDivide, ET::kSI8, -128, -1), -128);
  EXPECT_EQ(EvalI(ScalarOp::kRemainder, ET::kSI8, -128, -1), 0);
  EXPECT_EQ(EvalI(ScalarOp::kDivide, ET::kSI64, std::numeric_limits<int64_t>::min(), -1),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(EvalI(ScalarOp::kRemainder, ET::kSI64, std::numeric_limits<int64_t>::min(), -1), 0);
  EXPECT_EQ(EvalI(ScalarOp::kDivide, ET::kUI64, -1, 2), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(EvalI(ScalarOp::kDivide, ET::kSI4, -8, 3), -2);
}

TEST(ScalarEval, Shifts) {
  // shift_*.mlir
  EXPECT_EQ(EvalI(ScalarOp::kShiftLeft, ET::kSI64, -1, 1), -2);
  EXPECT_EQ(EvalI(ScalarOp::kShiftLeft, ET::kSI64, 1, 3), 8);
  EXPECT_EQ(EvalI(ScalarOp::kShiftRightArithmetic, ET::kSI64, -1, 1), -1);
  EXPECT_EQ(EvalI(ScalarOp::kShiftRightArithmetic, ET::kSI64, 8, 3), 1);
  EXPECT_EQ(EvalI(ScalarOp::kShiftRightLogical, ET::kSI64, -1, 1), std::numeric_limits<int64_t>::max());
  // amounts >= width (or negative, read unsigned)
  EXPECT_EQ(EvalI(ScalarOp::kShiftLeft, ET::kSI32, 1, 32), 0);
  EXPECT_EQ(EvalI(ScalarOp::kShiftLeft, ET::kSI64, 1, 64), 0);
  EXPECT_EQ(EvalI(ScalarOp::kShiftLeft, ET::kSI8, 1, -1), 0);
  EXPECT_EQ(EvalI(ScalarOp::kShiftRightLogical, ET::kUI8, 255, 8), 0);
  EXPECT_EQ(EvalI(ScalarOp::kShiftRightLogical, ET::kSI8, -1, 4), 15);
  EXPECT_EQ(EvalI(ScalarOp::kShiftRightArithmetic, ET::kSI8, -100, 100), -1);
  EXPECT_EQ(EvalI(ScalarOp::kShiftRightArithmetic, ET::kSI8, 100, 8), 0);
  EXPECT_EQ(EvalI(ScalarOp::kShiftRightArithmetic, ET::kUI8, 0x80, 1), 0xC0);
  EXPECT_EQ(EvalI(ScalarOp::kShiftRightArithmetic, ET::kSI64, std::numeric_limits<int64_t>::min(), 64), -1);
  EXPECT_EQ(EvalI(ScalarOp::kShiftLeft, ET::kSI8, 1, 7), -128);
  EXPECT_EQ(EvalI(ScalarOp::kShiftLeft, ET::kUI4, 3, 3), 8);
  EXPECT_EQ(EvalI(ScalarOp::kShiftLeft, ET::kSI4, 3, 2), -4);
}

TEST(ScalarEval, PopcntAndClz) {
  EXPECT_EQ(EvalI1(ScalarOp::kPopcnt, ET::kSI8, -1), 8);
  EXPECT_EQ(EvalI1(ScalarOp::kPopcnt, ET::kSI64, -1), 64);
  EXPECT_EQ(EvalI1(ScalarOp::kPopcnt, ET::kSI4, -1), 4);
  EXPECT_EQ(EvalI1(ScalarOp::kPopcnt, ET::kUI16, 0x0F0F), 8);
  EXPECT_EQ(EvalI1(ScalarOp::kCountLeadingZeros, ET::kSI8, 1), 7);
  EXPECT_EQ(EvalI1(ScalarOp::kCountLeadingZeros, ET::kSI8, 0), 8);
  EXPECT_EQ(EvalI1(ScalarOp::kCountLeadingZeros, ET::kSI8, -1), 0);
  EXPECT_EQ(EvalI1(ScalarOp::kCountLeadingZeros, ET::kUI2, 1), 1);
  EXPECT_EQ(EvalI1(ScalarOp::kCountLeadingZeros, ET::kSI64, 1), 63);
  EXPECT_EQ(EvalI1(ScalarOp::kCountLeadingZeros, ET::kUI32, 0x00FF0000), 8);
}

TEST(ScalarEval, IntegerPowerAndSignAndMulhi) {
  // power.mlir
  int64_t lhs[] = {-1, -1, -3, 1, -3, 0}, rhs[] = {1, 0, -3, -3, 3, 2}, want[] = {-1, 1, 0, 1, -27, 0};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(EvalI(ScalarOp::kPower, ET::kSI64, lhs[i], rhs[i]), want[i]) << i;
  int64_t ul[] = {0, 0, 1, 1, 5}, ur[] = {0, 1, 0, 2, 5}, uw[] = {1, 0, 1, 1, 3125};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(EvalI(ScalarOp::kPower, ET::kUI64, ul[i], ur[i]), uw[i]) << i;
  EXPECT_EQ(EvalI(ScalarOp::kPower, ET::kSI64, -1, -3), -1);
  EXPECT_EQ(EvalI(ScalarOp::kPower, ET::kSI8, 2, 7), -128);
  EXPECT_EQ(EvalI(ScalarOp::kPower, ET::kSI8, 3, 5), 243 - 256);
  EXPECT_EQ(EvalI(ScalarOp::kPower, ET::kUI8, 2, 200), 0);
  // sign.mlir
  EXPECT_EQ(EvalI1(ScalarOp::kSign, ET::kSI64, -5), -1);
  EXPECT_EQ(EvalI1(ScalarOp::kSign, ET::kSI64, 0), 0);
  EXPECT_EQ(EvalI1(ScalarOp::kSign, ET::kSI8, 100), 1);
  // chlo/mulhi.mlir
  EXPECT_EQ(EvalI(ScalarOp::kMulhi, ET::kSI8, 64, 4), 1);
  EXPECT_EQ(EvalI(ScalarOp::kMulhi, ET::kSI8, -64, 4), -1);
  EXPECT_EQ(EvalI(ScalarOp::kMulhi, ET::kSI8, -64, -4), 1);
  EXPECT_EQ(EvalI(ScalarOp::kMulhi, ET::kUI8, 240, 16), 15);
  EXPECT_EQ(EvalI(ScalarOp::kMulhi, ET::kUI8, 128, 2), 1);
  EXPECT_EQ(EvalI(ScalarOp::kMulhi, ET::kSI16, -16384, 8), -2);
  EXPECT_EQ(EvalI(ScalarOp::kMulhi, ET::kUI16, 61440, 16), 15);
  EXPECT_EQ(EvalI(ScalarOp::kMulhi, ET::kSI32, -268435456, 16), -1);
  EXPECT_EQ(EvalI(ScalarOp::kMulhi, ET::kUI64, -1, -1), -2);  // (2^64-1)^2 >> 64 = 2^64 - 2
  EXPECT_EQ(EvalI(ScalarOp::kMulhi, ET::kSI64, std::numeric_limits<int64_t>::min(), 2), -1);
}

TEST(ScalarEval, FloatArithmeticRoundsToResultType) {
  EXPECT_EQ(EvalF(ScalarOp::kAdd, ET::kF32, 1.0, 0x1p-24), 1.0);  // tie -> even
  EXPECT_EQ(EvalF(ScalarOp::kAdd, ET::kF32, 1.0, 0x1.8p-24), 1.0 + 0x1p-23);
  EXPECT_EQ(EvalF(ScalarOp::kAdd, ET::kF16, 65504.0, 16.0), kInf);
  EXPECT_TRUE(std::isnan(EvalF(ScalarOp::kMultiply, ET::kF8E4M3FN, 448.0, 2.0)));
  EXPECT_EQ(EvalF(ScalarOp::kMultiply, ET::kF4E2M1FN, 6.0, 6.0), 6.0);
  EXPECT_EQ(EvalF(ScalarOp::kDivide, ET::kF32, 1.0, 3.0), static_cast<double>(1.0f / 3.0f));
  EXPECT_EQ(EvalF(ScalarOp::kDivide, ET::kF64, 17.1, 3.0), 17.1 / 3.0);
  EXPECT_EQ(EvalF1(ScalarOp::kSqrt, ET::kF32, 2.0), static_cast<double>(std::sqrt(2.0f)));
  EXPECT_EQ(EvalF(ScalarOp::kSubtract, ET::kBF16, 1.0, 0x1p-9), 1.0);
  // remainder.mlir (exact expected value)
  EXPECT_EQ(EvalF(ScalarOp::kRemainder, ET::kF64, 17.1, 3.0), 2.1000000000000014);
  EXPECT_EQ(EvalF(ScalarOp::kRemainder, ET::kF64, -17.1, -3.0), -2.1000000000000014);
  EXPECT_SAME(EvalF(ScalarOp::kRemainder, ET::kF64, -6.0, 3.0), -0.0);
  // power.mlir
  EXPECT_EQ(EvalF(ScalarOp::kPower, ET::kF64, -2.0, 2.0), 4.0);
  EXPECT_TRUE(std::isnan(EvalF(ScalarOp::kPower, ET::kF64, -36.0, 1.1)));
  EXPECT_DOUBLE_EQ(EvalF(ScalarOp::kPower, ET::kF64, 3.0, -1.0), 0.33333333333333331);
  EXPECT_DOUBLE_EQ(EvalF(ScalarOp::kPower, ET::kF64, 10000.0, 10.0), 1e40);
  EXPECT_EQ(EvalF(ScalarOp::kPower, ET::kF32, 2.0, 0.5), static_cast<double>(static_cast<float>(std::sqrt(2.0))));
}

TEST(ScalarEval, FloatMaxMinSignRounding) {
  EXPECT_TRUE(std::isnan(EvalF(ScalarOp::kMaximum, ET::kF32, kNaN, 1.0)));
  EXPECT_TRUE(std::isnan(EvalF(ScalarOp::kMinimum, ET::kF32, 1.0, kNaN)));
  EXPECT_SAME(EvalF(ScalarOp::kMaximum, ET::kF32, -0.0, 0.0), 0.0);
  EXPECT_SAME(EvalF(ScalarOp::kMinimum, ET::kF32, 0.0, -0.0), -0.0);
  EXPECT_EQ(EvalF(ScalarOp::kMaximum, ET::kF64, -kInf, -5.0), -5.0);
  // sign.mlir
  EXPECT_TRUE(std::isnan(EvalF1(ScalarOp::kSign, ET::kF64, kNaN)));
  EXPECT_SAME(EvalF1(ScalarOp::kSign, ET::kF64, -0.0), -0.0);
  EXPECT_SAME(EvalF1(ScalarOp::kSign, ET::kF64, 0.0), 0.0);
  EXPECT_EQ(EvalF1(ScalarOp::kSign, ET::kF64, -kInf), -1.0);
  EXPECT_EQ(EvalF1(ScalarOp::kSign, ET::kF16, 0x1p-24), 1.0);
  // round_nearest_afz.mlir / round_nearest_even.mlir
  double in[] = {-2.5, -0.5, 0.4, 0.5, 0.6, 1.5, 2.5};
  double afz[] = {-3.0, -1.0, 0.0, 1.0, 1.0, 2.0, 3.0};
  double even[] = {-2.0, -0.0, 0.0, 0.0, 1.0, 2.0, 2.0};
  for (int i = 0; i < 7; ++i) {
    EXPECT_SAME(EvalF1(ScalarOp::kRoundNearestAfz, ET::kF64, in[i]), afz[i]) << in[i];
    EXPECT_SAME(EvalF1(ScalarOp::kRoundNearestEven, ET::kF64, in[i]), even[i]) << in[i];
  }
  EXPECT_EQ(EvalF1(ScalarOp::kCeil, ET::kF32, -0.5), -0.0);
  EXPECT_EQ(EvalF1(ScalarOp::kFloor, ET::kF32, -0.5), -1.0);
  // classification
  EXPECT_EQ(Eval(ScalarOp::kIsFinite, ET::kI1, {{ET::kF32, F(kInf)}}).i, 0);
  EXPECT_EQ(Eval(ScalarOp::kIsFinite, ET::kI1, {{ET::kF32, F(kNaN)}}).i, 0);
  EXPECT_EQ(Eval(ScalarOp::kIsFinite, ET::kI1, {{ET::kF32, F(1e30)}}).i, 1);
  EXPECT_EQ(Eval(ScalarOp::kIsInf, ET::kI1, {{ET::kF32, F(-kInf)}}).i, 1);
  EXPECT_EQ(Eval(ScalarOp::kIsPosInf, ET::kI1, {{ET::kF32, F(-kInf)}}).i, 0);
  EXPECT_EQ(Eval(ScalarOp::kIsNegInf, ET::kI1, {{ET::kF32, F(-kInf)}}).i, 1);
}

int64_t Cmp(ComparisonDirection d, ComparisonType ct, ET t, Scalar a, Scalar b) {
  return Eval(ScalarOp::kCompare, ET::kI1, {{t, a}, {t, b}}, static_cast<int64_t>(d), static_cast<int64_t>(ct)).i;
}

TEST(ScalarEval, CompareFloatMatchesCompareMlir) {
  auto bits = [](uint64_t b) { return std::bit_cast<double>(b); };
  double lhs[] = {bits(0xFFF0000000000001), bits(0xFFF0000000000001), -kInf, -kInf, -2.0, -2.0, -0.0, -0.0, 0.0,
                  1.0, 2.0, kInf, bits(0x7FF0000000000001), bits(0x7FF0000000000001)};
  double rhs[] = {bits(0xFFF0000000000001), bits(0x7FF0000000000001), -kInf, kInf, -2.0, -1.0, -0.0, 0.0, 0.0,
                  2.0, 2.0, kInf, bits(0x7FF0000000000001), bits(0x7FFFFFFFFFFFFFFF)};
  const char* ne = "11010100010011";
  const char* ge = "00101011101100";
  const char* le = "00111111111100";
  const char* lt = "00010100010000";
  for (int i = 0; i < 14; ++i) {
    auto c = [&](ComparisonDirection d) { return Cmp(d, ComparisonType::kFloat, ET::kF64, F(lhs[i]), F(rhs[i])); };
    EXPECT_EQ(c(ComparisonDirection::kNE), ne[i] - '0') << i;
    EXPECT_EQ(c(ComparisonDirection::kGE), ge[i] - '0') << i;
    EXPECT_EQ(c(ComparisonDirection::kLE), le[i] - '0') << i;
    EXPECT_EQ(c(ComparisonDirection::kLT), lt[i] - '0') << i;
    EXPECT_EQ(c(ComparisonDirection::kGT), 0) << i;
    EXPECT_EQ(c(ComparisonDirection::kEQ), 1 - (ne[i] - '0')) << i;
  }
}

TEST(ScalarEval, CompareTotalOrder) {
  auto bits = [](uint64_t b) { return std::bit_cast<double>(b); };
  // Strictly increasing in IEEE totalOrder.
  double order[] = {bits(0xFFFFFFFFFFFFFFFF), bits(0xFFF8000000000000), bits(0xFFF0000000000001), -kInf, -1e300,
                    -1.0, -0x1p-1074, -0.0, 0.0, 0x1p-1074, 1.0, kInf, bits(0x7FF0000000000001),
                    bits(0x7FF8000000000000), bits(0x7FFFFFFFFFFFFFFF)};
  constexpr int n = sizeof(order) / sizeof(order[0]);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      auto c = [&](ComparisonDirection d) {
        return Cmp(d, ComparisonType::kTotalOrder, ET::kF64, F(order[i]), F(order[j]));
      };
      EXPECT_EQ(c(ComparisonDirection::kLT), i < j ? 1 : 0) << i << "," << j;
      EXPECT_EQ(c(ComparisonDirection::kEQ), i == j ? 1 : 0) << i << "," << j;
      EXPECT_EQ(c(ComparisonDirection::kGE), i >= j ? 1 : 0) << i << "," << j;
      EXPECT_EQ(c(ComparisonDirection::kNE), i != j ? 1 : 0) << i << "," << j;
    }
  }
  // On a narrow type, the loaded NaN sign still orders.
  double neg_nan = LoadBits(ET::kBF16, 0xFFC0), pos_nan = LoadBits(ET::kBF16, 0x7FC0);
  EXPECT_EQ(Cmp(ComparisonDirection::kLT, ComparisonType::kTotalOrder, ET::kBF16, F(neg_nan), F(-kInf)), 1);
  EXPECT_EQ(Cmp(ComparisonDirection::kGT, ComparisonType::kTotalOrder, ET::kBF16, F(pos_nan), F(kInf)), 1);
}

TEST(ScalarEval, CompareIntegersAndComplex) {
  using D = ComparisonDirection;
  using T = ComparisonType;
  EXPECT_EQ(Cmp(D::kLT, T::kNotype, ET::kSI8, I(-1), I(1)), 1);
  EXPECT_EQ(Cmp(D::kLT, T::kNotype, ET::kUI8, I(255), I(1)), 0);
  EXPECT_EQ(Cmp(D::kLT, T::kUnsigned, ET::kSI8, I(-1), I(1)), 0);  // 0xFF > 1
  EXPECT_EQ(Cmp(D::kLT, T::kSigned, ET::kSI8, I(-1), I(1)), 1);
  EXPECT_EQ(Cmp(D::kGT, T::kNotype, ET::kUI64, I(-1), I(0)), 1);
  EXPECT_EQ(Cmp(D::kGT, T::kNotype, ET::kI1, I(1), I(0)), 1);
  EXPECT_EQ(Cmp(D::kEQ, T::kNotype, ET::kF32, F(kNaN), F(kNaN)), 0);
  // compare.mlir complex cases
  double nan = std::bit_cast<double>(uint64_t{0x7FF0000000000001});
  EXPECT_EQ(Cmp(D::kEQ, T::kNotype, ET::kC128, Cx(nan, 0.0), Cx(nan, -0.0)), 0);
  Scalar l[] = {Cx(nan, 0.0), Cx(0.0, nan), Cx(-0.0, 0.0), Cx(2.0, 2.0)};
  Scalar r[] = {Cx(nan, -0.0), Cx(-0.0, nan), Cx(0.0, 0.0), Cx(2.0, 1.0)};
  int eq[] = {0, 0, 1, 0};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(Cmp(D::kEQ, T::kFloat, ET::kC128, l[i], r[i]), eq[i]) << i;
    EXPECT_EQ(Cmp(D::kNE, T::kFloat, ET::kC128, l[i], r[i]), 1 - eq[i]) << i;
  }
  EXPECT_EQ(Cmp(D::kGT, T::kFloat, ET::kC128, Cx(2.0, 2.0), Cx(2.0, 1.0)), 1);
  EXPECT_EQ(Cmp(D::kLT, T::kFloat, ET::kC128, Cx(1.0, 5.0), Cx(2.0, 1.0)), 1);
}

TEST(ScalarEval, ReducePrecisionMatchesReducePrecisionMlir) {
  auto rp = [](ET t, double v, int e, int m) {
    return Eval(ScalarOp::kReducePrecision, t, {{t, F(v)}}, e, m).re;
  };
  double nan = std::bit_cast<double>(uint64_t{0x7FFFFFFFFFFFFFFF});
  EXPECT_EQ(rp(ET::kF64, kInf, 5, 10), kInf);
  EXPECT_TRUE(std::isnan(rp(ET::kF64, nan, 5, 10)));
  EXPECT_EQ(rp(ET::kF64, 0x1p-1074, 5, 10), 0.0);
  EXPECT_EQ(rp(ET::kF64, 0.0, 5, 10), 0.0);
  EXPECT_EQ(rp(ET::kF64, 65505.0, 5, 10), 65504.0);
  EXPECT_EQ(rp(ET::kF64, 65520.0, 5, 10), kInf);
  EXPECT_EQ(rp(ET::kF64, nan, 5, 0), kInf);  // e5m0: NaN -> inf
  // f16-denormal range flushes to signed zero.
  EXPECT_SAME(rp(ET::kF32, -0x1p-20, 5, 10), -0.0);
  EXPECT_EQ(rp(ET::kF32, 0x1p-14, 5, 10), 0x1p-14);
  // Mantissa rounding: ties to even.
  EXPECT_EQ(rp(ET::kF32, 1.0 + 0x1p-11, 5, 10), 1.0);
  EXPECT_EQ(rp(ET::kF32, 1.0 + 3 * 0x1p-11, 5, 10), 1.0 + 0x1p-9);
  EXPECT_EQ(rp(ET::kF32, 1.0 + 0x1p-9, 8, 7), 1.0);
  // With 0 mantissa bits XLA's tie-to-even looks at the exponent's low bit:
  // 3 = 1.1b x 2^1 (biased exponent 128, even) rounds down, 1.5 (127) up.
  EXPECT_EQ(rp(ET::kBF16, 3.0, 8, 0), 2.0);
  EXPECT_EQ(rp(ET::kBF16, 1.5, 8, 0), 2.0);
  EXPECT_EQ(rp(ET::kBF16, 1.75, 8, 0), 2.0);
  EXPECT_EQ(rp(ET::kF16, 1000.0, 2, 10), kInf);  // e2: max exponent 1
  EXPECT_EQ(rp(ET::kF64, 1.7976931348623157e308, 11, 52), 1.7976931348623157e308);
}

TEST(ScalarEval, ComplexArithmeticAndTranscendentals) {
  auto cx2 = [](ScalarOp op, Scalar a, Scalar b) { return Eval(op, ET::kC128, {{ET::kC128, a}, {ET::kC128, b}}); };
  // divide.mlir
  Scalar d = cx2(ScalarOp::kDivide, Cx(1.5, 2.5), Cx(2.5, 1.5));
  EXPECT_NEAR(d.re, 0.88235294117647056, 1e-15);
  EXPECT_NEAR(d.im, 0.4705882352941177, 1e-15);
  // power.mlir
  Scalar p = cx2(ScalarOp::kPower, Cx(1.5, 2.5), Cx(2.5, 1.5));
  EXPECT_NEAR(p.re, -1.5679313814305016, 1e-12);
  EXPECT_NEAR(p.im, -2.6674775446623613, 1e-12);
  Scalar m = cx2(ScalarOp::kMultiply, Cx(1, 2), Cx(3, 4));
  EXPECT_EQ(m.re, -5.0);
  EXPECT_EQ(m.im, 10.0);
  Scalar ab = Eval(ScalarOp::kAbs, ET::kF64, {{ET::kC128, Cx(3, 4)}});
  EXPECT_EQ(ab.re, 5.0);
  Scalar ab32 = Eval(ScalarOp::kAbs, ET::kF32, {{ET::kC64, Cx(0.1f, 0.0)}});
  EXPECT_EQ(ab32.re, static_cast<double>(0.1f));
  Scalar e = Eval(ScalarOp::kExponential, ET::kC128, {{ET::kC128, Cx(0, std::numbers::pi)}});
  EXPECT_NEAR(e.re, -1.0, 1e-15);
  EXPECT_NEAR(e.im, 0.0, 1e-15);
  Scalar sg = Eval(ScalarOp::kSign, ET::kC128, {{ET::kC128, Cx(3, -4)}});
  EXPECT_DOUBLE_EQ(sg.re, 0.6);
  EXPECT_DOUBLE_EQ(sg.im, -0.8);
  Scalar sgn = Eval(ScalarOp::kSign, ET::kC128, {{ET::kC128, Cx(kNaN, 1)}});
  EXPECT_TRUE(std::isnan(sgn.re) && std::isnan(sgn.im));
  Scalar l1p = Eval(ScalarOp::kLogPlusOne, ET::kC128, {{ET::kC128, Cx(1e-20, 1e-20)}});
  EXPECT_NEAR(l1p.re, 1e-20, 1e-34);
  EXPECT_NEAR(l1p.im, 1e-20, 1e-34);
  Scalar em1 = Eval(ScalarOp::kExponentialMinusOne, ET::kC128, {{ET::kC128, Cx(1e-20, 0)}});
  EXPECT_NEAR(em1.re, 1e-20, 1e-34);
  Scalar c = Eval(ScalarOp::kComplex, ET::kC64, {{ET::kF32, F(1.5)}, {ET::kF32, F(-2.0)}});
  EXPECT_EQ(c.re, 1.5);
  EXPECT_EQ(c.im, -2.0);
  EXPECT_EQ(Eval(ScalarOp::kReal, ET::kF64, {{ET::kC128, Cx(1.5, 2.5)}}).re, 1.5);
  EXPECT_EQ(Eval(ScalarOp::kImag, ET::kF64, {{ET::kC128, Cx(1.5, 2.5)}}).re, 2.5);
  EXPECT_EQ(Eval(ScalarOp::kImag, ET::kF64, {{ET::kF64, F(1.5)}}).re, 0.0);
  Scalar sq = Eval(ScalarOp::kSqrt, ET::kC128, {{ET::kC128, Cx(-4, 0)}});
  EXPECT_NEAR(sq.re, 0.0, 1e-15);
  EXPECT_NEAR(sq.im, 2.0, 1e-15);
}

TEST(ScalarEval, RealTranscendentalsAndChlo) {
  EXPECT_EQ(EvalF1(ScalarOp::kExponential, ET::kF32, 1.0), static_cast<double>(static_cast<float>(std::numbers::e)));
  EXPECT_EQ(EvalF1(ScalarOp::kLog, ET::kF64, 1.0), 0.0);
  EXPECT_DOUBLE_EQ(EvalF1(ScalarOp::kLogistic, ET::kF64, 0.0), 0.5);
  EXPECT_DOUBLE_EQ(EvalF1(ScalarOp::kRsqrt, ET::kF64, 4.0), 0.5);
  EXPECT_DOUBLE_EQ(EvalF1(ScalarOp::kCbrt, ET::kF64, -27.0), -3.0);
  EXPECT_DOUBLE_EQ(EvalF(ScalarOp::kAtan2, ET::kF64, 1.0, -1.0), 3 * std::numbers::pi / 4);
  EXPECT_NEAR(EvalF1(ScalarOp::kDigamma, ET::kF64, 1.0), -0.5772156649015329, 1e-14);
  EXPECT_NEAR(EvalF1(ScalarOp::kDigamma, ET::kF64, 0.5), -1.9635100260214235, 1e-14);
  EXPECT_NEAR(EvalF1(ScalarOp::kDigamma, ET::kF64, -0.5), 0.03648997397857652, 1e-13);
  EXPECT_TRUE(std::isnan(EvalF1(ScalarOp::kDigamma, ET::kF64, -2.0)));
  EXPECT_NEAR(EvalF(ScalarOp::kZeta, ET::kF64, 2.0, 1.0), std::numbers::pi * std::numbers::pi / 6, 1e-14);
  EXPECT_NEAR(EvalF(ScalarOp::kZeta, ET::kF64, 3.0, 2.0), 1.2020569031595942 - 1, 1e-14);
  EXPECT_NEAR(EvalF(ScalarOp::kZeta, ET::kF64, 4.0, 0.5), std::pow(std::numbers::pi, 4) * 15 / 90, 1e-12);
  EXPECT_EQ(EvalF(ScalarOp::kZeta, ET::kF64, 1.0, 1.0), kInf);
  EXPECT_NEAR(EvalF(ScalarOp::kPolygamma, ET::kF64, 1.0, 1.0), std::numbers::pi * std::numbers::pi / 6, 1e-14);
  EXPECT_NEAR(EvalF(ScalarOp::kPolygamma, ET::kF64, 2.0, 1.0), -2 * 1.2020569031595942, 1e-13);
  EXPECT_NEAR(EvalF(ScalarOp::kPolygamma, ET::kF64, 0.0, 1.0), -0.5772156649015329, 1e-14);
  EXPECT_TRUE(std::isnan(EvalF(ScalarOp::kPolygamma, ET::kF64, 1.5, 1.0)));
  for (double x : {-0.999, -0.5, -1e-10, 0.1, 0.5, 0.9, 0.999999}) {
    double y = EvalF1(ScalarOp::kErfInv, ET::kF64, x);
    EXPECT_NEAR(std::erf(y), x, 4e-16) << x;
  }
  EXPECT_EQ(EvalF1(ScalarOp::kErfInv, ET::kF64, 1.0), kInf);
  // f64 erf (C's) and erfc (Kiln's, kernels/scalar/error_function.cc)
  // within an ulp of the true values (correctly rounded from an 80-digit
  // computation): erfc's series, both sides of its switch to the continued
  // fraction at 3.5, negative arguments, its tail to its subnormals.
  struct ErfCase {
    double x, erf, erfc;
  };
  const ErfCase erf_cases[] = {
      {1e-05, 1.1283791670579e-05, 0.9999887162083294},
      {0.1, 0.1124629160182849, 0.887537083981715},
      {-0.5, -0.5204998778130465, 1.5204998778130465},
      {1.0, 0.8427007929497149, 0.15729920705028513},
      {2.0, 0.9953222650189527, 0.004677734981047266},
      {3.0, 0.9999779095030014, 2.209049699858544e-05},
      {3.5, 0.9999992569016276, 7.430983723414128e-07},
      {3.6, 0.999999644137007, 3.5586299300768504e-07},
      {-4.0, -0.9999999845827421, 1.999999984582742},
      {5.0, 0.9999999999984626, 1.537459794428035e-12},
      {10.0, 1.0, 2.088487583762545e-45},
      {20.0, 1.0, 5.395865611607901e-176},
      {26.0, 1.0, 5.663192408856143e-296},
      {27.0, 1.0, 5.23705e-319},
      // x^2 not a double: its low word matters to e^(-x^2)
      {4.3, 0.9999999988065282, 1.1934717937220432e-09},
      {7.7, 1.0, 1.2942740067717136e-27},
      {13.1, 1.0, 1.2694671364910779e-76},
      {22.9, 1.0, 4.3934655937655665e-230},
      {-5.3, -0.9999999999999338, 1.9999999999999338},
  };
  auto within_ulp = [](double got, double want) {
    return got == want || got == std::nextafter(want, kInf) || got == std::nextafter(want, -kInf);
  };
  for (const ErfCase& c : erf_cases) {
    const double erf = EvalF1(ScalarOp::kErf, ET::kF64, c.x), erfc = EvalF1(ScalarOp::kErfc, ET::kF64, c.x);
    EXPECT_TRUE(within_ulp(erf, c.erf)) << "erf(" << c.x << ") = " << erf << ", want " << c.erf;
    EXPECT_TRUE(within_ulp(erfc, c.erfc)) << "erfc(" << c.x << ") = " << erfc << ", want " << c.erfc;
  }
  EXPECT_EQ(EvalF1(ScalarOp::kErfc, ET::kF64, 28.0), 0.0);
  EXPECT_EQ(EvalF1(ScalarOp::kErfc, ET::kF64, -7.0), 2.0);
  EXPECT_EQ(EvalF1(ScalarOp::kErf, ET::kF64, -kInf), -1.0);
  EXPECT_TRUE(std::isnan(EvalF1(ScalarOp::kErfc, ET::kF64, std::nan(""))));
  EXPECT_NEAR(EvalF1(ScalarOp::kBesselI1e, ET::kF64, 1.0), 0.20791041534970844, 1e-15);
  EXPECT_NEAR(EvalF1(ScalarOp::kBesselI1e, ET::kF64, -1.0), -0.20791041534970844, 1e-15);
  EXPECT_EQ(EvalF1(ScalarOp::kBesselI1e, ET::kF64, 0.0), 0.0);
  // e^-x I1(x) ~ (1 - 3/(8x) - 15/(128x^2) - 315/(3072x^3) - 14175/(98304x^4)) / sqrt(2 pi x)
  auto asym = [](double x) {
    return (1 - 3 / (8 * x) - 15 / (128 * x * x) - 315 / (3072 * x * x * x) - 14175 / (98304 * x * x * x * x)) /
           std::sqrt(2 * std::numbers::pi * x);
  };
  EXPECT_NEAR(EvalF1(ScalarOp::kBesselI1e, ET::kF64, 1000.0), asym(1000.0), 1e-15);
  EXPECT_NEAR(EvalF1(ScalarOp::kBesselI1e, ET::kF64, 400.0), asym(400.0), 2e-15);  // series branch
  EXPECT_NEAR(EvalF1(ScalarOp::kLgamma, ET::kF64, 0.5), std::log(std::sqrt(std::numbers::pi)), 1e-15);
  EXPECT_DOUBLE_EQ(EvalF1(ScalarOp::kAcosh, ET::kF64, 1.0), 0.0);
  EXPECT_DOUBLE_EQ(EvalF1(ScalarOp::kAtanh, ET::kF64, 0.5), 0.5493061443340549);
  EXPECT_EQ(EvalF1(ScalarOp::kSquare, ET::kF16, 300.0), kInf);
  EXPECT_EQ(EvalI1(ScalarOp::kSquare, ET::kSI8, 16), 0);
}

TEST(ScalarEval, NextAfterStepsInTheTypesEncoding) {
  EXPECT_EQ(EvalF(ScalarOp::kNextAfter, ET::kF32, 1.0, 2.0), 1.0 + 0x1p-23);
  EXPECT_EQ(EvalF(ScalarOp::kNextAfter, ET::kF64, 1.0, 0.0), 1.0 - 0x1p-53);
  EXPECT_EQ(EvalF(ScalarOp::kNextAfter, ET::kF16, 1.0, 2.0), 1.0 + 0x1p-10);
  EXPECT_EQ(EvalF(ScalarOp::kNextAfter, ET::kBF16, 1.0, 0.0), 1.0 - 0x1p-8);
  EXPECT_EQ(EvalF(ScalarOp::kNextAfter, ET::kF8E4M3FN, 0.0, -1.0), -0.001953125);
  EXPECT_EQ(EvalF(ScalarOp::kNextAfter, ET::kF8E4M3FN, 448.0, 0.0), 416.0);
  EXPECT_EQ(EvalF(ScalarOp::kNextAfter, ET::kF8E5M2, 57344.0, kInf), kInf);
  EXPECT_SAME(EvalF(ScalarOp::kNextAfter, ET::kF8E4M3FNUZ, -0.0009765625, 1.0), 0.0);
  EXPECT_SAME(EvalF(ScalarOp::kNextAfter, ET::kF8E4M3, -0.001953125, 1.0), -0.0);
  EXPECT_EQ(EvalF(ScalarOp::kNextAfter, ET::kF8E8M0FNU, 1.0, 0.5), 0.5);
  EXPECT_TRUE(std::isnan(EvalF(ScalarOp::kNextAfter, ET::kF32, kNaN, 1.0)));
}

TEST(ScalarEval, SelectClampConvertBitcast) {
  EXPECT_EQ(Eval(ScalarOp::kSelect, ET::kF32, {{ET::kI1, I(1)}, {ET::kF32, F(1.0)}, {ET::kF32, F(2.0)}}).re, 1.0);
  EXPECT_EQ(Eval(ScalarOp::kSelect, ET::kF32, {{ET::kI1, I(0)}, {ET::kF32, F(1.0)}, {ET::kF32, F(2.0)}}).re, 2.0);
  EXPECT_EQ(Eval(ScalarOp::kClamp, ET::kSI32, {{ET::kSI32, I(0)}, {ET::kSI32, I(-5)}, {ET::kSI32, I(10)}}).i, 0);
  EXPECT_EQ(Eval(ScalarOp::kClamp, ET::kSI32, {{ET::kSI32, I(0)}, {ET::kSI32, I(15)}, {ET::kSI32, I(10)}}).i, 10);
  EXPECT_EQ(Eval(ScalarOp::kClamp, ET::kUI8, {{ET::kUI8, I(5)}, {ET::kUI8, I(200)}, {ET::kUI8, I(250)}}).i, 200);
  EXPECT_TRUE(std::isnan(
      Eval(ScalarOp::kClamp, ET::kF32, {{ET::kF32, F(0)}, {ET::kF32, F(kNaN)}, {ET::kF32, F(1)}}).re));
  EXPECT_EQ(Eval(ScalarOp::kConvert, ET::kSI32, {{ET::kF32, F(-7.9)}}).i, -7);
  // bitcast_convert.mlir style
  EXPECT_EQ(Eval(ScalarOp::kBitcastConvert, ET::kSI32, {{ET::kF32, F(1.0)}}).i, 0x3F800000);
  EXPECT_EQ(Eval(ScalarOp::kBitcastConvert, ET::kF32, {{ET::kSI32, I(0x40490FDB)}}).re,
            static_cast<double>(std::bit_cast<float>(0x40490FDBu)));
  EXPECT_EQ(Eval(ScalarOp::kBitcastConvert, ET::kUI8, {{ET::kF8E4M3FN, F(-448.0)}}).i, 0xFE);
  EXPECT_EQ(Eval(ScalarOp::kBitcastConvert, ET::kSI4, {{ET::kF4E2M1FN, F(-6.0)}}).i, -1);
  EXPECT_EQ(Eval(ScalarOp::kBitcastConvert, ET::kF16, {{ET::kUI16, I(0x3C00)}}).re, 1.0);
  EXPECT_EQ(Eval(ScalarOp::kBitcastConvert, ET::kSI64, {{ET::kF64, F(-0.0)}}).i, std::numeric_limits<int64_t>::min());
  // A signalling NaN survives f32 -> i32 -> f32 -> i32.
  Scalar f = Eval(ScalarOp::kBitcastConvert, ET::kF32, {{ET::kSI32, I(0x7F800001)}});
  EXPECT_EQ(Eval(ScalarOp::kBitcastConvert, ET::kSI32, {{ET::kF32, f}}).i, 0x7F800001);
  ScalarInstr k;
  k.op = ScalarOp::kConstant;
  k.type = ET::kF32;
  k.constant.re = 2.5;
  EXPECT_EQ(EvalScalarInstr(k, nullptr, nullptr).re, 2.5);
}

TEST(ScalarProgram, Runs) {
  // max(a, b) > 3 ? a * b : a - b, on i8.
  ScalarProgram p;
  p.param_types = {ET::kSI8, ET::kSI8};
  ScalarInstr three;
  three.op = ScalarOp::kConstant;
  three.type = ET::kSI8;
  three.constant.i = 3;
  p.instrs.push_back(three);                                                   // v2
  p.instrs.push_back(Instr(ScalarOp::kMaximum, ET::kSI8, {0, 1}));             // v3
  p.instrs.push_back(Instr(ScalarOp::kCompare, ET::kI1, {3, 2},
                           static_cast<int64_t>(ComparisonDirection::kGT)));    // v4
  p.instrs.push_back(Instr(ScalarOp::kMultiply, ET::kSI8, {0, 1}));            // v5
  p.instrs.push_back(Instr(ScalarOp::kSubtract, ET::kSI8, {0, 1}));            // v6
  p.instrs.push_back(Instr(ScalarOp::kSelect, ET::kSI8, {4, 5, 6}));           // v7
  p.results = {7, 4};
  ASSERT_TRUE(VerifyScalarProgram(p).ok()) << VerifyScalarProgram(p).message();
  Scalar params[2] = {I(20), I(10)};
  std::vector<Scalar> scratch(p.num_values());
  Scalar results[2];
  RunScalarProgram(p, params, scratch.data(), results);
  EXPECT_EQ(results[0].i, -56);  // 200 wraps in i8
  EXPECT_EQ(results[1].i, 1);
  params[0] = I(1);
  params[1] = I(2);
  RunScalarProgram(p, params, scratch.data(), results);
  EXPECT_EQ(results[0].i, -1);
  EXPECT_EQ(results[1].i, 0);
}

}  // namespace
}  // namespace kiln::ref
