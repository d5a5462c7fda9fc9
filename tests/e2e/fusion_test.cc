// Elementwise fusion (compiler/passes/fuse_elementwise.cc), end to end: a chain
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
#include "tests/support/host_tensor_util.h"
#include "tests/support/counted_run.h"
#include "vm/context.h"

namespace kiln {
namespace {

using test::HostTensorOf;

using RunResult = test::CountedRun;

class Fusion : public ::testing::TestWithParam<hal::CpuMode> {
 protected:
  RunResult CompileAndRun(const std::string& source, bool fuse, const std::vector<vm::HostTensor>& inputs) {
    return test::CompileAndRunCounted(source, inputs, {.fuse = fuse, .mode = GetParam(), .file_name = "fusion.mlir"});
  }
};

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

// Fused and unfused runs give `count` results, bit for bit the same.
void ExpectSameResults(const RunResult& fused, const RunResult& unfused, size_t count) {
  ASSERT_EQ(fused.outputs.size(), count);
  ASSERT_EQ(unfused.outputs.size(), count);
  for (size_t i = 0; i < count; ++i) EXPECT_EQ(fused.outputs[i].data, unfused.outputs[i].data) << "result " << i;
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
  std::vector<vm::HostTensor> in = {HostTensorOf(ElementType::kF32, {1000, 77}, x)};
  RunResult fused = CompileAndRun(kTanhChain, true, in);
  RunResult unfused = CompileAndRun(kTanhChain, false, in);
  EXPECT_EQ(fused.dispatches, 1u);
  // broadcast, multiply, add, tanh, multiply, subtract, and the two splat
  // constants of 1000x77 (above the stored-constant bound: written by a
  // dispatch each, compiler/lower/lower_ops.cc).
  EXPECT_EQ(unfused.dispatches, 8u);
  ASSERT_NO_FATAL_FAILURE(ExpectSameResults(fused, unfused, 1));
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
  std::vector<vm::HostTensor> in = {HostTensorOf(ElementType::kF32, {257}, x),
                                    HostTensorOf(ElementType::kF32, {257}, y)};
  RunResult fused = CompileAndRun(kSource, true, in);
  RunResult unfused = CompileAndRun(kSource, false, in);
  EXPECT_EQ(fused.dispatches, 2u);  // %a (returned), then %b..%d reading it
  EXPECT_EQ(unfused.dispatches, 4u);
  ASSERT_NO_FATAL_FAILURE(ExpectSameResults(fused, unfused, 2));
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
  std::vector<vm::HostTensor> in = {HostTensorOf(ElementType::kF32, {3, 5, 7}, x),
                                    HostTensorOf(ElementType::kSI32, {3, 5, 7}, n)};
  RunResult fused = CompileAndRun(kSource, true, in);
  RunResult unfused = CompileAndRun(kSource, false, in);
  EXPECT_EQ(fused.dispatches, 2u);
  EXPECT_EQ(unfused.dispatches, 7u);  // broadcast, compare, negate, select, convert, multiply, sqrt
  ASSERT_NO_FATAL_FAILURE(ExpectSameResults(fused, unfused, 2));
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
  std::vector<vm::HostTensor> in = {HostTensorOf(ElementType::kF32, {64}, x),
                                    HostTensorOf(ElementType::kI1, {}, &yes, 1)};
  RunResult fused = CompileAndRun(kSource, true, in);
  RunResult unfused = CompileAndRun(kSource, false, in);
  EXPECT_EQ(fused.dispatches, 3u);  // %t, %u (both used in the region), then %a..%b
  EXPECT_EQ(unfused.dispatches, 4u);
  ASSERT_NO_FATAL_FAILURE(ExpectSameResults(fused, unfused, 1));
}

TEST_P(Fusion, BroadcastsOfLowerRankOperandsAreReadInPlace) {
  // Bias along the last axis, a per-row value along the first, a size-1
  // dim expanded, and a broadcast that transposes: one dispatch, read in
  // place through input_broadcast, equal to the unfused program.
  constexpr char kSource[] = R"(
func.func @main(%x: tensor<37x70xf32>, %bias: tensor<70xf32>, %row: tensor<37xf32>, %one: tensor<1x70xf32>,
                %t: tensor<70x37xf32>) -> tensor<37x70xf32> {
  %b = stablehlo.broadcast_in_dim %bias, dims = [1] : (tensor<70xf32>) -> tensor<37x70xf32>
  %r = stablehlo.broadcast_in_dim %row, dims = [0] : (tensor<37xf32>) -> tensor<37x70xf32>
  %o = stablehlo.broadcast_in_dim %one, dims = [0, 1] : (tensor<1x70xf32>) -> tensor<37x70xf32>
  %tt = stablehlo.broadcast_in_dim %t, dims = [1, 0] : (tensor<70x37xf32>) -> tensor<37x70xf32>
  %k = stablehlo.constant dense<1.500000e+00> : tensor<70xf32>
  %kk = stablehlo.broadcast_in_dim %k, dims = [1] : (tensor<70xf32>) -> tensor<37x70xf32>
  %0 = stablehlo.add %x, %b : tensor<37x70xf32>
  %1 = stablehlo.subtract %0, %r : tensor<37x70xf32>
  %2 = stablehlo.multiply %1, %o : tensor<37x70xf32>
  %3 = stablehlo.maximum %2, %tt : tensor<37x70xf32>
  %4 = stablehlo.exponential %3 : tensor<37x70xf32>
  %5 = stablehlo.multiply %4, %kk : tensor<37x70xf32>
  return %5 : tensor<37x70xf32>
}
)";
  const auto x = Values(37 * 70, 6), bias = Values(70, 7), row = Values(37, 8), one = Values(70, 9),
             t = Values(70 * 37, 10);
  std::vector<vm::HostTensor> in = {HostTensorOf(ElementType::kF32, {37, 70}, x),
                                    HostTensorOf(ElementType::kF32, {70}, bias),
                                    HostTensorOf(ElementType::kF32, {37}, row),
                                    HostTensorOf(ElementType::kF32, {1, 70}, one),
                                    HostTensorOf(ElementType::kF32, {70, 37}, t)};
  RunResult fused = CompileAndRun(kSource, true, in);
  RunResult unfused = CompileAndRun(kSource, false, in);
  EXPECT_EQ(fused.dispatches, 1u);  // the splat constant %k broadcast along rows is a program constant
  EXPECT_EQ(unfused.dispatches, 11u);
  ASSERT_NO_FATAL_FAILURE(ExpectSameResults(fused, unfused, 1));
}

TEST_P(Fusion, SharedBroadcastsOperandIsWrittenForEveryGroup) {
  // A transposing broadcast of exp(a), read by two chains: each chain is one
  // program reading exp(a) in place through the axis map. exp(a) has the
  // chains' shape, but it joins neither (it would be fused away in one
  // while the other reads it): one dispatch writes it, one per chain.
  constexpr char kSource[] = R"(
func.func @main(%a: tensor<9x9xf32>, %b: tensor<9x9xf32>, %c: tensor<9x9xf32>) -> (tensor<9x9xf32>, tensor<9x9xf32>) {
  %e = stablehlo.exponential %a : tensor<9x9xf32>
  %t = stablehlo.broadcast_in_dim %e, dims = [1, 0] : (tensor<9x9xf32>) -> tensor<9x9xf32>
  %x0 = stablehlo.add %t, %b : tensor<9x9xf32>
  %x = stablehlo.negate %x0 : tensor<9x9xf32>
  %y0 = stablehlo.multiply %t, %c : tensor<9x9xf32>
  %y = stablehlo.negate %y0 : tensor<9x9xf32>
  return %x, %y : tensor<9x9xf32>, tensor<9x9xf32>
}
)";
  const auto a = Values(81, 3), b = Values(81, 5), c = Values(81, 7);
  std::vector<vm::HostTensor> in = {HostTensorOf(ElementType::kF32, {9, 9}, a),
                                    HostTensorOf(ElementType::kF32, {9, 9}, b),
                                    HostTensorOf(ElementType::kF32, {9, 9}, c)};
  RunResult fused = CompileAndRun(kSource, true, in);
  RunResult unfused = CompileAndRun(kSource, false, in);
  EXPECT_EQ(fused.dispatches, 3u);
  ASSERT_EQ(fused.outputs.size(), 2u);
  ASSERT_EQ(unfused.outputs.size(), 2u);
  for (size_t k = 0; k < 2; ++k) EXPECT_EQ(fused.outputs[k].data, unfused.outputs[k].data) << "result " << k;
  std::vector<float> x(81);
  std::memcpy(x.data(), fused.outputs[0].data.data(), x.size() * 4);
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 9; ++j) {
      const float want = -(std::exp(a[static_cast<size_t>(j * 9 + i)]) + b[static_cast<size_t>(i * 9 + j)]);
      const float got = x[static_cast<size_t>(i * 9 + j)];
      if (!std::isfinite(want)) EXPECT_TRUE(got == want || (std::isnan(want) && std::isnan(got))) << i << "," << j;
      else EXPECT_NEAR(got, want, 1e-5f * std::max(1.0f, std::fabs(want))) << i << "," << j;
    }
}

TEST_P(Fusion, IotaMasksReadTheirIndicesInPlace) {
  // A causal mask (row and column iotas, a compare, a select), a one-hot of
  // labels (a compare against a broadcast), and a float iota along the
  // middle axis of a rank-3 result: each iota becomes its counting axis
  // broadcast (compiler/passes/expand_iota.cc), read by the fused program
  // through its axis map. The values match the unfused program's, which
  // runs every iota at full size.
  constexpr char kSource[] = R"(
func.func @main(%x: tensor<37x53xf32>, %labels: tensor<37xi32>) -> (tensor<37x53xf32>, tensor<37x53xf32>, tensor<4x37x53xf32>) {
  %r = stablehlo.iota dim = 0 : tensor<37x53xi32>
  %c = stablehlo.iota dim = 1 : tensor<37x53xi32>
  %m = stablehlo.compare GE, %r, %c, SIGNED : (tensor<37x53xi32>, tensor<37x53xi32>) -> tensor<37x53xi1>
  %n = stablehlo.constant dense<-1.0e9> : tensor<37x53xf32>
  %0 = stablehlo.select %m, %x, %n : tensor<37x53xi1>, tensor<37x53xf32>
  %l = stablehlo.broadcast_in_dim %labels, dims = [0] : (tensor<37xi32>) -> tensor<37x53xi32>
  %h = stablehlo.compare EQ, %c, %l, SIGNED : (tensor<37x53xi32>, tensor<37x53xi32>) -> tensor<37x53xi1>
  %1 = stablehlo.convert %h : (tensor<37x53xi1>) -> tensor<37x53xf32>
  %f = stablehlo.iota dim = 1 : tensor<4x37x53xf32>
  %xx = stablehlo.broadcast_in_dim %x, dims = [1, 2] : (tensor<37x53xf32>) -> tensor<4x37x53xf32>
  %2 = stablehlo.multiply %f, %xx : tensor<4x37x53xf32>
  return %0, %1, %2 : tensor<37x53xf32>, tensor<37x53xf32>, tensor<4x37x53xf32>
}
)";
  const auto x = Values(37 * 53, 11);
  std::vector<int32_t> labels(37);
  for (size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<int32_t>((i * 7) % 60);  // some past the end
  std::vector<vm::HostTensor> in = {HostTensorOf(ElementType::kF32, {37, 53}, x),
                                    HostTensorOf(ElementType::kSI32, {37}, labels)};
  RunResult fused = CompileAndRun(kSource, true, in);
  RunResult unfused = CompileAndRun(kSource, false, in);
  // Fused: the three 1-D iotas (rows, columns, the float one) and one
  // program per result; the column indices, which two programs read, are
  // read in place by both (a shared broadcast joins each group).
  EXPECT_EQ(fused.dispatches, 6u);
  ASSERT_EQ(fused.outputs.size(), 3u);
  ASSERT_EQ(unfused.outputs.size(), 3u);
  for (size_t k = 0; k < 3; ++k) EXPECT_EQ(fused.outputs[k].data, unfused.outputs[k].data) << "result " << k;
  // And the values themselves.
  std::vector<float> mask(37 * 53), hot(37 * 53), scaled(4 * 37 * 53);
  std::memcpy(mask.data(), fused.outputs[0].data.data(), mask.size() * 4);
  std::memcpy(hot.data(), fused.outputs[1].data.data(), hot.size() * 4);
  std::memcpy(scaled.data(), fused.outputs[2].data.data(), scaled.size() * 4);
  for (int i = 0; i < 37; ++i)
    for (int j = 0; j < 53; ++j) {
      const size_t e = static_cast<size_t>(i * 53 + j);
      const float want = i >= j ? x[e] : -1.0e9f;
      EXPECT_TRUE(std::memcmp(&mask[e], &want, 4) == 0 || (std::isnan(want) && std::isnan(mask[e]))) << i << "," << j;
      EXPECT_EQ(hot[e], labels[i] == j ? 1.0f : 0.0f) << i << "," << j;
      for (int b = 0; b < 4; ++b) {
        const float s = static_cast<float>(i) * x[e], got = scaled[static_cast<size_t>(b) * 37 * 53 + e];
        EXPECT_TRUE(std::memcmp(&got, &s, 4) == 0 || (std::isnan(s) && std::isnan(got))) << b << "," << i << "," << j;
      }
    }
}

TEST_P(Fusion, SlicesOfAProductAreReadInPlace) {
  // A recurrent cell's gates: three column slices of one 384-wide product
  // (rows of 128, shorter than the CPU kernel's block) and a row slice, read
  // by the chain through input_slices: one dispatch, equal to the unfused
  // program (slices, then the chain).
  constexpr char kSource[] = R"(
func.func @main(%g: tensor<9x384xf32>, %h: tensor<10x128xf32>) -> tensor<9x128xf32> {
  %r = "stablehlo.slice"(%g) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 9, 128>, strides = array<i64: 1, 1>} : (tensor<9x384xf32>) -> tensor<9x128xf32>
  %z = "stablehlo.slice"(%g) {start_indices = array<i64: 0, 128>, limit_indices = array<i64: 9, 256>, strides = array<i64: 1, 1>} : (tensor<9x384xf32>) -> tensor<9x128xf32>
  %n = "stablehlo.slice"(%g) {start_indices = array<i64: 0, 256>, limit_indices = array<i64: 9, 384>, strides = array<i64: 1, 1>} : (tensor<9x384xf32>) -> tensor<9x128xf32>
  %p = "stablehlo.slice"(%h) {start_indices = array<i64: 1, 0>, limit_indices = array<i64: 10, 128>, strides = array<i64: 1, 1>} : (tensor<10x128xf32>) -> tensor<9x128xf32>
  %0 = stablehlo.logistic %r : tensor<9x128xf32>
  %1 = stablehlo.logistic %z : tensor<9x128xf32>
  %2 = stablehlo.multiply %0, %n : tensor<9x128xf32>
  %3 = stablehlo.tanh %2 : tensor<9x128xf32>
  %4 = stablehlo.subtract %p, %3 : tensor<9x128xf32>
  %5 = stablehlo.multiply %1, %4 : tensor<9x128xf32>
  %6 = stablehlo.add %3, %5 : tensor<9x128xf32>
  return %6 : tensor<9x128xf32>
}
)";
  std::vector<vm::HostTensor> in = {HostTensorOf(ElementType::kF32, {9, 384}, Values(9 * 384, 41)),
                                    HostTensorOf(ElementType::kF32, {10, 128}, Values(10 * 128, 42))};
  RunResult fused = CompileAndRun(kSource, true, in);
  RunResult unfused = CompileAndRun(kSource, false, in);
  EXPECT_EQ(fused.dispatches, 1u);
  ASSERT_NO_FATAL_FAILURE(ExpectSameResults(fused, unfused, 1));
}

TEST_P(Fusion, StridedSlicesAndSlicesReadElsewhere) {
  // Strided slices in both dims (odd rows, short rows) fuse; a slice that
  // is also a result stays materialised and the chain reads it as is.
  constexpr char kSource[] = R"(
func.func @main(%x: tensor<19x141xf32>, %y: tensor<9x70xf32>) -> (tensor<9x70xf32>, tensor<9x70xf32>) {
  %a = "stablehlo.slice"(%x) {start_indices = array<i64: 1, 3>, limit_indices = array<i64: 19, 141>, strides = array<i64: 2, 2>} : (tensor<19x141xf32>) -> tensor<9x69xf32>
  %b = "stablehlo.slice"(%x) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 9, 70>, strides = array<i64: 1, 1>} : (tensor<19x141xf32>) -> tensor<9x70xf32>
  %c = stablehlo.concatenate %a, %a, dim = 1 : (tensor<9x69xf32>, tensor<9x69xf32>) -> tensor<9x138xf32>
  %d = "stablehlo.slice"(%c) {start_indices = array<i64: 0, 68>, limit_indices = array<i64: 9, 138>, strides = array<i64: 1, 1>} : (tensor<9x138xf32>) -> tensor<9x70xf32>
  %0 = stablehlo.multiply %b, %y : tensor<9x70xf32>
  %1 = stablehlo.add %0, %d : tensor<9x70xf32>
  %2 = stablehlo.exponential %1 : tensor<9x70xf32>
  return %2, %b : tensor<9x70xf32>, tensor<9x70xf32>
}
)";
  std::vector<vm::HostTensor> in = {HostTensorOf(ElementType::kF32, {19, 141}, Values(19 * 141, 43)),
                                    HostTensorOf(ElementType::kF32, {9, 70}, Values(9 * 70, 44))};
  RunResult fused = CompileAndRun(kSource, true, in);
  RunResult unfused = CompileAndRun(kSource, false, in);
  ASSERT_EQ(fused.outputs.size(), 2u);
  ASSERT_EQ(unfused.outputs.size(), 2u);
  EXPECT_LT(fused.dispatches, unfused.dispatches);
  EXPECT_EQ(fused.outputs[0].data, unfused.outputs[0].data);
  EXPECT_EQ(fused.outputs[1].data, unfused.outputs[1].data);
}

TEST_P(Fusion, MlpBiasAndSoftmaxChains) {
  // The shapes of examples/mlp.mlir: bias + relu after a dot, and the
  // softmax's subtract/exp and divide with per-row broadcasts.
  constexpr char kSource[] = R"(
func.func @main(%x: tensor<5x16xf32>, %w: tensor<16x10xf32>, %bias: tensor<10xf32>) -> tensor<5x10xf32> {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<5x16xf32>, tensor<16x10xf32>) -> tensor<5x10xf32>
  %1 = stablehlo.broadcast_in_dim %bias, dims = [1] : (tensor<10xf32>) -> tensor<5x10xf32>
  %2 = stablehlo.add %0, %1 : tensor<5x10xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<5x10xf32>
  %3 = stablehlo.maximum %2, %zero : tensor<5x10xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %max = stablehlo.reduce(%3 init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<5x10xf32>, tensor<f32>) -> tensor<5xf32>
  %4 = stablehlo.broadcast_in_dim %max, dims = [0] : (tensor<5xf32>) -> tensor<5x10xf32>
  %5 = stablehlo.subtract %3, %4 : tensor<5x10xf32>
  %6 = stablehlo.exponential %5 : tensor<5x10xf32>
  %zerof = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%6 init: %zerof) applies stablehlo.add across dimensions = [1] : (tensor<5x10xf32>, tensor<f32>) -> tensor<5xf32>
  %7 = stablehlo.broadcast_in_dim %sum, dims = [0] : (tensor<5xf32>) -> tensor<5x10xf32>
  %8 = stablehlo.divide %6, %7 : tensor<5x10xf32>
  return %8 : tensor<5x10xf32>
}
)";
  const auto x = Values(80, 11), w = Values(160, 12), bias = Values(10, 13);
  std::vector<float> xs(x), ws(w), bs(bias);
  for (auto* vec : {&xs, &ws, &bs})  // finite, moderate values: a real softmax
    for (auto& v : *vec) v = std::isfinite(v) && std::fabs(v) < 100 ? v * 0.1f : 0.5f;
  std::vector<vm::HostTensor> in = {HostTensorOf(ElementType::kF32, {5, 16}, xs),
                                    HostTensorOf(ElementType::kF32, {16, 10}, ws),
                                    HostTensorOf(ElementType::kF32, {10}, bs)};
  RunResult fused = CompileAndRun(kSource, true, in);
  RunResult unfused = CompileAndRun(kSource, false, in);
  // [dot + bias + relu epilogue], [row block: reduce, reduce of
  // subtract+exp, broadcast+subtract+exp+divide]: the exp is computed
  // twice, stored never.
  EXPECT_EQ(fused.dispatches, 2u);
  EXPECT_EQ(unfused.dispatches, 11u);
  ASSERT_NO_FATAL_FAILURE(ExpectSameResults(fused, unfused, 1));
  std::vector<float> p(50);
  std::memcpy(p.data(), fused.outputs[0].data.data(), 200);
  for (int r = 0; r < 5; ++r) {
    float sum = 0;
    for (int c = 0; c < 10; ++c) sum += p[r * 10 + c];
    EXPECT_NEAR(sum, 1.0f, 1e-5f) << "row " << r;
  }
}

TEST_P(Fusion, EpiloguesFuseIntoDotAndConvolution) {
  // dot_general + bias (lower rank, read in place) + tanh, a lone add of a
  // full-shaped tensor after a batched dot, an f64 dot with a clamp, and a
  // convolution + per-feature bias + relu: one dispatch each, bit-for-bit
  // the unfused program.
  constexpr char kSource[] = R"(
func.func @main(%x: tensor<37x70xf32>, %w: tensor<70x53xf32>, %bias: tensor<53xf32>, %a: tensor<3x9x17xf32>,
                %b: tensor<3x17x5xf32>, %y: tensor<3x9x5xf32>, %p: tensor<6x5xf64>, %q: tensor<5x4xf64>,
                %img: tensor<2x9x11x3xf32>, %k: tensor<3x3x3x4xf32>, %kb: tensor<4xf32>)
    -> (tensor<37x53xf32>, tensor<3x9x5xf32>, tensor<6x4xf64>, tensor<2x9x11x4xf32>) {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<37x70xf32>, tensor<70x53xf32>) -> tensor<37x53xf32>
  %1 = stablehlo.broadcast_in_dim %bias, dims = [1] : (tensor<53xf32>) -> tensor<37x53xf32>
  %2 = stablehlo.add %1, %0 : tensor<37x53xf32>
  %3 = stablehlo.tanh %2 : tensor<37x53xf32>
  %4 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<3x9x17xf32>, tensor<3x17x5xf32>) -> tensor<3x9x5xf32>
  %5 = stablehlo.add %y, %4 : tensor<3x9x5xf32>
  %6 = stablehlo.dot_general %p, %q, contracting_dims = [1] x [0] : (tensor<6x5xf64>, tensor<5x4xf64>) -> tensor<6x4xf64>
  %lo = stablehlo.constant dense<-1.0> : tensor<f64>
  %hi = stablehlo.constant dense<1.0> : tensor<f64>
  %7 = stablehlo.clamp %lo, %6, %hi : (tensor<f64>, tensor<6x4xf64>, tensor<f64>) -> tensor<6x4xf64>
  %8 = stablehlo.convolution(%img, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x9x11x3xf32>, tensor<3x3x3x4xf32>) -> tensor<2x9x11x4xf32>
  %9 = stablehlo.broadcast_in_dim %kb, dims = [3] : (tensor<4xf32>) -> tensor<2x9x11x4xf32>
  %10 = stablehlo.add %8, %9 : tensor<2x9x11x4xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<2x9x11x4xf32>
  %11 = stablehlo.maximum %10, %zero : tensor<2x9x11x4xf32>
  return %3, %5, %7, %11 : tensor<37x53xf32>, tensor<3x9x5xf32>, tensor<6x4xf64>, tensor<2x9x11x4xf32>
}
)";
  auto f32 = [](std::vector<int64_t> dims, uint32_t seed) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    const auto v = Values(static_cast<size_t>(n), seed);
    return HostTensorOf(ElementType::kF32, dims, v.data(), v.size() * 4);
  };
  std::vector<double> p(30), q(20);
  for (size_t i = 0; i < p.size(); ++i) p[i] = std::sin(1.7 * i) * 0.9;
  for (size_t i = 0; i < q.size(); ++i) q[i] = std::cos(0.3 * i) * 0.8;
  std::vector<vm::HostTensor> in = {f32({37, 70}, 21), f32({70, 53}, 22), f32({53}, 23), f32({3, 9, 17}, 24),
                                    f32({3, 17, 5}, 25), f32({3, 9, 5}, 26),
                                    HostTensorOf(ElementType::kF64, {6, 5}, p),
                                    HostTensorOf(ElementType::kF64, {5, 4}, q),
                                    f32({2, 9, 11, 3}, 27), f32({3, 3, 3, 4}, 28), f32({4}, 29)};
  RunResult fused = CompileAndRun(kSource, true, in);
  RunResult unfused = CompileAndRun(kSource, false, in);
  EXPECT_EQ(fused.dispatches, 4u);
  EXPECT_EQ(unfused.dispatches, 12u);
  ASSERT_NO_FATAL_FAILURE(ExpectSameResults(fused, unfused, 4));
}

TEST_P(Fusion, ProducerResultsUsedElsewhereAreNotFused) {
  // %0 is returned as well, %3 reads %2 both directly and transposed: both
  // products stay in memory (and the chains after them still fuse).
  constexpr char kSource[] = R"(
func.func @main(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = stablehlo.exponential %0 : tensor<8x8xf32>
  %2 = stablehlo.dot_general %w, %x, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %t = stablehlo.broadcast_in_dim %2, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %3 = stablehlo.subtract %2, %t : tensor<8x8xf32>
  return %0, %1, %3 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}
)";
  const auto x = Values(64, 31), w = Values(64, 32);
  std::vector<vm::HostTensor> in = {HostTensorOf(ElementType::kF32, {8, 8}, x.data(), 256),
                                    HostTensorOf(ElementType::kF32, {8, 8}, w.data(), 256)};
  RunResult fused = CompileAndRun(kSource, true, in);
  RunResult unfused = CompileAndRun(kSource, false, in);
  EXPECT_EQ(fused.dispatches, 4u);  // two dots, exp, subtract
  ASSERT_NO_FATAL_FAILURE(ExpectSameResults(fused, unfused, 3));
}

INSTANTIATE_TEST_SUITE_P(CpuModes, Fusion, ::testing::Values(hal::CpuMode::kInline, hal::CpuMode::kDeferred),
                         [](const auto& info) { return info.param == hal::CpuMode::kInline ? "inline" : "deferred"; });

}  // namespace
}  // namespace kiln
