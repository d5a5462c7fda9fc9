// The row block's reuse of producer values (kernels/cpu/row_block_reuse.h):
// the tail value that computes a reduce's producer is found only when ops,
// attributes, constants and the elements each param reads all agree, the
// rewritten tail reads it from a new param and drops what no result needs,
// and hostile programs (deep shared DAGs, too many values) end quickly.
#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "kernels/cpu/row_block_reuse.h"

namespace kiln::cpu {
namespace {

constexpr ElementType F32 = ElementType::kF32;

ScalarInstr I(ScalarOp op, std::vector<uint16_t> operands, ElementType t = F32) {
  ScalarInstr in;
  in.op = op;
  in.type = t;
  in.num_operands = static_cast<uint8_t>(operands.size());
  for (size_t i = 0; i < operands.size(); ++i) in.operands[i] = operands[i];
  return in;
}

ScalarInstr Const(double v) {
  ScalarInstr in;
  in.op = ScalarOp::kConstant;
  in.type = F32;
  in.constant.re = v;
  return in;
}

// Softmax: producer exp(x - m) over (x, m); tail exp(x - m) / s over (x, m, s).
struct Softmax {
  uint8_t x = 0, m = 0, s = 0;  // stand-ins for the tensors' data
  ScalarProgram producer, tail;
  std::vector<ProgramInput> producer_ins, tail_ins;
  Softmax() {
    producer.param_types = {F32, F32};
    producer.instrs = {I(ScalarOp::kSubtract, {0, 1}), I(ScalarOp::kExponential, {2})};
    producer.results = {3};
    tail.param_types = {F32, F32, F32};
    tail.instrs = {I(ScalarOp::kSubtract, {0, 1}), I(ScalarOp::kExponential, {3}), I(ScalarOp::kDivide, {4, 2})};
    tail.results = {5};
    producer_ins = {{&x, F32, {7, 1}}, {&m, F32, {1, 0}}};
    tail_ins = {{&x, F32, {7, 1}}, {&m, F32, {1, 0}}, {&s, F32, {1, 0}}};
  }
};

TEST(RowBlockReuse, FindsSoftmaxExpInTheTail) {
  Softmax t;
  EXPECT_EQ(FindProducerValue(t.tail, t.tail_ins, t.producer, t.producer_ins), 4);
  std::vector<int64_t> sources;
  const ScalarProgram r = ReplaceWithParams(t.tail, {4}, &sources);
  // s (old param 2) and the cached exp; x, m, the subtract and the exp are gone.
  EXPECT_EQ(sources, (std::vector<int64_t>{2, -1}));
  ASSERT_EQ(r.param_types.size(), 2u);
  ASSERT_EQ(r.instrs.size(), 1u);
  EXPECT_EQ(r.instrs[0].op, ScalarOp::kDivide);
  EXPECT_EQ(r.instrs[0].operands[0], 1);  // exp(x - m), now a param
  EXPECT_EQ(r.instrs[0].operands[1], 0);  // s
  EXPECT_EQ(r.results, (std::vector<uint16_t>{2}));
}

TEST(RowBlockReuse, ParamsMustReadTheSameElements) {
  Softmax t;
  std::vector<ProgramInput> ins = t.tail_ins;
  ins[1].strides = {0, 1};  // m read along the row instead of per row
  EXPECT_EQ(FindProducerValue(t.tail, ins, t.producer, t.producer_ins), -1);
  ins = t.tail_ins;
  uint8_t other = 0;
  ins[0].data = &other;  // another tensor
  EXPECT_EQ(FindProducerValue(t.tail, ins, t.producer, t.producer_ins), -1);
  ins = t.tail_ins;
  ins[0].type = ElementType::kF64;
  EXPECT_EQ(FindProducerValue(t.tail, ins, t.producer, t.producer_ins), -1);
  // Operands swapped: m - x is another value.
  ScalarProgram swapped = t.tail;
  swapped.instrs[0] = I(ScalarOp::kSubtract, {1, 0});
  EXPECT_EQ(FindProducerValue(swapped, t.tail_ins, t.producer, t.producer_ins), -1);
}

TEST(RowBlockReuse, OpsAttributesAndConstantsMustAgree) {
  // producer: select(x > 0.5, x, 0.5); candidates differ in one detail each.
  ScalarProgram p;
  p.param_types = {F32};
  p.instrs = {Const(0.5), I(ScalarOp::kCompare, {0, 1}, ElementType::kI1), I(ScalarOp::kSelect, {2, 0, 1})};
  p.instrs[1].attr0 = static_cast<int64_t>(ComparisonDirection::kGT);
  p.results = {3};
  uint8_t x = 0;
  const std::vector<ProgramInput> ins = {{&x, F32, {1}}};
  EXPECT_EQ(FindProducerValue(p, ins, p, ins), 3);
  ScalarProgram other_constant = p;
  other_constant.instrs[0].constant.re = 0.25;
  EXPECT_EQ(FindProducerValue(other_constant, ins, p, ins), -1);
  ScalarProgram other_direction = p;
  other_direction.instrs[1].attr0 = static_cast<int64_t>(ComparisonDirection::kGE);
  EXPECT_EQ(FindProducerValue(other_direction, ins, p, ins), -1);
  ScalarProgram other_op = p;
  other_op.instrs[2] = I(ScalarOp::kClamp, {1, 0, 1});
  EXPECT_EQ(FindProducerValue(other_op, ins, p, ins), -1);
  // -0.0 and 0.0 are different constants.
  ScalarProgram zero = p, negzero = p;
  zero.instrs[0].constant.re = 0.0;
  negzero.instrs[0].constant.re = -0.0;
  EXPECT_EQ(FindProducerValue(negzero, ins, zero, ins), -1);
}

TEST(RowBlockReuse, KeepsValuesStillNeededBesideTheReusedOne) {
  // tail: (x - m) + exp(x - m) / s: the subtract stays for the add.
  Softmax t;
  ScalarProgram tail = t.tail;
  tail.instrs.push_back(I(ScalarOp::kAdd, {3, 5}));
  tail.results = {6};
  ASSERT_EQ(FindProducerValue(tail, t.tail_ins, t.producer, t.producer_ins), 4);
  std::vector<int64_t> sources;
  const ScalarProgram r = ReplaceWithParams(tail, {4}, &sources);
  EXPECT_EQ(sources, (std::vector<int64_t>{0, 1, 2, -1}));
  ASSERT_EQ(r.instrs.size(), 3u);  // subtract, divide, add
  EXPECT_EQ(r.instrs[0].op, ScalarOp::kSubtract);
  EXPECT_EQ(r.instrs[1].op, ScalarOp::kDivide);
  EXPECT_EQ(r.instrs[1].operands[0], 3);  // the new param
  EXPECT_EQ(r.instrs[2].op, ScalarOp::kAdd);
  EXPECT_EQ(r.instrs[2].operands[0], 4);
  EXPECT_EQ(r.instrs[2].operands[1], 5);
  EXPECT_EQ(r.results, (std::vector<uint16_t>{6}));
}

TEST(RowBlockReuse, DeepSharedProgramsEndQuickly) {
  // v[k + 1] = v[k] + v[k]: 2^200 paths, 200 distinct values.
  ScalarProgram p;
  p.param_types = {F32};
  for (uint16_t k = 0; k < 200; ++k) p.instrs.push_back(I(ScalarOp::kAdd, {k, k}));
  p.results = {200};
  uint8_t x = 0;
  const std::vector<ProgramInput> ins = {{&x, F32, {1}}};
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(FindProducerValue(p, ins, p, ins), 200);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  // Too many values to compare: no reuse.
  for (uint16_t k = 200; k < kMaxReuseValues + 10; ++k) p.instrs.push_back(I(ScalarOp::kAdd, {k, k}));
  p.results = {static_cast<uint16_t>(p.num_values() - 1)};
  EXPECT_EQ(FindProducerValue(p, ins, p, ins), -1);
}

TEST(RowBlockReuse, MalformedOperandsAreNotFollowed) {
  // An operand that points forward (an invalid program) is no match and no
  // out-of-bounds read.
  Softmax t;
  ScalarProgram bad = t.tail;
  bad.instrs[1].operands[0] = 5;
  EXPECT_EQ(FindProducerValue(bad, t.tail_ins, t.producer, t.producer_ins), -1);
  ScalarProgram no_result = t.producer;
  no_result.results = {9};
  EXPECT_EQ(FindProducerValue(t.tail, t.tail_ins, no_result, t.producer_ins), -1);
  // Fewer inputs than params.
  std::vector<ProgramInput> short_ins = {t.tail_ins[0]};
  EXPECT_EQ(FindProducerValue(t.tail, short_ins, t.producer, t.producer_ins), -1);
}

}  // namespace
}  // namespace kiln::cpu
