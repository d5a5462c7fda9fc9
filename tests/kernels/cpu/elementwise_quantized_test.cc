// The quantized elementwise programs (kernels/cpu/elementwise_quantized.cc)
// against the reference interpreter, byte for byte, on every Highway
// target: the quantized add of an int8 residual (each input dequantized,
// added, requantized), a relu6 by
// the result's range, u8 and i16 storage, a scalar operand, ties of the
// rounding, saturation, constants that overflow the sum to infinity and a
// NaN redone by the reference; programs outside the form stay with the
// reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/common/kernel_state.h"
#include "kernels/cpu/kernels.h"
#include "kernels/reference/registry.h"
#include "tests/kernels/cpu/hwy_test_util.h"
#include "tests/kernels/cpu/program_builder.h"
#include "tests/kernels/cpu/same_bytes_check.h"
#include "tests/kernels/tensor_test_util.h"

namespace kiln::cpu {
namespace {

using namespace ::kiln::test;

// The quantized programs' two halves on ProgramBuilder.
struct Builder : ProgramBuilder {
  using ProgramBuilder::ProgramBuilder;
  // dequantize(param) = (convert(q) - zp) * scale.
  uint16_t Dequantize(uint16_t param, double scale, double zp) {
    const uint16_t x = Op(ScalarOp::kConvert, ElementType::kF32, {param});
    const uint16_t d = Op(ScalarOp::kSubtract, ElementType::kF32, {x, Const(zp)});
    return Op(ScalarOp::kMultiply, ElementType::kF32, {d, Const(scale)});
  }
  // quantize(x) = convert(round(clamp(lo, x / scale + zp, hi))).
  KernelParams Quantize(uint16_t x, double scale, double zp, double lo, double hi, ElementType t) {
    const uint16_t y = Op(ScalarOp::kAdd, ElementType::kF32, {Op(ScalarOp::kDivide, ElementType::kF32, {x, Const(scale)}), Const(zp)});
    const uint16_t c = Op(ScalarOp::kClamp, ElementType::kF32, {Const(lo), y, Const(hi)});
    const uint16_t r = Op(ScalarOp::kRoundNearestEven, ElementType::kF32, {c});
    return Kernel({Op(ScalarOp::kConvert, t, {r})});
  }
};

Tensor RandomInts(ElementType t, std::vector<int64_t> dims, std::mt19937& rng) {
  Tensor x = Zeros(t, std::move(dims));
  for (auto& b : x.bytes) b = static_cast<uint8_t>(rng());
  return x;
}

void CheckBytes(const KernelParams& p, std::vector<Tensor> ins, ElementType out_type, std::vector<int64_t> dims) {
  ASSERT_TRUE(IsQuantizedElementwise(*p.Program("body")));
  ForEachTarget([&] { ExpectSameBytesAsReference(p, ins, out_type, dims); });
}

// i8 + i8 -> i8, scales whose sums land on ties: an int8 residual add.
KernelParams ResidualAdd() {
  Builder b({ElementType::kSI8, ElementType::kSI8});
  const uint16_t s = b.Op(ScalarOp::kAdd, ElementType::kF32, {b.Dequantize(0, 0.1, 0), b.Dequantize(1, 0.05, -3)});
  return b.Quantize(s, 0.15, -2, -128, 127, ElementType::kSI8);
}

// x * 1e30 * 1e30 overflows to +-inf (saturated by the clamp); adding +inf
// and -inf (from two inputs of opposite signs) gives NaN, which the
// reference interpreter evaluates again.
KernelParams InfinitiesAndNaN() {
  Builder b({ElementType::kSI8, ElementType::kSI8});
  auto huge = [&](uint16_t param) {
    return b.Op(ScalarOp::kMultiply, ElementType::kF32,
                {b.Op(ScalarOp::kMultiply, ElementType::kF32, {b.Dequantize(param, 1.0, 0), b.Const(1e30)}),
                 b.Const(1e30)});
  };
  const uint16_t x = huge(0), y = huge(1);
  return b.Quantize(b.Op(ScalarOp::kAdd, ElementType::kF32, {x, y}), 1.0, 0, -128, 127, ElementType::kSI8);
}

TEST(CpuElementwiseQuantized, ResidualAddAndRelu6) {
  std::mt19937 rng(1);
  const std::vector<int64_t> dims = {3, 1000};  // not a multiple of the block
  CheckBytes(ResidualAdd(), {RandomInts(ElementType::kSI8, dims, rng), RandomInts(ElementType::kSI8, dims, rng)},
             ElementType::kSI8, dims);
  {
    // u8, relu6 as maximum with 0 and the narrowed range [zp, zp + 6 / scale].
    Builder b({ElementType::kUI8, ElementType::kUI8});
    const uint16_t s = b.Op(ScalarOp::kMultiply, ElementType::kF32, {b.Dequantize(0, 0.02, 128), b.Dequantize(1, 0.5, 7)});
    const uint16_t r = b.Op(ScalarOp::kMaximum, ElementType::kF32, {s, b.Const(0.0)});
    CheckBytes(b.Quantize(r, 0.05, 10, 10, 130, ElementType::kUI8),
               {RandomInts(ElementType::kUI8, dims, rng), RandomInts(ElementType::kUI8, dims, rng)}, ElementType::kUI8,
               dims);
  }
  {
    // i16 and a scalar second operand (broadcast), large enough for the pool.
    Builder b({ElementType::kSI16, ElementType::kSI16});
    const uint16_t s = b.Op(ScalarOp::kSubtract, ElementType::kF32, {b.Dequantize(0, 0.001, 5), b.Dequantize(1, 0.25, 0)});
    KernelParams p = b.Quantize(s, 0.003, 0, -32768, 32767, ElementType::kSI16);
    p.attrs.push_back(Ints("input_broadcast", {2, 0, 1, 0}));  // per input: its rank, then its axes in the result
    const std::vector<int64_t> big = {600, 1000};
    ASSERT_NO_FATAL_FAILURE(CheckBytes(p, {RandomInts(ElementType::kSI16, big, rng), RandomInts(ElementType::kSI16, {}, rng)},
                                       ElementType::kSI16, big));
  }
}

TEST(CpuElementwiseQuantized, InfinityAndNaNAsTheReference) {
  std::mt19937 rng(2);
  const std::vector<int64_t> dims = {4, 300};
  CheckBytes(InfinitiesAndNaN(), {RandomInts(ElementType::kSI8, dims, rng), RandomInts(ElementType::kSI8, dims, rng)},
             ElementType::kSI8, dims);
}

// CheckBytes with the executable's KernelState, as the CPU device calls
// the kernel: the first call builds the program's table, the later ones
// (one on the pool) look it up again.
void CheckTabulated(const KernelParams& p, std::vector<Tensor> ins, ElementType out_type, std::vector<int64_t> dims) {
  ASSERT_TRUE(IsQuantizedElementwise(*p.Program("body")));
  KernelFn fast = FindCpuKernel(p);
  KernelFn ref = ref::FindReferenceKernel(p.kernel);
  ASSERT_NE(fast, nullptr);
  std::vector<TensorRef> in;
  for (Tensor& t : ins) in.push_back(t.ref());
  Tensor want = Zeros(out_type, dims);
  TensorRef w[1] = {want.ref()};
  ASSERT_TRUE(ref(KernelCall{p, in, w, nullptr}).ok());
  ForEachTarget([&] {
    KernelState state;
    for (TaskRunner* runner : {static_cast<TaskRunner*>(nullptr), static_cast<TaskRunner*>(nullptr), TestPool()}) {
      Tensor got = Zeros(out_type, dims);
      std::memset(got.bytes.data(), 0x5A, got.bytes.size());
      TensorRef g[1] = {got.ref()};
      ASSERT_TRUE(fast(KernelCall{p, in, g, runner, false, &state}).ok());
      EXPECT_EQ(got.bytes, want.bytes);
    }
  });
}

TEST(CpuElementwiseQuantized, EightBitProgramsLookedUpInTheirTables) {
  // One or two 8-bit inputs into an 8-bit result over enough elements are
  // looked up in a table of every input value (TabulateProgram); the table
  // comes from the block evaluation itself (its NaN elements redone by the
  // reference), so the bytes stay the reference's. Every byte pair occurs
  // in 20,000 random ones about once in three.
  std::mt19937 rng(3);
  const std::vector<int64_t> dims = {20, 1000};
  CheckTabulated(ResidualAdd(), {RandomInts(ElementType::kSI8, dims, rng), RandomInts(ElementType::kSI8, dims, rng)},
             ElementType::kSI8, dims);
  {
    // Mixed storage types, a narrowed u8 range, the second input one value.
    Builder b({ElementType::kUI8, ElementType::kSI8});
    const uint16_t s = b.Op(ScalarOp::kMultiply, ElementType::kF32, {b.Dequantize(0, 0.02, 128), b.Dequantize(1, 0.5, 7)});
    KernelParams p = b.Quantize(s, 0.05, 10, 10, 130, ElementType::kUI8);
    p.attrs.push_back(Ints("input_broadcast", {2, 0, 1, 0}));
    CheckTabulated(p, {RandomInts(ElementType::kUI8, dims, rng), RandomInts(ElementType::kSI8, {}, rng)}, ElementType::kUI8,
               dims);
  }
  {
    // One input: a quantized relu into a narrowed i8 range.
    Builder b({ElementType::kSI8});
    const uint16_t r = b.Op(ScalarOp::kMaximum, ElementType::kF32, {b.Dequantize(0, 0.07, 5), b.Const(0.0)});
    CheckTabulated(b.Quantize(r, 0.03, -100, -100, 100, ElementType::kSI8), {RandomInts(ElementType::kSI8, {3, 700}, rng)},
               ElementType::kSI8, {3, 700});
  }
  // The overflow to infinities and the NaN, tabulated.
  CheckTabulated(InfinitiesAndNaN(), {RandomInts(ElementType::kSI8, dims, rng), RandomInts(ElementType::kSI8, dims, rng)},
             ElementType::kSI8, dims);
}

TEST(CpuElementwiseQuantized, OtherProgramsStayWithTheReference) {
  // A result that is not clamped into its type, a divisor that is not a
  // constant, an op outside the form, an f32 result.
  Builder unclamped({ElementType::kSI8});
  unclamped.Quantize(unclamped.Dequantize(0, 0.5, 0), 0.5, 0, -200, 127, ElementType::kSI8);
  EXPECT_FALSE(IsQuantizedElementwise(unclamped.p));
  Builder divisor({ElementType::kSI8, ElementType::kSI8});
  const uint16_t q = divisor.Op(ScalarOp::kDivide, ElementType::kF32, {divisor.Dequantize(0, 1, 0), divisor.Dequantize(1, 1, 0)});
  divisor.Quantize(q, 1, 0, -128, 127, ElementType::kSI8);
  EXPECT_FALSE(IsQuantizedElementwise(divisor.p));
  Builder exp({ElementType::kSI8});
  exp.Quantize(exp.Op(ScalarOp::kExponential, ElementType::kF32, {exp.Dequantize(0, 0.1, 0)}), 0.1, 0, -128, 127,
               ElementType::kSI8);
  EXPECT_FALSE(IsQuantizedElementwise(exp.p));
  Builder dequantize({ElementType::kSI8});
  dequantize.p.results = {dequantize.Dequantize(0, 0.5, 1)};
  EXPECT_FALSE(IsQuantizedElementwise(dequantize.p));
}

}  // namespace
}  // namespace kiln::cpu
