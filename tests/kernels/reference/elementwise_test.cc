// Tests of "kiln.elementwise" (a ScalarProgram run per element, rank-0
// inputs broadcast) and "kiln.copy".
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "kernels/reference/registry.h"
#include "kernels/scalar/scalar.h"
#include "tests/kernels/tensor_test_util.h"

namespace kiln::ref {
namespace {

using namespace ::kiln::test;  // Tensor, Make, Zeros, Get, Ints, Prog

ScalarInstr Instr(ScalarOp op, ElementType t, std::vector<uint16_t> operands) {
  ScalarInstr i;
  i.op = op;
  i.type = t;
  i.num_operands = static_cast<uint8_t>(operands.size());
  for (size_t k = 0; k < operands.size(); ++k) i.operands[k] = operands[k];
  return i;
}

// kiln.elementwise with `body` (or, to test the refusal, no body attribute).
Status Call(const ScalarProgram& body, std::vector<Tensor*> ins, std::vector<Tensor*> outs,
            bool with_body = true) {
  std::vector<KernelAttr> attrs;
  if (with_body) attrs.push_back(Prog("body", body));
  return test::Call("kiln.elementwise", std::move(attrs), std::move(ins), std::move(outs));
}

constexpr ElementType kI32 = ElementType::kSI32;
constexpr ElementType kF32 = ElementType::kF32;

// (a, b) -> (a + b) * b, and a second result a - b.
ScalarProgram AddMulSub(ElementType t) {
  ScalarProgram p;
  p.param_types = {t, t};
  p.instrs.push_back(Instr(ScalarOp::kAdd, t, {0, 1}));       // 2
  p.instrs.push_back(Instr(ScalarOp::kMultiply, t, {2, 1}));  // 3
  p.instrs.push_back(Instr(ScalarOp::kSubtract, t, {0, 1}));  // 4
  p.results = {3, 4};
  return p;
}

TEST(ElementwiseKernels, TwoResultsInt32WithWraparound) {
  Tensor a = Make(kI32, {2, 3}, std::vector<int32_t>{1, 2, 3, 4, 5, 2147483647});
  Tensor b = Make(kI32, {2, 3}, std::vector<int32_t>{1, 1, 2, 2, 3, 1});
  Tensor r0 = Zeros(kI32, {2, 3});
  Tensor r1 = Zeros(kI32, {2, 3});
  Status s = Call(AddMulSub(kI32), {&a, &b}, {&r0, &r1});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(Get<int32_t>(r0), (std::vector<int32_t>{2, 3, 10, 12, 24, -2147483647 - 1}));
  EXPECT_EQ(Get<int32_t>(r1), (std::vector<int32_t>{0, 1, 1, 2, 2, 2147483646}));
}

TEST(ElementwiseKernels, ScalarBroadcastSelectAndClamp) {
  // select(p, x, 0.0) then clamp(-1, ., 1); the zero and bounds are rank 0.
  ScalarProgram p;
  p.param_types = {ElementType::kI1, kF32, kF32, kF32, kF32};
  p.instrs.push_back(Instr(ScalarOp::kSelect, kF32, {0, 1, 2}));  // 5
  p.instrs.push_back(Instr(ScalarOp::kClamp, kF32, {3, 5, 4}));   // 6
  p.results = {6};
  Tensor pred = Make(ElementType::kI1, {4}, std::vector<uint8_t>{1, 0, 1, 1});
  Tensor x = Make(kF32, {4}, std::vector<float>{0.5f, 7, -3, 2});
  Tensor zero = Make(kF32, {}, std::vector<float>{0});
  Tensor lo = Make(kF32, {}, std::vector<float>{-1});
  Tensor hi = Make(kF32, {}, std::vector<float>{1});
  Tensor r = Zeros(kF32, {4});
  Status s = Call(p, {&pred, &x, &zero, &lo, &hi}, {&r});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(Get<float>(r), (std::vector<float>{0.5f, 0, -1, 1}));
}

TEST(ElementwiseKernels, ConvertAndCompareResultTypes) {
  // f32 -> (i32 convert, i1 x > 0)
  ScalarProgram p;
  p.param_types = {kF32, kF32};
  p.instrs.push_back(Instr(ScalarOp::kConvert, kI32, {0}));  // 2
  ScalarInstr gt = Instr(ScalarOp::kCompare, ElementType::kI1, {0, 1});
  gt.attr0 = static_cast<int64_t>(ComparisonDirection::kGT);
  gt.attr1 = static_cast<int64_t>(ComparisonType::kFloat);
  p.instrs.push_back(gt);  // 3
  p.results = {2, 3};
  Tensor x = Make(kF32, {3}, std::vector<float>{-2.5f, 0, 3.75f});
  Tensor zero = Make(kF32, {}, std::vector<float>{0});
  Tensor ri = Zeros(kI32, {3});
  Tensor rb = Zeros(ElementType::kI1, {3});
  ASSERT_TRUE(Call(p, {&x, &zero}, {&ri, &rb}).ok());
  EXPECT_EQ(Get<int32_t>(ri), (std::vector<int32_t>{-2, 0, 3}));
  EXPECT_EQ(Get<uint8_t>(rb), (std::vector<uint8_t>{0, 0, 1}));
}

TEST(ElementwiseKernels, RankZeroAndZeroSized) {
  Tensor a = Make(ElementType::kF64, {}, std::vector<double>{1.5});
  Tensor b = Make(ElementType::kF64, {}, std::vector<double>{2});
  Tensor r0 = Zeros(ElementType::kF64, {});
  Tensor r1 = Zeros(ElementType::kF64, {});
  ASSERT_TRUE(Call(AddMulSub(ElementType::kF64), {&a, &b}, {&r0, &r1}).ok());
  EXPECT_EQ(Get<double>(r0), (std::vector<double>{7}));
  EXPECT_EQ(Get<double>(r1), (std::vector<double>{-0.5}));
  Tensor e = Zeros(ElementType::kF64, {0, 4});
  Tensor e0 = Zeros(ElementType::kF64, {0, 4});
  Tensor e1 = Zeros(ElementType::kF64, {0, 4});
  EXPECT_TRUE(Call(AddMulSub(ElementType::kF64), {&e, &a}, {&e0, &e1}).ok());
}

TEST(ElementwiseKernels, Errors) {
  Tensor a = Make(kI32, {3}, std::vector<int32_t>{1, 2, 3});
  Tensor b = Make(kI32, {2}, std::vector<int32_t>{1, 2});
  Tensor f = Make(kF32, {3}, std::vector<float>{1, 2, 3});
  Tensor r0 = Zeros(kI32, {3});
  Tensor r1 = Zeros(kI32, {3});
  Tensor rf = Zeros(kF32, {3});
  Tensor r_short = Zeros(kI32, {2});
  auto p = AddMulSub(kI32);
  EXPECT_FALSE(Call(p, {&a, &b}, {&r0, &r1}).ok());        // input shape mismatch
  EXPECT_FALSE(Call(p, {&a, &f}, {&r0, &r1}).ok());        // param type mismatch
  EXPECT_FALSE(Call(p, {&a, &a}, {&r0, &rf}).ok());        // result type mismatch
  EXPECT_FALSE(Call(p, {&a, &a}, {&r0}).ok());             // result count
  EXPECT_FALSE(Call(p, {&a}, {&r0, &r1}).ok());            // input count
  EXPECT_FALSE(Call(p, {&a, &a}, {&r0, &r_short}).ok());   // outputs differ in shape
  EXPECT_FALSE(Call(p, {&a, &a}, {&r0, &r1}, false).ok());  // no body
  Tensor small = Zeros(kI32, {3});
  small.bytes.resize(8);
  EXPECT_FALSE(Call(p, {&a, &a}, {&small, &r1}).ok());  // storage too small
  ScalarProgram bad = p;
  bad.results = {99, 4};
  EXPECT_FALSE(Call(bad, {&a, &a}, {&r0, &r1}).ok());  // result index out of range
}

}  // namespace
}  // namespace kiln::ref
