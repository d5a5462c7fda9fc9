// Elementwise fusion (compiler/fuse_elementwise.cc), end to end: a chain
// compiles to one kiln.elementwise dispatch, gives bit-for-bit the results of
// the unfused program (the same scalar ops in the same order), keeps values
// used outside the chain in memory, and fuses across types (compare, select,
// convert) in both CPU driver modes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "compiler/compile.h"
#include "hal/cpu/cpu_device.h"
#include "vm/context.h"

namespace kiln {
namespace {

struct RunResult {
  std::vector<vm::HostTensor> outputs;
  uint64_t dispatches = 0;
};

class Fusion : public ::testing::TestWithParam<hal::CpuMode> {
 protected:
  RunResult CompileAndRun(const std::string& source, bool fuse, const std::vector<vm::HostTensor>& inputs) {
    compiler::CompileOptions options;
    options.target = "cpu";
    options.fuse = fuse;
    auto bytes = compiler::Compile(source, "fusion.mlir", options, nullptr);
    EXPECT_TRUE(bytes.ok()) << bytes.status().message();
    RunResult r;
    if (!bytes.ok()) return r;
    auto module = vm::LoadModule(bytes.value());
    EXPECT_TRUE(module.ok()) << module.status().message();
    if (!module.ok()) return r;
    auto device = hal::CreateCpuDevice(GetParam(), 2);
    auto ctx = vm::Context::Create(*module, device.get());
    EXPECT_TRUE(ctx.ok()) << ctx.status().message();
    if (!ctx.ok()) return r;
    const uint64_t before = device->stats().dispatches;
    auto out = (*ctx)->Invoke("main", inputs);
    EXPECT_TRUE(out.ok()) << out.status().message();
    if (!out.ok()) return r;
    r.outputs = std::move(out.value());
    r.dispatches = device->stats().dispatches - before;
    return r;
  }
};

vm::HostTensor Tensor(ElementType type, std::vector<int64_t> dims, const void* data, size_t bytes) {
  vm::HostTensor t;
  t.type = type;
  t.dims = std::move(dims);
  t.data.resize(bytes);
  if (bytes) std::memcpy(t.data.data(), data, bytes);
  return t;
}

// Random values with NaN, infinities and signed zeros mixed in.
std::vector<float> Values(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-12.0f, 12.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  const float specials[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e-40f, 3e38f};
  for (size_t i = 0; i < n; i += 37) v[i] = specials[(i / 37) % 7];
  return v;
}

constexpr char kTanhChain[] = R"(
func.func @main(%x: tensor<1000x77xf32>) -> tensor<1000x77xf32> {
  %half = stablehlo.constant dense<5.000000e-01> : tensor<f32>
  %h = stablehlo.broadcast_in_dim %half, dims = [] : (tensor<f32>) -> tensor<1000x77xf32>
  %one = stablehlo.constant dense<1.000000e+00> : tensor<1000x77xf32>
  %q = stablehlo.constant dense<2.500000e-01> : tensor<1000x77xf32>
  %0 = stablehlo.multiply %x, %h : tensor<1000x77xf32>
  %1 = stablehlo.add %0, %one : tensor<1000x77xf32>
  %2 = stablehlo.tanh %1 : tensor<1000x77xf32>
  %3 = stablehlo.multiply %2, %x : tensor<1000x77xf32>
  %4 = stablehlo.subtract %3, %q : tensor<1000x77xf32>
  return %4 : tensor<1000x77xf32>
}
)";

TEST_P(Fusion, ChainIsOneDispatchAndMatchesUnfused) {
  const auto x = Values(1000 * 77, 1);
  std::vector<vm::HostTensor> in = {Tensor(ElementType::kF32, {1000, 77}, x.data(), x.size() * 4)};
  RunResult fused = CompileAndRun(kTanhChain, true, in);
  RunResult unfused = CompileAndRun(kTanhChain, false, in);
  EXPECT_EQ(fused.dispatches, 1u);
  EXPECT_EQ(unfused.dispatches, 6u);  // broadcast, multiply, add, tanh, multiply, subtract
  ASSERT_EQ(fused.outputs.size(), 1u);
  ASSERT_EQ(unfused.outputs.size(), 1u);
  EXPECT_EQ(fused.outputs[0].data, unfused.outputs[0].data);
  // And the values are tanh(x * 0.5 + 1) * x - 0.25 (within tanh's few ULP).
  std::vector<float> y(x.size());
  std::memcpy(y.data(), fused.outputs[0].data.data(), y.size() * 4);
  for (size_t i = 0; i < x.size(); ++i) {
    const float want = std::tanh(x[i] * 0.5f + 1.0f) * x[i] - 0.25f;
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(y[i])) << i;
    } else if (std::isinf(want)) {
      EXPECT_EQ(y[i], want) << i;
    } else {
      EXPECT_NEAR(y[i], want, 1e-5f * (1.0f + std::fabs(x[i]))) << i << " x=" << x[i];
    }
  }
}

TEST_P(Fusion, ValueUsedOutsideTheChainIsMaterialised) {
  constexpr char kSource[] = R"(
func.func @main(%x: tensor<257xf32>, %y: tensor<257xf32>) -> (tensor<257xf32>, tensor<257xf32>) {
  %a = stablehlo.add %x, %y : tensor<257xf32>
  %b = stablehlo.multiply %a, %a : tensor<257xf32>
  %c = stablehlo.exponential %b : tensor<257xf32>
  %d = stablehlo.negate %c : tensor<257xf32>
  return %d, %a : tensor<257xf32>, tensor<257xf32>
}
)";
  const auto x = Values(257, 2), y = Values(257, 3);
  std::vector<vm::HostTensor> in = {Tensor(ElementType::kF32, {257}, x.data(), x.size() * 4),
                                    Tensor(ElementType::kF32, {257}, y.data(), y.size() * 4)};
  RunResult fused = CompileAndRun(kSource, true, in);
  RunResult unfused = CompileAndRun(kSource, false, in);
  EXPECT_EQ(fused.dispatches, 2u);  // %a (returned), then %b..%d reading it
  EXPECT_EQ(unfused.dispatches, 4u);
  ASSERT_EQ(fused.outputs.size(), 2u);
  ASSERT_EQ(unfused.outputs.size(), 2u);
  EXPECT_EQ(fused.outputs[0].data, unfused.outputs[0].data);
  EXPECT_EQ(fused.outputs[1].data, unfused.outputs[1].data);
}

TEST_P(Fusion, ComparesSelectsAndConvertsAcrossTypes) {
  // relu-like select on f32 with an i1 intermediate, an i32 -> f64 convert
  // and f64 arithmetic (the reference kernel runs what the fast one lacks).
  constexpr char kSource[] = R"(
func.func @main(%x: tensor<3x5x7xf32>, %n: tensor<3x5x7xi32>) -> (tensor<3x5x7xf32>, tensor<3x5x7xf64>) {
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %z = stablehlo.broadcast_in_dim %zero, dims = [] : (tensor<f32>) -> tensor<3x5x7xf32>
  %p = stablehlo.compare GT, %x, %z, FLOAT : (tensor<3x5x7xf32>, tensor<3x5x7xf32>) -> tensor<3x5x7xi1>
  %neg = stablehlo.negate %x : tensor<3x5x7xf32>
  %s = stablehlo.select %p, %x, %neg : tensor<3x5x7xi1>, tensor<3x5x7xf32>
  %nd = stablehlo.convert %n : (tensor<3x5x7xi32>) -> tensor<3x5x7xf64>
  %third = stablehlo.constant dense<0.33333333333333331> : tensor<3x5x7xf64>
  %m = stablehlo.multiply %nd, %third : tensor<3x5x7xf64>
  %r = stablehlo.sqrt %m : tensor<3x5x7xf64>
  return %s, %r : tensor<3x5x7xf32>, tensor<3x5x7xf64>
}
)";
  const auto x = Values(105, 4);
  std::vector<int32_t> n(105);
  for (int i = 0; i < 105; ++i) n[i] = (i * 7919) % 1000 - 300;
  std::vector<vm::HostTensor> in = {Tensor(ElementType::kF32, {3, 5, 7}, x.data(), x.size() * 4),
                                    Tensor(ElementType::kSI32, {3, 5, 7}, n.data(), n.size() * 4)};
  RunResult fused = CompileAndRun(kSource, true, in);
  RunResult unfused = CompileAndRun(kSource, false, in);
  EXPECT_EQ(fused.dispatches, 2u);
  EXPECT_EQ(unfused.dispatches, 7u);  // broadcast, compare, negate, select, convert, multiply, sqrt
  ASSERT_EQ(fused.outputs.size(), 2u);
  ASSERT_EQ(unfused.outputs.size(), 2u);
  EXPECT_EQ(fused.outputs[0].data, unfused.outputs[0].data);
  EXPECT_EQ(fused.outputs[1].data, unfused.outputs[1].data);
  std::vector<float> s(105);
  std::memcpy(s.data(), fused.outputs[0].data.data(), 105 * 4);
  for (int i = 0; i < 105; ++i)
    if (!std::isnan(x[i])) {
      EXPECT_EQ(s[i], x[i] > 0 ? x[i] : -x[i]) << i;
    }
}

TEST_P(Fusion, ChainsInsideRegionsAndUsesFromRegionsStayCorrect) {
  // %t is used inside the if's region: it must stay materialised; the chain
  // inside the region fuses on its own.
  constexpr char kSource[] = R"(
func.func @main(%x: tensor<64xf32>, %c: tensor<i1>) -> tensor<64xf32> {
  %t = stablehlo.abs %x : tensor<64xf32>
  %u = stablehlo.add %t, %t : tensor<64xf32>
  %r = "stablehlo.if"(%c) ({
    %a = stablehlo.multiply %t, %u : tensor<64xf32>
    %b = stablehlo.sqrt %a : tensor<64xf32>
    stablehlo.return %b : tensor<64xf32>
  }, {
    stablehlo.return %u : tensor<64xf32>
  }) : (tensor<i1>) -> tensor<64xf32>
  return %r : tensor<64xf32>
}
)";
  const auto x = Values(64, 5);
  const uint8_t yes = 1;
  std::vector<vm::HostTensor> in = {Tensor(ElementType::kF32, {64}, x.data(), x.size() * 4),
                                    Tensor(ElementType::kI1, {}, &yes, 1)};
  RunResult fused = CompileAndRun(kSource, true, in);
  RunResult unfused = CompileAndRun(kSource, false, in);
  EXPECT_EQ(fused.dispatches, 3u);  // %t, %u (both used in the region), then %a..%b
  EXPECT_EQ(unfused.dispatches, 4u);
  ASSERT_EQ(fused.outputs.size(), 1u);
  ASSERT_EQ(unfused.outputs.size(), 1u);
  EXPECT_EQ(fused.outputs[0].data, unfused.outputs[0].data);
}

INSTANTIATE_TEST_SUITE_P(CpuModes, Fusion, ::testing::Values(hal::CpuMode::kInline, hal::CpuMode::kDeferred),
                         [](const auto& info) { return info.param == hal::CpuMode::kInline ? "inline" : "deferred"; });

}  // namespace
}  // namespace kiln
