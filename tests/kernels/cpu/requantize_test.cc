// The fast requantize (kernels/cpu/requantize.cc: uniform_quantize of i32
// into i8/ui8, f32) against the reference, byte for byte, on every Highway
// target: random sums of
// every magnitude, ties, saturation, a narrowed storage range, per-tensor
// and per-axis parameters on every axis (operand and result on different
// axes), per-axis accumulators on the innermost axis, and the calls it
// leaves to the reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/registry.h"
#include "kernels/cpu/requantize.h"
#include "kernels/reference/registry.h"
#include "tests/kernels/cpu/hwy_test_util.h"
#include "tests/kernels/cpu/test_pool.h"
#include "tests/kernels/tensor_test_util.h"

namespace kiln::cpu {
namespace {

using namespace ::kiln::test;  // Tensor, Zeros, Ints

KernelAttr Floats(std::string name, std::vector<double> v) {
  KernelAttr a;
  a.name = std::move(name);
  a.floats = std::move(v);
  return a;
}

// Parameters of one side: per-tensor (axis < 0) or per-axis over `size`.
void AddSide(KernelParams* p, const std::string& prefix, int64_t axis, int64_t size, std::mt19937& rng) {
  std::uniform_real_distribution<double> scale(1e-4, 2.0);
  std::uniform_int_distribution<int> zp(-20, 20);
  const int64_t n = axis < 0 ? 1 : size;
  std::vector<double> s;
  std::vector<int64_t> z;
  for (int64_t i = 0; i < n; ++i) {
    s.push_back(scale(rng));
    z.push_back(zp(rng));
  }
  p->attrs.push_back(Floats(prefix + "scales", s));
  p->attrs.push_back(Ints(prefix + "zero_points", z));
  if (axis >= 0) p->attrs.push_back(Ints(prefix + "quantized_dimension", {axis}));
}

Tensor RandomI32(std::vector<int64_t> dims, std::mt19937& rng) {
  Tensor x = Zeros(ElementType::kSI32, std::move(dims));
  std::vector<int32_t> v(static_cast<size_t>(x.count()));
  std::uniform_int_distribution<int> mag(0, 31);
  for (auto& e : v) {
    const int bits = mag(rng);
    // Every magnitude, [-2^bits, 2^bits), in 64 bits so that bits = 31 does not overflow.
    e = static_cast<int32_t>(static_cast<int64_t>(rng() >> (31 - bits)) - (int64_t{1} << bits));
  }
  std::memcpy(x.bytes.data(), v.data(), x.bytes.size());
  return x;
}

Status RunKernel(KernelFn fn, const KernelParams& p, std::vector<Tensor*> ins, std::vector<Tensor*> outs,
                 TaskRunner* runner = nullptr) {
  std::vector<TensorRef> in_refs, out_refs;
  for (Tensor* t : ins) in_refs.push_back(t->ref());
  for (Tensor* t : outs) out_refs.push_back(t->ref());
  return fn(KernelCall{p, in_refs, out_refs, runner});
}

void Check(const KernelParams& p, Tensor in, ElementType out_type) {
  KernelFn fast = FindCpuKernel(p);
  ASSERT_NE(fast, nullptr);
  KernelFn ref = ref::FindReferenceKernel(p.kernel);
  Tensor want = Zeros(out_type, in.dims), got = Zeros(out_type, in.dims), threaded = Zeros(out_type, in.dims);
  ASSERT_TRUE(RunKernel(ref, p, {&in}, {&want}).ok());
  ForEachTarget([&] {
    std::memset(got.bytes.data(), 0x5A, got.bytes.size());
    ASSERT_TRUE(RunKernel(fast, p, {&in}, {&got}).ok());
    EXPECT_EQ(got.bytes, want.bytes);
    ASSERT_TRUE(RunKernel(fast, p, {&in}, {&threaded}, TestPool()).ok());
    EXPECT_EQ(threaded.bytes, want.bytes);
  });
}

KernelParams Requantize() {
  KernelParams p;
  p.kernel = "stablehlo.uniform_quantize";
  return p;
}

TEST(CpuRequantize, EveryAxisBothStorageTypes) {
  std::mt19937 rng(3);
  const std::vector<int64_t> dims = {3, 17, 130};
  for (ElementType t : {ElementType::kSI8, ElementType::kUI8})
    for (int64_t in_axis = -1; in_axis < 3; ++in_axis)
      for (int64_t out_axis = -1; out_axis < 3; ++out_axis) {
        SCOPED_TRACE("axes " + std::to_string(in_axis) + " -> " + std::to_string(out_axis));
        KernelParams p = Requantize();
        AddSide(&p, "operand_", in_axis, in_axis < 0 ? 1 : dims[in_axis], rng);
        AddSide(&p, "", out_axis, out_axis < 0 ? 1 : dims[out_axis], rng);
        Check(p, RandomI32(dims, rng), t);
      }
}

TEST(CpuRequantize, PerAxisInnermostAccumulators) {
  // The integer form's accumulators (operand zero points 0) per-axis on the
  // innermost axis, the result per-tensor or on the same axis: rows of
  // per-lane parameters; large enough for chunks that end inside a row.
  std::mt19937 rng(6);
  for (ElementType t : {ElementType::kSI8, ElementType::kUI8})
    for (int64_t out_axis : {int64_t{-1}, int64_t{1}}) {
      for (std::vector<int64_t> dims : {std::vector<int64_t>{5, 130}, std::vector<int64_t>{1100, 130}}) {
        SCOPED_TRACE("rows " + std::to_string(dims[0]) + ", result axis " + std::to_string(out_axis));
        KernelParams p = Requantize();
        AddSide(&p, "operand_", 1, dims[1], rng);
        for (auto& a : p.attrs)
          if (a.name == "operand_zero_points") a.ints.assign(a.ints.size(), 0);
        AddSide(&p, "", out_axis, dims[1], rng);
        Check(p, RandomI32(dims, rng), t);
      }
    }
}

TEST(CpuRequantize, OperandZeroPointsThatOverflow32Bits) {
  // q - zp past the i32 range (the reference subtracts in 64 bits): sums
  // at both ends of i32 with zero points of both signs, per tensor and per
  // lane of the innermost axis (a folded zero-point correction's form).
  std::vector<int32_t> v;
  for (int32_t k = 0; k < 64; ++k) {
    v.push_back(INT32_MIN + k * 37);
    v.push_back(INT32_MAX - k * 37);
    v.push_back(k * 1000 - 32000);
  }
  for (int64_t axis : {int64_t{-1}, int64_t{1}}) {
    KernelParams p = Requantize();
    const int64_t n = axis < 0 ? 1 : 48;
    std::vector<double> scales;
    std::vector<int64_t> zps;
    for (int64_t c = 0; c < n; ++c) {
      scales.push_back(1e-7 * static_cast<double>(c + 1));
      zps.push_back(c % 2 ? 1500 + c : -1500 - c);
    }
    p.attrs.push_back(Floats("operand_scales", scales));
    p.attrs.push_back(Ints("operand_zero_points", zps));
    if (axis >= 0) p.attrs.push_back(Ints("operand_quantized_dimension", {axis}));
    p.attrs.push_back(Floats("scales", {0.5}));
    p.attrs.push_back(Ints("zero_points", {0}));
    SCOPED_TRACE("axis " + std::to_string(axis));
    Check(p, Make(ElementType::kSI32, {4, 48}, v), ElementType::kSI8);
  }
}

TEST(CpuRequantize, TiesSaturationAndANarrowRange) {
  // acc * 0.125 / 0.25 = acc / 2: every odd sum is a tie; a narrowed range.
  KernelParams p = Requantize();
  p.attrs.push_back(Floats("operand_scales", {0.125}));
  p.attrs.push_back(Floats("scales", {0.25}));
  p.attrs.push_back(Ints("zero_points", {3}));
  p.attrs.push_back(Ints("storage_min", {-100}));
  p.attrs.push_back(Ints("storage_max", {90}));
  std::vector<int32_t> v;
  for (int32_t i = -300; i <= 300; ++i) v.push_back(i);
  v.push_back(INT32_MIN);
  v.push_back(INT32_MAX);
  Check(p, Make(ElementType::kSI32, {static_cast<int64_t>(v.size())}, v), ElementType::kSI8);
  // A large tensor: split over the pool.
  std::mt19937 rng(4);
  Check(p, RandomI32({1 << 18}, rng), ElementType::kSI8);
}

// Requantizer::Run over the sums `v` ([v.size() / row][row]) with their
// known bound, into both storage types, against the reference byte for
// byte on every target. `storage(t)` may narrow the storage range (null:
// the full range); `segments`: in pieces of odd lengths, each starting
// where the last ended (row segments that start inside a row).
using StorageRange = std::vector<int64_t> (*)(ElementType);
void CheckBounded(const KernelParams& p, const std::vector<int32_t>& v, int64_t row, int32_t bound, bool segments,
                  StorageRange storage = nullptr) {
  for (ElementType t : {ElementType::kSI8, ElementType::kUI8}) {
    SCOPED_TRACE(std::string(Name(t)));
    KernelParams pt = p;
    if (storage != nullptr) {
      const std::vector<int64_t> range = storage(t);
      pt.attrs.push_back(Ints("storage_min", {range[0]}));
      pt.attrs.push_back(Ints("storage_max", {range[1]}));
    }
    Tensor in = Make(ElementType::kSI32, {static_cast<int64_t>(v.size()) / row, row}, v);
    Tensor want = Zeros(t, in.dims);
    ASSERT_TRUE(RunKernel(ref::FindReferenceKernel(pt.kernel), pt, {&in}, {&want}).ok());
    ForEachTarget([&] {
      Requantizer rq;
      ASSERT_TRUE(rq.Init(pt, "operand_", in.dims, ElementType::kSI32, t));
      std::vector<uint8_t> got(v.size(), 0x5A);
      const int64_t n = static_cast<int64_t>(v.size());
      for (int64_t b = 0, len = segments ? 1 : n; b < n; b += len, len = segments ? len * 3 % 97 + 1 : n)
        rq.Run(v.data() + b, b, std::min(b + len, n), got.data() + b, bound);
      EXPECT_EQ(got, want.bytes);
    });
  }
}

TEST(CpuRequantize, BoundedSumsRoundBeforeTheyClamp) {
  // A fused producer's accumulators with a known bound (Requantizer::Run's
  // q_bound): the quotient is rounded to an integer first and clamped
  // after, in integers (AVX-512). Per-lane operand scales whose ratio to
  // the result scale is 0.5, 1 or 1.5 (odd sums are ties), operand zero
  // points, sums past both ends of narrowed ranges, both storage types,
  // row segments that start inside a row; rows shorter than the AVX-512
  // loop's 64 elements and longer, whole and in segments.
  constexpr int64_t kBound = 5000;
  for (int64_t row : {37, 200}) {
    SCOPED_TRACE(row);
    KernelParams p = Requantize();
    std::vector<double> scales;
    std::vector<int64_t> zps;
    for (int64_t j = 0; j < row; ++j) {
      scales.push_back(0.125 * static_cast<double>(1 + j % 3));
      zps.push_back(j % 5 - 2);
    }
    p.attrs.push_back(Floats("operand_scales", scales));
    p.attrs.push_back(Ints("operand_zero_points", zps));
    p.attrs.push_back(Ints("operand_quantized_dimension", {1}));
    p.attrs.push_back(Floats("scales", {0.25}));
    p.attrs.push_back(Ints("zero_points", {3}));
    std::mt19937 rng(8);
    std::uniform_int_distribution<int32_t> q(-kBound, kBound), small(-300, 300);
    std::vector<int32_t> v(static_cast<size_t>(row * 40));
    for (size_t i = 0; i < v.size(); ++i) v[i] = i % 2 ? q(rng) : small(rng);
    for (bool segments : {true, false})
      CheckBounded(p, v, row, kBound, segments, [](ElementType t) -> std::vector<int64_t> {
        return t == ElementType::kSI8 ? std::vector<int64_t>{-100, 90} : std::vector<int64_t>{3, 250};
      });
  }
}

TEST(CpuRequantize, BoundedSumsOverArbitraryScales) {
  // The bounded form's quotient by a reciprocal and Markstein's correction
  // (requant::Run::r_out, AVX-512) must round as the reference's division:
  // per-lane operand and result scales drawn log-uniformly (none a power
  // of two), sums up to 2^20, so that quotients span many binades and
  // near-ties of the division occur.
  constexpr int64_t kRow = 64, kBound = 1 << 20;
  std::mt19937 rng(12);
  std::uniform_real_distribution<double> e_in(-14, -7), e_out(-9, 0);
  std::vector<double> s_in, s_out;
  std::vector<int64_t> z_in, z_out;
  for (int64_t j = 0; j < kRow; ++j) {
    s_in.push_back(std::exp2(e_in(rng)));
    s_out.push_back(std::exp2(e_out(rng)));
    z_in.push_back(0);
    z_out.push_back(j % 7 - 3);
  }
  KernelParams p = Requantize();
  p.attrs.push_back(Floats("operand_scales", s_in));
  p.attrs.push_back(Ints("operand_zero_points", z_in));
  p.attrs.push_back(Ints("operand_quantized_dimension", {1}));
  p.attrs.push_back(Floats("scales", s_out));
  p.attrs.push_back(Ints("zero_points", z_out));
  p.attrs.push_back(Ints("quantized_dimension", {1}));
  std::uniform_int_distribution<int32_t> q(-kBound, kBound), small(-2000, 2000);
  std::vector<int32_t> v(static_cast<size_t>(kRow * 4000));
  for (size_t i = 0; i < v.size(); ++i) v[i] = i % 3 ? small(rng) : q(rng);
  CheckBounded(p, v, kRow, kBound, /*segments=*/false);
}

TEST(CpuRequantize, QuotientsNextToTies) {
  // Result scales chosen so that q / s_out lies within an ulp or two of
  // n + 1/2 (s_out = q / (n + 1/2) rounded to f32): only a correctly
  // rounded quotient rounds to the reference's integer there, so a
  // reciprocal without Markstein's correction fails here.
  constexpr int64_t kRow = 64, kBound = 1 << 17;
  std::mt19937 rng(13);
  std::uniform_int_distribution<int32_t> qd(1000, 100000), nd(0, 120);
  std::vector<int32_t> qs;
  std::vector<double> s_out;
  std::vector<int64_t> z_out;
  for (int64_t j = 0; j < kRow; ++j) {
    const int32_t q = qd(rng);
    qs.push_back(q);
    s_out.push_back(static_cast<float>(static_cast<double>(q) / (nd(rng) + 0.5)));
    z_out.push_back(0);
  }
  KernelParams p = Requantize();
  p.attrs.push_back(Floats("operand_scales", {1.0}));
  p.attrs.push_back(Ints("operand_zero_points", {0}));
  p.attrs.push_back(Floats("scales", s_out));
  p.attrs.push_back(Ints("zero_points", z_out));
  p.attrs.push_back(Ints("quantized_dimension", {1}));
  std::vector<int32_t> v;
  for (int32_t delta : {0, 1, -1, 2, -2, 3})
    for (int32_t sign : {1, -1})
      for (int64_t j = 0; j < kRow; ++j) v.push_back(sign * (qs[j] + delta));
  CheckBounded(p, v, kRow, kBound, /*segments=*/false);
}

TEST(CpuRequantize, OtherCallsGoToTheReference) {
  std::mt19937 rng(5);
  KernelParams p = Requantize();
  AddSide(&p, "operand_", -1, 1, rng);
  AddSide(&p, "", -1, 1, rng);
  // An i16 result: the reference runs it, with the same bytes.
  Check(p, RandomI32({7, 5}, rng), ElementType::kSI16);
  // A float operand (quantize, not requantize) is not this kernel's.
  KernelParams q = Requantize();
  AddSide(&q, "", -1, 1, rng);
  EXPECT_EQ(FindCpuKernel(q), nullptr);
  // Per-axis scales that do not fit the shape: the reference's error.
  KernelParams bad = Requantize();
  AddSide(&bad, "operand_", 1, 4, rng);
  AddSide(&bad, "", -1, 1, rng);
  Tensor in = RandomI32({2, 3}, rng), out = Zeros(ElementType::kSI8, {2, 3});
  EXPECT_FALSE(RunKernel(FindCpuKernel(bad), bad, {&in}, {&out}).ok());
}

}  // namespace
}  // namespace kiln::cpu
