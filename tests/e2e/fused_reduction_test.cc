// Producer fusion into reductions (compiler/passes/fuse_elementwise.h), end
// to end: softmax as jax.nn.softmax exports it and layer / RMS norms as
// flax and torch spell them compile to fewer dispatches, their reduced
// operands are never materialised (each norm and the softmax is one
// kiln.row_block dispatch), and the results are bit-for-bit those of
// the unfused program (the same scalar ops, the same kernels, the same
// reduction order) and close to a double-precision computation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "compiler/compile.h"
#include "hal/cpu/cpu_device.h"
#include "tests/support/host_tensor_util.h"
#include "tests/support/counted_run.h"
#include "vm/context.h"

namespace kiln {
namespace {

using test::HostTensorOf;

using RunResult = test::CountedRun;

RunResult CompileAndRun(const std::string& source, bool fuse, const std::vector<vm::HostTensor>& inputs,
                        hal::CpuMode mode, const std::string& target = "cpu") {
  return test::CompileAndRunCounted(
      source, inputs, {.fuse = fuse, .mode = mode, .target = target, .file_name = "fused_reduction.mlir"});
}

std::vector<float> Random(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

std::vector<float> AsFloats(const vm::HostTensor& t) {
  std::vector<float> v(t.data.size() / 4);
  std::memcpy(v.data(), t.data.data(), v.size() * 4);
  return v;
}

class FusedReduction : public ::testing::TestWithParam<hal::CpuMode> {};

// jax.nn.softmax(x, axis=-1) as jax.export prints it (the kept axis as a
// size-1 dim, then broadcast back). 67 rows of 333: odd sizes, and a row
// not a multiple of the 16 tree lanes.
constexpr char kSoftmax[] = R"(
func.func @main(%arg0: tensor<67x333xf32>) -> tensor<67x333xf32> {
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<67x333xf32>, tensor<f32>) -> tensor<67xf32>
  %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<67xf32>) -> tensor<67x1xf32>
  %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<67x1xf32>) -> tensor<67x333xf32>
  %3 = stablehlo.subtract %arg0, %2 : tensor<67x333xf32>
  %4 = stablehlo.exponential %3 : tensor<67x333xf32>
  %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %5 = stablehlo.reduce(%4 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<67x333xf32>, tensor<f32>) -> tensor<67xf32>
  %6 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<67xf32>) -> tensor<67x1xf32>
  %7 = stablehlo.broadcast_in_dim %6, dims = [0, 1] : (tensor<67x1xf32>) -> tensor<67x333xf32>
  %8 = stablehlo.divide %4, %7 : tensor<67x333xf32>
  return %8 : tensor<67x333xf32>
}
)";

TEST_P(FusedReduction, JaxSoftmax) {
  const auto x = Random(67 * 333, 1, -20.0f, 20.0f);
  std::vector<vm::HostTensor> in = {HostTensorOf(ElementType::kF32, {67, 333}, x)};
  RunResult fused = CompileAndRun(kSoftmax, true, in, GetParam());
  RunResult unfused = CompileAndRun(kSoftmax, false, in, GetParam());
  ASSERT_EQ(fused.outputs.size(), 1u);
  ASSERT_EQ(unfused.outputs.size(), 1u);
  // One kiln.row_block: max, the two size-1 reshapes, sum of exp(x - max)
  // and the tail exp(x - max) / sum, a block of rows at a time; no dispatch
  // writes exp(x - max), nor the per-row values.
  EXPECT_EQ(fused.dispatches, 1u);
  EXPECT_LT(fused.dispatches, unfused.dispatches);
  EXPECT_EQ(fused.outputs[0].data, unfused.outputs[0].data);
  const auto p = AsFloats(fused.outputs[0]);
  for (int r = 0; r < 67; ++r) {
    double m = -INFINITY, s = 0;
    for (int c = 0; c < 333; ++c) m = std::max(m, double(x[r * 333 + c]));
    for (int c = 0; c < 333; ++c) s += std::exp(double(x[r * 333 + c]) - m);
    for (int c = 0; c < 333; ++c) {
      const double want = std::exp(double(x[r * 333 + c]) - m) / s;
      ASSERT_NEAR(p[r * 333 + c], want, 1e-6 + 1e-5 * want) << r << "," << c;
    }
  }
}

// A layer norm as torch exports it (mean, centred square, mean, rsqrt,
// scale and shift) and an RMS norm, over 3-D activations [2, 45, 200].
constexpr char kNorms[] = R"(
func.func @main(%x: tensor<2x45x200xf32>, %g: tensor<200xf32>, %b: tensor<200xf32>)
    -> (tensor<2x45x200xf32>, tensor<2x45x200xf32>) {
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %n = stablehlo.constant dense<2.000000e+02> : tensor<2x45xf32>
  %eps = stablehlo.constant dense<9.99999974E-6> : tensor<2x45xf32>
  %sum = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [2] : (tensor<2x45x200xf32>, tensor<f32>) -> tensor<2x45xf32>
  %mean = stablehlo.divide %sum, %n : tensor<2x45xf32>
  %mb = stablehlo.broadcast_in_dim %mean, dims = [0, 1] : (tensor<2x45xf32>) -> tensor<2x45x200xf32>
  %xc = stablehlo.subtract %x, %mb : tensor<2x45x200xf32>
  %sq = stablehlo.multiply %xc, %xc : tensor<2x45x200xf32>
  %ssq = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [2] : (tensor<2x45x200xf32>, tensor<f32>) -> tensor<2x45xf32>
  %var = stablehlo.divide %ssq, %n : tensor<2x45xf32>
  %ve = stablehlo.add %var, %eps : tensor<2x45xf32>
  %rs = stablehlo.rsqrt %ve : tensor<2x45xf32>
  %rb = stablehlo.broadcast_in_dim %rs, dims = [0, 1] : (tensor<2x45xf32>) -> tensor<2x45x200xf32>
  %y0 = stablehlo.multiply %xc, %rb : tensor<2x45x200xf32>
  %gb = stablehlo.broadcast_in_dim %g, dims = [2] : (tensor<200xf32>) -> tensor<2x45x200xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [2] : (tensor<200xf32>) -> tensor<2x45x200xf32>
  %y1 = stablehlo.multiply %y0, %gb : tensor<2x45x200xf32>
  %ln = stablehlo.add %y1, %bb : tensor<2x45x200xf32>
  %x2 = stablehlo.multiply %x, %x : tensor<2x45x200xf32>
  %s2 = stablehlo.reduce(%x2 init: %zero) applies stablehlo.add across dimensions = [2] : (tensor<2x45x200xf32>, tensor<f32>) -> tensor<2x45xf32>
  %ms = stablehlo.divide %s2, %n : tensor<2x45xf32>
  %mse = stablehlo.add %ms, %eps : tensor<2x45xf32>
  %r2 = stablehlo.rsqrt %mse : tensor<2x45xf32>
  %r2b = stablehlo.broadcast_in_dim %r2, dims = [0, 1] : (tensor<2x45xf32>) -> tensor<2x45x200xf32>
  %z = stablehlo.multiply %x, %r2b : tensor<2x45x200xf32>
  %rms = stablehlo.multiply %z, %gb : tensor<2x45x200xf32>
  return %ln, %rms : tensor<2x45x200xf32>, tensor<2x45x200xf32>
}
)";

TEST_P(FusedReduction, LayerNormAndRmsNorm) {
  const auto x = Random(2 * 45 * 200, 2, -3.0f, 5.0f), g = Random(200, 3, 0.5f, 1.5f), b = Random(200, 4, -1, 1);
  std::vector<vm::HostTensor> in = {HostTensorOf(ElementType::kF32, {2, 45, 200}, x),
                                    HostTensorOf(ElementType::kF32, {200}, g),
                                    HostTensorOf(ElementType::kF32, {200}, b)};
  RunResult fused = CompileAndRun(kNorms, true, in, GetParam());
  RunResult unfused = CompileAndRun(kNorms, false, in, GetParam());
  ASSERT_EQ(fused.outputs.size(), 2u);
  ASSERT_EQ(unfused.outputs.size(), 2u);
  // One kiln.row_block per norm: [sum, mean, sum of squared deviations,
  // var and rsqrt, the layer norm tail] and [sum of squares, mean square
  // and rsqrt, the RMS tail]. Neither the deviation, its square nor x * x
  // is written, nor g's broadcast, which both tails read in place.
  EXPECT_EQ(fused.dispatches, 2u);
  EXPECT_LT(fused.dispatches, unfused.dispatches);
  EXPECT_EQ(fused.outputs[0].data, unfused.outputs[0].data);
  EXPECT_EQ(fused.outputs[1].data, unfused.outputs[1].data);
  const auto ln = AsFloats(fused.outputs[0]), rms = AsFloats(fused.outputs[1]);
  for (int r = 0; r < 90; ++r) {
    const float* xr = &x[r * 200];
    double mean = 0, var = 0, ms = 0;
    for (int c = 0; c < 200; ++c) mean += xr[c], ms += double(xr[c]) * xr[c];
    mean /= 200;
    ms /= 200;
    for (int c = 0; c < 200; ++c) var += (xr[c] - mean) * (xr[c] - mean);
    var /= 200;
    for (int c = 0; c < 200; ++c) {
      const double want_ln = (xr[c] - mean) / std::sqrt(var + 1e-5) * g[c] + b[c];
      const double want_rms = xr[c] / std::sqrt(ms + 1e-5) * g[c];
      ASSERT_NEAR(ln[r * 200 + c], want_ln, 1e-4) << r << "," << c;
      ASSERT_NEAR(rms[r * 200 + c], want_rms, 1e-4) << r << "," << c;
    }
  }
}

// The default target (cpu and vulkan) fuses as --target cpu does: the
// vulkan target has the shaders (tests/compiler/vulkan/fused_reduction_
// test.cc), so the CPU runs the same dispatches with the same bits.
TEST_P(FusedReduction, EveryTargetFuses) {
  const auto x = Random(67 * 333, 5, -20.0f, 20.0f);
  std::vector<vm::HostTensor> in = {HostTensorOf(ElementType::kF32, {67, 333}, x)};
  RunResult all = CompileAndRun(kSoftmax, true, in, GetParam(), "all");
  RunResult cpu = CompileAndRun(kSoftmax, true, in, GetParam(), "cpu");
  ASSERT_EQ(all.outputs.size(), 1u);
  ASSERT_EQ(cpu.outputs.size(), 1u);
  EXPECT_EQ(all.dispatches, 1u);
  EXPECT_EQ(all.outputs[0].data, cpu.outputs[0].data);
}

INSTANTIATE_TEST_SUITE_P(CpuModes, FusedReduction, ::testing::Values(hal::CpuMode::kInline, hal::CpuMode::kDeferred),
                         [](const auto& info) { return info.param == hal::CpuMode::kInline ? "inline" : "deferred"; });

}  // namespace
}  // namespace kiln
