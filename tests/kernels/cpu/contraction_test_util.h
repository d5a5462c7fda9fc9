// Shared by the fast CPU dot_general and convolution tests (the convolution
// runs on the dot_general GEMM): f32/f64 operands, and the check of the fast
// kernel, on every Highway target, against the reference. The fast kernel
// accumulates in the element type, the reference in double, so results are
// compared with a tolerance scaled by K * eps * sum|a*b| (computed by running
// the reference on |lhs| and |rhs|).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/kernel_state.h"
#include "kernels/cpu/gemm_bf16.h"
#include "kernels/cpu/half_float.h"
#include "kernels/cpu/registry.h"
#include "kernels/reference/registry.h"
#include "kernels/scalar/scalar.h"
#include "tests/kernels/cpu/hwy_test_util.h"
#include "tests/kernels/cpu/test_pool.h"
#include "tests/kernels/tensor_test_util.h"

namespace kiln::cpu::contraction_test {

using namespace ::kiln::test;  // Tensor, Zeros, Ints

inline bool Is16(ElementType t) { return t == ElementType::kF16 || t == ElementType::kBF16; }

// Element i of an f32, f64, f16 or bf16 tensor, and its store (rounded to
// nearest even into a 16-bit type, by the reference codec).
inline double ValueAt(const Tensor& x, int64_t i) {
  return Is16(x.type) ? ref::LoadScalar(x.type, x.bytes.data() + 2 * i).re : x.Get(i);
}
inline void SetAt(Tensor& x, int64_t i, double v) {
  if (Is16(x.type)) {
    ref::StoreScalar(x.type, Scalar{0, v, 0}, x.bytes.data() + 2 * i);
  } else {
    x.Set(i, v);
  }
}

// A float tensor with every element `fill`.
inline Tensor Filled(ElementType t, std::vector<int64_t> dims, double fill = 0) {
  Tensor x = Zeros(t, std::move(dims));
  for (int64_t i = 0; i < x.count(); ++i) SetAt(x, i, fill);
  return x;
}

// Values uniform in [-1, 1].
inline Tensor Random(ElementType t, std::vector<int64_t> dims, std::mt19937& rng) {
  Tensor x = Filled(t, std::move(dims));
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int64_t i = 0; i < x.count(); ++i) SetAt(x, i, u(rng));
  return x;
}

// |x|, for the tolerance (f16/bf16: the sign bit cleared).
inline Tensor Abs(const Tensor& x) {
  Tensor y = x;
  if (x.type == ElementType::kF16 || x.type == ElementType::kBF16) {
    for (size_t i = 1; i < y.bytes.size(); i += 2) y.bytes[i] &= 0x7F;
    return y;
  }
  for (int64_t i = 0; i < y.count(); ++i) y.Set(i, std::fabs(x.Get(i)));
  return y;
}

inline Status RunKernel(KernelFn fn, const KernelParams& p, Tensor& lhs, Tensor& rhs, Tensor& out,
                        TaskRunner* runner = nullptr) {
  TensorRef in[2] = {lhs.ref(), rhs.ref()};
  TensorRef o[1] = {out.ref()};
  return fn(KernelCall{p, in, o, runner});
}

// The f32 result bytes of the fast kernel `fn` on lhs and rhs (rhs a
// constant of id `rhs_constant` where non-zero), with the executable state
// `state` (may be null) and the bf16 GEMM switched off or not
// (gemm_bf16.h; switched back on after).
inline std::vector<uint8_t> RunBf16Case(KernelFn fn, const KernelParams& p, Tensor& lhs, Tensor& rhs,
                                        std::vector<int64_t> out_dims, KernelState* state, uint64_t rhs_constant,
                                        bool bf16_off, ElementType out_type = ElementType::kF32) {
  SetGemmBf16DisabledForTest(bf16_off);
  Tensor out = Filled(out_type, std::move(out_dims));
  TensorRef in[2] = {lhs.ref(), rhs.ref()};
  in[1].constant_id = rhs_constant;
  TensorRef o[1] = {out.ref()};
  KernelCall call{p, in, o, nullptr};
  call.state = state;
  EXPECT_TRUE(fn(call).ok());
  SetGemmBf16DisabledForTest(false);
  return out.bytes;
}

// A 16-bit result of bf16 operands (`p` a dot_general or convolution) is
// the f32 result's sums rounded once to nearest even, bit for bit, on the
// bf16 GEMM's AMX and vdpbf16ps forms (which round each tile's sums as it
// finishes, not in a pass over an f32 copy), f16 and bf16 alike.
inline void ExpectHalfResultsRoundTheF32Sums(const KernelParams& p, Tensor& lhs, Tensor& rhs,
                                             const std::vector<int64_t>& out_dims) {
  KernelFn fast = FindCpuKernel(p);
  ASSERT_NE(fast, nullptr);
  for (bool amx_off : {false, true}) {
    SetGemmBf16AmxDisabledForTest(amx_off);
    const std::vector<uint8_t> sums = RunBf16Case(fast, p, lhs, rhs, out_dims, nullptr, 0, false);
    for (ElementType half : {ElementType::kBF16, ElementType::kF16}) {
      const std::vector<uint8_t> got = RunBf16Case(fast, p, lhs, rhs, out_dims, nullptr, 0, false, half);
      ASSERT_EQ(got.size() * 2, sums.size());
      int64_t differ = 0;
      for (size_t i = 0; i < got.size() / 2; ++i) {
        float x;
        std::memcpy(&x, sums.data() + 4 * i, 4);
        const uint16_t want = half == ElementType::kBF16 ? F32ToBF16(x) : F32ToF16(x);
        uint16_t bits;
        std::memcpy(&bits, got.data() + 2 * i, 2);
        differ += bits != want;
      }
      EXPECT_EQ(differ, 0) << (half == ElementType::kBF16 ? "bf16" : "f16") << " result, AMX "
                           << (amx_off ? "off" : "where present");
    }
  }
  SetGemmBf16AmxDisabledForTest(false);
}

// One configuration of the fast kernel to check against the same reference
// result: its name in failures and what sets it up before each run (a test
// hook such as SetGemmBf16DisabledForTest).
struct FastVariant {
  const char* name;
  std::function<void()> setup;
};

// The bf16 GEMM (gemm_bf16.h, AVX-512 BF16 CPUs) where the CPU has it (on
// AMX tiles where present), on vdpbf16ps with AMX off, and switched off
// (operands widened to f32). The last leaves both hooks as they were.
inline std::vector<FastVariant> Bf16GemmOnAndOff() {
  return {{"bf16 GEMM where the CPU has it",
           [] {
             SetGemmBf16DisabledForTest(false);
             SetGemmBf16AmxDisabledForTest(false);
           }},
          {"bf16 GEMM on vdpbf16ps",
           [] {
             SetGemmBf16DisabledForTest(false);
             SetGemmBf16AmxDisabledForTest(true);
           }},
          {"bf16 GEMM off", [] {
             SetGemmBf16DisabledForTest(true);
             SetGemmBf16AmxDisabledForTest(false);
           }}};
}

// Runs the reference once and the fast kernel on every Highway target (and
// in each variant), and compares. `k` is the contraction length (for the
// tolerance); the result has lhs's type unless `out_type` says otherwise
// (f32 from f16/bf16).
inline void Check(const KernelParams& p, Tensor lhs, Tensor rhs, std::vector<int64_t> out_dims, int64_t k,
                  ElementType out_type = ElementType::kInvalid,
                  const std::vector<FastVariant>& variants = {{"", nullptr}}) {
  SCOPED_TRACE(p.kernel);
  const ElementType ot = out_type == ElementType::kInvalid ? lhs.type : out_type;
  KernelFn fast = FindCpuKernel(p);
  ASSERT_NE(fast, nullptr);
  KernelFn ref = ref::FindReferenceKernel(p.kernel);
  ASSERT_NE(ref, nullptr);
  Tensor want = Filled(ot, out_dims);
  Tensor mag = Filled(ot, out_dims);
  ASSERT_TRUE(RunKernel(ref, p, lhs, rhs, want).ok());
  Tensor alhs = Abs(lhs), arhs = Abs(rhs);
  ASSERT_TRUE(RunKernel(ref, p, alhs, arhs, mag).ok());
  // A 16-bit result: its own rounding (the sum is f32 either way).
  const double eps = ot == ElementType::kF64    ? 0x1p-52
                     : ot == ElementType::kBF16 ? 0x1p-8
                     : ot == ElementType::kF16  ? 0x1p-11
                                                : 0x1p-23;
  for (const FastVariant& variant : variants) ForEachTarget([&] {
    SCOPED_TRACE(variant.name);
    if (variant.setup) variant.setup();
    // Garbage in the fast output: every element must be written.
    Tensor got = Filled(ot, out_dims, 12345.0);
    ASSERT_TRUE(RunKernel(fast, p, lhs, rhs, got).ok());
    // Split over the thread pool, the tiles accumulate in the same order:
    // the result must be bit-identical to the single-threaded one.
    Tensor threaded = Filled(ot, out_dims, -777.0);
    ASSERT_TRUE(RunKernel(fast, p, lhs, rhs, threaded, TestPool()).ok());
    ASSERT_EQ(threaded.bytes, got.bytes) << "threaded result differs from the single-threaded one";
    int bad = 0;
    for (int64_t i = 0; i < want.count() && bad < 10; ++i) {
      const double w = ValueAt(want, i), g = ValueAt(got, i);
      if (std::isnan(w) || std::isinf(w)) {
        const bool same = std::isnan(w) ? std::isnan(g) : g == w;
        EXPECT_TRUE(same) << "element " << i << ": got " << g << ", want " << w;
        bad += !same;
        continue;
      }
      const double tol = static_cast<double>(k + 2) * eps * ValueAt(mag, i) + 1e-300;
      const bool ok = std::fabs(g - w) <= tol;
      EXPECT_TRUE(ok) << "element " << i << ": got " << g << ", want " << w << " (tol " << tol << ")";
      bad += !ok;
    }
  });
}

// A convolution's shapes and attributes (dimension numbers as the kernel
// reads them), and its KernelParams.
struct ConvSpec {
  std::vector<int64_t> lhs_dims, rhs_dims, out_dims;
  int64_t ib, ifd, kif, kof, ob, ofd;
  std::vector<int64_t> isp, ksp, osp, strides, padding, rhs_dil, reversal;
  int64_t groups = 1;
};

inline KernelParams ConvParams(const ConvSpec& c) {
  KernelParams p;
  p.kernel = "stablehlo.convolution";
  p.attrs.push_back(Ints("input_batch_dimension", {c.ib}));
  p.attrs.push_back(Ints("input_feature_dimension", {c.ifd}));
  p.attrs.push_back(Ints("input_spatial_dimensions", c.isp));
  p.attrs.push_back(Ints("kernel_input_feature_dimension", {c.kif}));
  p.attrs.push_back(Ints("kernel_output_feature_dimension", {c.kof}));
  p.attrs.push_back(Ints("kernel_spatial_dimensions", c.ksp));
  p.attrs.push_back(Ints("output_batch_dimension", {c.ob}));
  p.attrs.push_back(Ints("output_feature_dimension", {c.ofd}));
  p.attrs.push_back(Ints("output_spatial_dimensions", c.osp));
  if (!c.strides.empty()) p.attrs.push_back(Ints("window_strides", c.strides));
  if (!c.padding.empty()) p.attrs.push_back(Ints("padding", c.padding));
  if (!c.rhs_dil.empty()) p.attrs.push_back(Ints("rhs_dilation", c.rhs_dil));
  if (!c.reversal.empty()) p.attrs.push_back(Ints("window_reversal", c.reversal));
  p.attrs.push_back(Ints("feature_group_count", {c.groups}));
  p.attrs.push_back(Ints("batch_group_count", {1}));
  return p;
}

}  // namespace kiln::cpu::contraction_test
