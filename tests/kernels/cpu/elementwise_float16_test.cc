// The f16/bf16 programs (kernels/cpu/elementwise_float16.cc) against the
// reference interpreter, byte for byte, on every Highway target:
// arithmetic rounded per op, the
// reference's maximum/minimum/clamp rules for NaN and signed zeros, select,
// compare into i1, transcendentals (the reference's own evaluation), mixed
// f32 values with converts both ways, broadcast operands (one value, a row,
// a column), every 16-bit pattern through add, divide and sqrt against a
// fixed operand, and NaN, infinities, zeros and subnormals in random inputs.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/kernels.h"
#include "kernels/scalar/scalar.h"
#include "tests/kernels/cpu/hwy_test_util.h"
#include "tests/kernels/cpu/program_builder.h"
#include "tests/kernels/cpu/same_bytes_check.h"
#include "tests/kernels/tensor_test_util.h"

namespace kiln::cpu {
namespace {

using namespace ::kiln::test;

constexpr ElementType kF32 = ElementType::kF32, kI1 = ElementType::kI1;

// Random 16-bit patterns: a third uniform in [-4, 4] (rounded), the rest
// any bits (NaNs, infinities, subnormals, both zeros among them).
// f32 values uniform in [-4, 4].
Tensor RandomF32(std::vector<int64_t> dims, std::mt19937& rng) {
  Tensor x = Zeros(ElementType::kF32, std::move(dims));
  std::uniform_real_distribution<double> u(-4.0, 4.0);
  for (int64_t i = 0; i < x.count(); ++i) x.Set(i, u(rng));
  return x;
}

Tensor Random16(ElementType t, std::vector<int64_t> dims, std::mt19937& rng) {
  Tensor x = Zeros(t, std::move(dims));
  std::uniform_real_distribution<double> u(-4.0, 4.0);
  for (int64_t i = 0; i < x.count(); ++i) {
    if (i % 3 == 0) {
      ref::StoreScalar(t, Scalar{0, u(rng), 0}, x.bytes.data() + 2 * i);
    } else {
      const uint16_t b = static_cast<uint16_t>(rng());
      std::memcpy(x.bytes.data() + 2 * i, &b, 2);
    }
  }
  return x;
}

void Check(const KernelParams& p, std::vector<Tensor> ins, ElementType out_type, const std::vector<int64_t>& dims) {
  ASSERT_TRUE(IsFloat16Elementwise(*p.Program("body")));
  ForEachTarget([&] { ExpectSameBytesAsReference(p, ins, out_type, dims); });
}

TEST(CpuElementwiseFloat16, ArithmeticRoundedPerOp) {
  std::mt19937 rng(1);
  const std::vector<int64_t> dims = {3, 700};
  for (ElementType t : {ElementType::kBF16, ElementType::kF16}) {
    SCOPED_TRACE(std::string(Name(t)));
    for (ScalarOp op : {ScalarOp::kAdd, ScalarOp::kSubtract, ScalarOp::kMultiply, ScalarOp::kDivide,
                        ScalarOp::kMaximum, ScalarOp::kMinimum}) {
      SCOPED_TRACE("binary op " + std::to_string(static_cast<int>(op)));
      ProgramBuilder b({t, t});
      Check(b.Kernel({b.Op(op, t, {0, 1})}), {Random16(t, dims, rng), Random16(t, dims, rng)}, t, dims);
    }
    for (ScalarOp op : {ScalarOp::kSqrt, ScalarOp::kNegate, ScalarOp::kAbs, ScalarOp::kExponential, ScalarOp::kTanh,
                        ScalarOp::kLog}) {
      SCOPED_TRACE("unary op " + std::to_string(static_cast<int>(op)));
      ProgramBuilder b({t});
      Check(b.Kernel({b.Op(op, t, {0})}), {Random16(t, dims, rng)}, t, dims);
    }
    // A bias add and a gelu-like chain: x * 0.5 * (1 + tanh(x)), clamp.
    ProgramBuilder g({t, t});
    const uint16_t s = g.Op(ScalarOp::kAdd, t, {0, 1});
    const uint16_t th = g.Op(ScalarOp::kAdd, t, {g.Const(1.0, t), g.Op(ScalarOp::kTanh, t, {s})});
    const uint16_t y = g.Op(ScalarOp::kMultiply, t, {g.Op(ScalarOp::kMultiply, t, {s, g.Const(0.5, t)}), th});
    Check(g.Kernel({g.Op(ScalarOp::kClamp, t, {g.Const(-2.0, t), y, g.Const(3.0, t)})}),
          {Random16(t, dims, rng), Random16(t, dims, rng)}, t, dims);
  }
}

TEST(CpuElementwiseFloat16, CompareSelectConvertsAndBroadcast) {
  std::mt19937 rng(2);
  const std::vector<int64_t> dims = {5, 300};
  for (ElementType t : {ElementType::kBF16, ElementType::kF16}) {
    SCOPED_TRACE(std::string(Name(t)));
    // relu by compare (into i1) and select.
    ProgramBuilder r({t});
    const uint16_t gt = r.Op(ScalarOp::kCompare, kI1, {0, r.Const(0.0, t)});
    r.p.instrs.back().attr0 = static_cast<int64_t>(ComparisonDirection::kGT);
    KernelParams relu = r.Kernel({r.Op(ScalarOp::kSelect, t, {gt, 0, r.Const(0.0, t)})});
    Check(relu, {Random16(t, dims, rng)}, t, dims);
    // f32 activations plus a t weight converted up, the sum converted down.
    ProgramBuilder m({kF32, t});
    const uint16_t up = m.Op(ScalarOp::kConvert, kF32, {1});
    Check(m.Kernel({m.Op(ScalarOp::kConvert, t, {m.Op(ScalarOp::kMultiply, kF32, {0, up})})}),
          {RandomF32(dims, rng), Random16(t, dims, rng)}, t, dims);
    // A rank-0 operand broadcast.
    ProgramBuilder s({t, t});
    KernelParams add = s.Kernel({s.Op(ScalarOp::kAdd, t, {0, 1})});
    add.attrs.push_back(Ints("input_broadcast", {2, 0, 1, 0}));  // per input: its rank, then its axes
    Check(add, {Random16(t, dims, rng), Random16(t, {}, rng)}, t, dims);
    // A bias row (axis 1) and a column (axis 0), gathered through strides.
    ProgramBuilder row({t, t});
    KernelParams bias = row.Kernel({row.Op(ScalarOp::kMultiply, t, {0, 1})});
    bias.attrs.push_back(Ints("input_broadcast", {2, 0, 1, 1, 1}));
    Check(bias, {Random16(t, dims, rng), Random16(t, {300}, rng)}, t, dims);
    ProgramBuilder col({t, t});
    KernelParams column = col.Kernel({col.Op(ScalarOp::kSubtract, t, {0, 1})});
    column.attrs.push_back(Ints("input_broadcast", {2, 0, 1, 1, 0}));
    Check(column, {Random16(t, dims, rng), Random16(t, {5}, rng)}, t, dims);
  }
}

TEST(CpuElementwiseFloat16, EverySixteenBitPattern) {
  for (ElementType t : {ElementType::kBF16, ElementType::kF16}) {
    SCOPED_TRACE(std::string(Name(t)));
    Tensor x = Zeros(t, {256, 256});
    for (uint32_t v = 0; v < 65536; ++v) std::memcpy(x.bytes.data() + 2 * v, &v, 2);
    for (double c : {0.1, -3.0e-3, 1.5e4}) {
      for (ScalarOp op : {ScalarOp::kAdd, ScalarOp::kDivide}) {
        SCOPED_TRACE("op " + std::to_string(static_cast<int>(op)) + " with " + std::to_string(c));
        ProgramBuilder b({t});
        Check(b.Kernel({b.Op(op, t, {0, b.Const(c, t)})}), {x}, t, {256, 256});
      }
    }
    ProgramBuilder q({t});
    Check(q.Kernel({q.Op(ScalarOp::kSqrt, t, {0})}), {x}, t, {256, 256});
  }
}

}  // namespace
}  // namespace kiln::cpu
