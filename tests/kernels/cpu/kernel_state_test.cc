// Per-executable kernel state (kernels/common/kernel_state.h): plans reused
// across dispatches and constant GEMM operands packed once. The results with
// state must be the bits of the results without it (the same kernel builds
// everything per call), on random inputs of odd sizes, every Highway target,
// one thread and the pool; a constant B is packed once however many calls
// use it, and a different constant, address or shape is packed on its own;
// the same for channel-last convolutions' constant weights.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/kernel_state.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/registry.h"
#include "tests/kernels/cpu/contraction_test_util.h"
#include "tests/kernels/cpu/hwy_test_util.h"
#include "tests/kernels/cpu/test_pool.h"

namespace kiln::cpu {
namespace {

using namespace contraction_test;  // Tensor, Filled, Random, Ints

KernelParams DotGeneral(std::vector<int64_t> lb, std::vector<int64_t> rb, std::vector<int64_t> lc,
                        std::vector<int64_t> rc) {
  KernelParams p;
  p.kernel = "stablehlo.dot_general";
  if (!lb.empty()) p.attrs.push_back(Ints("lhs_batching_dimensions", lb));
  if (!rb.empty()) p.attrs.push_back(Ints("rhs_batching_dimensions", rb));
  p.attrs.push_back(Ints("lhs_contracting_dimensions", lc));
  p.attrs.push_back(Ints("rhs_contracting_dimensions", rc));
  return p;
}

Status RunDot(const KernelParams& p, Tensor& lhs, Tensor& rhs, uint64_t rhs_constant, Tensor& out, KernelState* state,
           TaskRunner* runner) {
  TensorRef in[2] = {lhs.ref(), rhs.ref()};
  in[1].constant_id = rhs_constant;
  TensorRef o[1] = {out.ref()};
  KernelFn fn = FindCpuKernel(p);
  if (fn == nullptr) return Internal("no fast kernel");
  return fn(KernelCall{p, in, o, runner, false, state});
}

struct Case {
  KernelParams params;
  std::vector<int64_t> lhs, rhs, out;
};

// Shapes for every path that packs B: the independent tiles (small), the
// per-step path above 2^26 multiply-adds, a transposed B (gathered columns),
// batch dims, odd sizes around the panel widths; and the row-streaming path
// (m <= 4), which reads B in place and must not pack it.
std::vector<Case> Cases() {
  return {
      {DotGeneral({}, {}, {1}, {0}), {5, 17}, {17, 3}, {5, 3}},
      {DotGeneral({}, {}, {1}, {0}), {64, 784}, {784, 129}, {64, 129}},
      {DotGeneral({}, {}, {1}, {0}), {33, 65}, {65, 63}, {33, 63}},
      {DotGeneral({}, {}, {1}, {1}), {7, 300}, {33, 300}, {7, 33}},
      {DotGeneral({0}, {0}, {2}, {1}), {3, 9, 31}, {3, 31, 17}, {3, 9, 17}},
      {DotGeneral({}, {}, {1}, {0}), {520, 300}, {300, 440}, {520, 440}},
      {DotGeneral({}, {}, {1}, {0}), {1, 784}, {784, 128}, {1, 128}},
  };
}

KILN_TEST_ALL_TARGETS(CpuKernelState, PackedWeightsBitIdenticalAndPackedOnce) {
  std::mt19937 rng(19);
  for (const Case& c : Cases()) {
    SCOPED_TRACE(std::to_string(c.lhs[0]) + "x" + std::to_string(c.rhs.back()));
    Tensor rhs = Random(ElementType::kF32, c.rhs, rng);
    for (TaskRunner* runner : {static_cast<TaskRunner*>(nullptr), TestPool()}) {
      KernelState state;
      const uint64_t before = WholeBPacks();
      // Several calls with new activations each time, as a layer sees them.
      for (int call = 0; call < 3; ++call) {
        Tensor lhs = Random(ElementType::kF32, c.lhs, rng);
        Tensor plain = Filled(ElementType::kF32, c.out, 12345.0);
        ASSERT_TRUE(RunDot(c.params, lhs, rhs, 0, plain, nullptr, runner).ok());
        Tensor packed = Filled(ElementType::kF32, c.out, -777.0);
        ASSERT_TRUE(RunDot(c.params, lhs, rhs, /*rhs_constant=*/1001, packed, &state, runner).ok());
        ASSERT_EQ(packed.bytes, plain.bytes) << "call " << call << ": packed weights change the result";
      }
      const bool streams = c.lhs[0] <= kGemvRows && c.params.Ints("rhs_contracting_dimensions")[0] == 0;
      EXPECT_EQ(WholeBPacks() - before, streams ? 0u : 1u) << "a constant B is packed once, or not at all";
      if (!streams) {
        EXPECT_GT(state.bytes(), 0u) << "the packed B stays in the state";
      }
    }
  }
}

// A bf16 constant B of an f32 product (JAX's mixed precision): widened to
// f32 only when its panels are packed, then packed once; the same bits as
// without state (where it is widened every call).
TEST(CpuKernelState, Bf16WeightsWidenedAndPackedOnce) {
  std::mt19937 rng(23);
  const KernelParams p = DotGeneral({}, {}, {1}, {0});
  Tensor wide = Random(ElementType::kF32, {300, 129}, rng);
  Tensor rhs = Zeros(ElementType::kBF16, {300, 129});
  for (int64_t i = 0; i < rhs.count(); ++i) std::memcpy(rhs.bytes.data() + 2 * i, wide.bytes.data() + 4 * i + 2, 2);
  for (TaskRunner* runner : {static_cast<TaskRunner*>(nullptr), TestPool()}) {
    KernelState state;
    const uint64_t before = WholeBPacks();
    for (int call = 0; call < 3; ++call) {
      Tensor lhs = Random(ElementType::kF32, {33, 300}, rng);
      Tensor plain = Filled(ElementType::kF32, {33, 129}, 12345.0);
      ASSERT_TRUE(RunDot(p, lhs, rhs, 0, plain, nullptr, runner).ok());
      Tensor packed = Filled(ElementType::kF32, {33, 129}, -777.0);
      ASSERT_TRUE(RunDot(p, lhs, rhs, /*rhs_constant=*/3003, packed, &state, runner).ok());
      ASSERT_EQ(packed.bytes, plain.bytes) << "call " << call;
    }
    EXPECT_EQ(WholeBPacks() - before, 1u) << "the bf16 constant is widened and packed once";
  }
}

// NHWC/HWIO convolutions: the weights are the GEMM's B, packed once when
// constant (contraction_convolution.cc). Odd sizes, 3x3 with padding, 1x1,
// stride 2, two feature groups of 16 (the grouped GEMM), batch 1 and 3;
// the same bits as without state, one pack for three calls.
KernelParams NhwcConv(int64_t stride, int64_t pad, int64_t groups) {
  KernelParams p;
  p.kernel = "stablehlo.convolution";
  p.attrs.push_back(Ints("input_batch_dimension", {0}));
  p.attrs.push_back(Ints("input_feature_dimension", {3}));
  p.attrs.push_back(Ints("input_spatial_dimensions", {1, 2}));
  p.attrs.push_back(Ints("kernel_input_feature_dimension", {2}));
  p.attrs.push_back(Ints("kernel_output_feature_dimension", {3}));
  p.attrs.push_back(Ints("kernel_spatial_dimensions", {0, 1}));
  p.attrs.push_back(Ints("output_batch_dimension", {0}));
  p.attrs.push_back(Ints("output_feature_dimension", {3}));
  p.attrs.push_back(Ints("output_spatial_dimensions", {1, 2}));
  p.attrs.push_back(Ints("window_strides", {stride, stride}));
  p.attrs.push_back(Ints("padding", {pad, pad, pad, pad}));
  p.attrs.push_back(Ints("feature_group_count", {groups}));
  p.attrs.push_back(Ints("batch_group_count", {1}));
  return p;
}

KILN_TEST_ALL_TARGETS(CpuKernelState, ConvolutionWeightsPackedOnceSameBits) {
  std::mt19937 rng(23);
  const Case cases[] = {
      {NhwcConv(1, 1, 1), {1, 9, 11, 19}, {3, 3, 19, 37}, {1, 9, 11, 37}},
      {NhwcConv(1, 0, 1), {3, 16, 16, 32}, {1, 1, 32, 192}, {3, 16, 16, 192}},
      {NhwcConv(1, 0, 1), {1, 13, 7, 192}, {1, 1, 192, 33}, {1, 13, 7, 33}},
      {NhwcConv(2, 1, 1), {2, 15, 15, 24}, {3, 3, 24, 40}, {2, 8, 8, 40}},
      {NhwcConv(1, 1, 2), {1, 10, 9, 32}, {3, 3, 16, 34}, {1, 10, 9, 34}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.lhs[3]) + " -> " + std::to_string(c.rhs[3]));
    for (ElementType t : {ElementType::kF32, ElementType::kF64}) {
      Tensor rhs = Random(t, c.rhs, rng);
      for (TaskRunner* runner : {static_cast<TaskRunner*>(nullptr), TestPool()}) {
        KernelState state;
        const uint64_t before = WholeBPacks();
        for (int call = 0; call < 3; ++call) {
          Tensor lhs = Random(t, c.lhs, rng);
          Tensor plain = Filled(t, c.out, 12345.0);
          ASSERT_TRUE(RunDot(c.params, lhs, rhs, 0, plain, nullptr, runner).ok());
          Tensor packed = Filled(t, c.out, -777.0);
          ASSERT_TRUE(RunDot(c.params, lhs, rhs, /*rhs_constant=*/2002, packed, &state, runner).ok());
          ASSERT_EQ(packed.bytes, plain.bytes) << "call " << call << ": packed weights change the result";
        }
        EXPECT_EQ(WholeBPacks() - before, 1u) << "constant weights are packed once";
        EXPECT_GT(state.bytes(), 0u) << "the packed weights stay in the state";
        // Other weights (another constant id) are packed on their own.
        Tensor lhs = Random(t, c.lhs, rng), other = Random(t, c.rhs, rng);
        Tensor plain = Filled(t, c.out, 0.0), packed = Filled(t, c.out, 1.0);
        ASSERT_TRUE(RunDot(c.params, lhs, other, 0, plain, nullptr, runner).ok());
        ASSERT_TRUE(RunDot(c.params, lhs, other, /*rhs_constant=*/2003, packed, &state, runner).ok());
        EXPECT_EQ(packed.bytes, plain.bytes);
        EXPECT_EQ(WholeBPacks() - before, 2u);
      }
    }
  }
}

// A feature-major (NCHW) convolution's constant weights are the GEMM's A:
// packed once into the state (one entry per feature group), read by every
// image and call, whatever the kernel's layout (OIHW, whose rows are
// contiguous, or IHWO, which the Vulkan target gives constant kernels and
// whose rows are gathered). The same bits as without state, on the
// independent-tiles path and the per-step path above 2^26 multiply-adds,
// edge row blocks (37 features), two feature groups, batch 3.
KernelParams NchwConv(bool ihwo, int64_t stride, int64_t pad, int64_t groups) {
  KernelParams p;
  p.kernel = "stablehlo.convolution";
  p.attrs.push_back(Ints("input_batch_dimension", {0}));
  p.attrs.push_back(Ints("input_feature_dimension", {1}));
  p.attrs.push_back(Ints("input_spatial_dimensions", {2, 3}));
  p.attrs.push_back(Ints("kernel_input_feature_dimension", {ihwo ? 0 : 1}));
  p.attrs.push_back(Ints("kernel_output_feature_dimension", {ihwo ? 3 : 0}));
  p.attrs.push_back(Ints("kernel_spatial_dimensions", ihwo ? std::vector<int64_t>{1, 2} : std::vector<int64_t>{2, 3}));
  p.attrs.push_back(Ints("output_batch_dimension", {0}));
  p.attrs.push_back(Ints("output_feature_dimension", {1}));
  p.attrs.push_back(Ints("output_spatial_dimensions", {2, 3}));
  p.attrs.push_back(Ints("window_strides", {stride, stride}));
  p.attrs.push_back(Ints("padding", {pad, pad, pad, pad}));
  p.attrs.push_back(Ints("feature_group_count", {groups}));
  p.attrs.push_back(Ints("batch_group_count", {1}));
  return p;
}

KILN_TEST_ALL_TARGETS(CpuKernelState, FeatureMajorConvolutionWeightsPackedOnceSameBits) {
  std::mt19937 rng(25);
  struct NchwCase {
    int64_t batch, in, out, size, k, stride, pad, groups;
  };
  const NchwCase cases[] = {
      {1, 19, 37, 9, 3, 1, 1, 1},   // independent tiles, an edge row block
      {3, 16, 24, 8, 3, 2, 1, 2},   // two feature groups, stride 2, batch 3
      {2, 64, 64, 32, 3, 1, 1, 1},  // above 2^26 multiply-adds: the per-step path
      {1, 32, 136, 7, 1, 1, 0, 1},  // 1x1, two row blocks of the second one short
  };
  for (const NchwCase& c : cases) {
    for (bool ihwo : {false, true}) {
      SCOPED_TRACE(std::to_string(c.in) + " -> " + std::to_string(c.out) + (ihwo ? " IHWO" : " OIHW"));
      const KernelParams params = NchwConv(ihwo, c.stride, c.pad, c.groups);
      const int64_t kin = c.in / c.groups, osz = (c.size + 2 * c.pad - c.k) / c.stride + 1;
      const std::vector<int64_t> kernel = ihwo ? std::vector<int64_t>{kin, c.k, c.k, c.out}
                                               : std::vector<int64_t>{c.out, kin, c.k, c.k};
      for (ElementType t : {ElementType::kF32, ElementType::kF64}) {
        Tensor rhs = Random(t, kernel, rng);
        for (TaskRunner* runner : {static_cast<TaskRunner*>(nullptr), TestPool()}) {
          KernelState state;
          const uint64_t before = WholeAPacks();
          for (int call = 0; call < 2; ++call) {
            Tensor lhs = Random(t, {c.batch, c.in, c.size, c.size}, rng);
            Tensor plain = Filled(t, {c.batch, c.out, osz, osz}, 12345.0);
            ASSERT_TRUE(RunDot(params, lhs, rhs, 0, plain, nullptr, runner).ok());
            Tensor packed = Filled(t, {c.batch, c.out, osz, osz}, -777.0);
            ASSERT_TRUE(RunDot(params, lhs, rhs, /*rhs_constant=*/5005, packed, &state, runner).ok());
            ASSERT_EQ(packed.bytes, plain.bytes) << "call " << call << ": packed weights change the result";
          }
          EXPECT_EQ(WholeAPacks() - before, kGemmReadsPackedA ? 1u : 0u) << "constant weights are packed once";
        }
      }
    }
  }
}

// Constant f16/bf16 weights of an f32 convolution (f32 activations over
// 16-bit weights, or both 16-bit): widened once into the state, keeping
// their constant id, so the f32 GEMM packs them once too; the same bits as
// without state.
TEST(CpuKernelState, SixteenBitConvolutionWeightsWidenedAndPackedOnce) {
  std::mt19937 rng(24);
  const KernelParams p = NhwcConv(1, 1, 1);
  for (ElementType t : {ElementType::kBF16, ElementType::kF16}) {
    SCOPED_TRACE(t == ElementType::kF16 ? "f16" : "bf16");
    Tensor rhs = Zeros(t, {3, 3, 24, 40});
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int64_t i = 0; i < rhs.count(); ++i) ref::StoreScalar(t, Scalar{0, u(rng), 0}, rhs.bytes.data() + 2 * i);
    for (TaskRunner* runner : {static_cast<TaskRunner*>(nullptr), TestPool()}) {
      KernelState state;
      const uint64_t before = WholeBPacks();
      for (int call = 0; call < 3; ++call) {
        Tensor lhs = Random(ElementType::kF32, {2, 11, 9, 24}, rng);
        Tensor plain = Filled(ElementType::kF32, {2, 11, 9, 40}, 12345.0);
        ASSERT_TRUE(RunDot(p, lhs, rhs, 0, plain, nullptr, runner).ok());
        Tensor kept = Filled(ElementType::kF32, {2, 11, 9, 40}, -777.0);
        ASSERT_TRUE(RunDot(p, lhs, rhs, /*rhs_constant=*/4004, kept, &state, runner).ok());
        ASSERT_EQ(kept.bytes, plain.bytes) << "call " << call;
      }
      EXPECT_EQ(WholeBPacks() - before, 1u) << "the 16-bit weights are widened and packed once";
      EXPECT_GE(state.bytes(), 2u * static_cast<size_t>(rhs.count()) * sizeof(float)) << "widened and packed copies kept";
    }
  }
}

TEST(CpuKernelState, ConstantIdAddressAndShapeEachPackTheirOwn) {
  std::mt19937 rng(20);
  const KernelParams p = DotGeneral({}, {}, {1}, {0});
  KernelState state;
  Tensor lhs = Random(ElementType::kF32, {9, 40}, rng);
  Tensor w1 = Random(ElementType::kF32, {40, 21}, rng), w2 = Random(ElementType::kF32, {40, 21}, rng);
  Tensor ref1 = Filled(ElementType::kF32, {9, 21}), ref2 = Filled(ElementType::kF32, {9, 21});
  ASSERT_TRUE(RunDot(p, lhs, w1, 0, ref1, nullptr, nullptr).ok());
  ASSERT_TRUE(RunDot(p, lhs, w2, 0, ref2, nullptr, nullptr).ok());
  const uint64_t before = WholeBPacks();
  Tensor out = Filled(ElementType::kF32, {9, 21});
  // Alternating two constants of one shape: each packed once, each result its own.
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(RunDot(p, lhs, w1, 7, out, &state, nullptr).ok());
    EXPECT_EQ(out.bytes, ref1.bytes);
    ASSERT_TRUE(RunDot(p, lhs, w2, 8, out, &state, nullptr).ok());
    EXPECT_EQ(out.bytes, ref2.bytes);
  }
  EXPECT_EQ(WholeBPacks() - before, 2u);
  // A non-constant B (an arena view, an argument) is never kept: its bytes
  // may change between calls at the same address.
  ASSERT_TRUE(RunDot(p, lhs, w1, 0, out, &state, nullptr).ok());
  EXPECT_EQ(out.bytes, ref1.bytes);
  std::memcpy(w1.bytes.data(), w2.bytes.data(), w1.bytes.size());
  ASSERT_TRUE(RunDot(p, lhs, w1, 0, out, &state, nullptr).ok());
  EXPECT_EQ(out.bytes, ref2.bytes);
  EXPECT_EQ(WholeBPacks() - before, 2u);
  // Another shape of the same constant id is another packing.
  Tensor w3 = Random(ElementType::kF32, {40, 5}, rng);
  Tensor out3 = Filled(ElementType::kF32, {9, 5}), ref3 = Filled(ElementType::kF32, {9, 5});
  ASSERT_TRUE(RunDot(p, lhs, w3, 0, ref3, nullptr, nullptr).ok());
  ASSERT_TRUE(RunDot(p, lhs, w3, 7, out3, &state, nullptr).ok());
  EXPECT_EQ(out3.bytes, ref3.bytes);
  EXPECT_EQ(WholeBPacks() - before, 3u);
}

TEST(KernelState, TakePutEvictsLeastRecentlyUsedAndCountsBytes) {
  auto counter = std::make_shared<std::atomic<int64_t>>(0);
  {
    KernelState state(counter);
    for (int64_t i = 0; i < static_cast<int64_t>(KernelState::kMaxEntries) + 3; ++i) {
      auto plan = std::make_unique<KernelPlan>();
      plan->key = {i};
      plan->bytes = 10;
      state.Put(std::move(plan));
    }
    EXPECT_EQ(state.bytes(), KernelState::kMaxEntries * 10);
    EXPECT_EQ(counter->load(), static_cast<int64_t>(KernelState::kMaxEntries * 10));
    const int64_t oldest[] = {0}, newest[] = {static_cast<int64_t>(KernelState::kMaxEntries) + 2};
    EXPECT_EQ(state.Take(oldest), nullptr) << "evicted";
    auto taken = state.Take(newest);
    ASSERT_NE(taken, nullptr);
    EXPECT_EQ(state.Take(newest), nullptr) << "a taken entry is not handed out twice";
    EXPECT_EQ(counter->load(), static_cast<int64_t>((KernelState::kMaxEntries - 1) * 10));
    state.Put(std::move(taken));
  }
  EXPECT_EQ(counter->load(), 0) << "a state gives its bytes back when it goes";
}

TEST(KernelState, PlanKeysWithLongListsMatchExactly) {
  KernelState state;
  PlanKey a(kPlanElementwise), b(kPlanElementwise);
  for (int64_t i = 0; i < 100; ++i) {  // past the inline storage
    a.Add(i);
    b.Add(i);
  }
  b.Add(1);
  {
    PlanLease<KernelPlan> lease(&state, a);
    EXPECT_EQ(lease.get(), nullptr);
    lease.Set(std::make_unique<KernelPlan>());
  }
  PlanLease<KernelPlan> other(&state, b);
  EXPECT_EQ(other.get(), nullptr) << "a longer key is another entry";
  PlanLease<KernelPlan> same(&state, a);
  EXPECT_NE(same.get(), nullptr);
  EXPECT_TRUE(same.hit());
}

}  // namespace
}  // namespace kiln::cpu
