// Quantized elementwise ops, legalized into plain ops
// (compiler/passes/legalize_quantized.cc) and fused back
// (compiler/passes/fuse_elementwise.cc): one quantized op is still one
// dispatch, a chain of them becomes one, and the results equal bit for bit
// those of the unfused compile, where lowering builds each op's
// dequantize-op-quantize program directly.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <set>

#include "compiler/compile.h"
#include "hal/cpu/cpu_device.h"
#include "tests/support/host_tensor_util.h"
#include "tests/support/counted_run.h"
#include "vm/context.h"

namespace kiln {
namespace {

using test::HostTensorOf;

using RunResult = test::CountedRun;

class QuantizedFusion : public ::testing::TestWithParam<hal::CpuMode> {
 protected:
  RunResult CompileAndRun(const std::string& source, bool fuse, const std::vector<vm::HostTensor>& inputs) {
    return test::CompileAndRunCounted(source, inputs, {.fuse = fuse, .mode = GetParam(), .file_name = "quantized.mlir"});
  }

  // Values across and beyond the quantized ranges, with NaN and infinities.
  static std::vector<vm::HostTensor> Inputs(size_t n) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-40.0f, 40.0f);
    std::vector<float> a(n), b(n);
    for (size_t i = 0; i < n; ++i) a[i] = u(rng), b[i] = u(rng);
    const float specials[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 0.05f, -0.05f, 1e30f};
    for (size_t i = 0; i < n; i += 29) a[i] = specials[(i / 29) % 8];
    for (size_t i = 3; i < n; i += 31) b[i] = specials[(i / 31) % 8];
    return {HostTensorOf(ElementType::kF32, {static_cast<int64_t>(n)}, a),
            HostTensorOf(ElementType::kF32, {static_cast<int64_t>(n)}, b)};
  }

  static void ExpectSameBits(const RunResult& x, const RunResult& y) {
    ASSERT_EQ(x.outputs.size(), y.outputs.size());
    for (size_t i = 0; i < x.outputs.size(); ++i) {
      EXPECT_EQ(x.outputs[i].type, y.outputs[i].type);
      EXPECT_EQ(x.outputs[i].dims, y.outputs[i].dims);
      EXPECT_TRUE(x.outputs[i].data == y.outputs[i].data) << "output " << i << " differs";
    }
  }
};

constexpr char kAdd[] = R"(
func.func @main(%a: tensor<1000xf32>, %b: tensor<1000xf32>) -> tensor<1000xi8> {
  %qa = "stablehlo.uniform_quantize"(%a) : (tensor<1000xf32>) -> tensor<1000x!quant.uniform<i8:f32, 0.1:-30>>
  %qb = "stablehlo.uniform_quantize"(%b) : (tensor<1000xf32>) -> tensor<1000x!quant.uniform<i8:f32, 0.5:-20>>
  %r = "stablehlo.add"(%qa, %qb) : (tensor<1000x!quant.uniform<i8:f32, 0.1:-30>>, tensor<1000x!quant.uniform<i8:f32, 0.5:-20>>) -> tensor<1000x!quant.uniform<i8:f32, 0.5:-20>>
  %s = "stablehlo.bitcast_convert"(%r) : (tensor<1000x!quant.uniform<i8:f32, 0.5:-20>>) -> tensor<1000xi8>
  return %s : tensor<1000xi8>
}
)";

TEST_P(QuantizedFusion, OneOpStaysOneDispatchWithTheSameBits) {
  const auto inputs = Inputs(1000);
  RunResult fused = CompileAndRun(kAdd, true, inputs);
  RunResult unfused = CompileAndRun(kAdd, false, inputs);
  // Two uniform_quantize dispatches and the add's.
  EXPECT_EQ(fused.dispatches, 3u);
  EXPECT_EQ(unfused.dispatches, 3u);
  ExpectSameBits(fused, unfused);
  // Not all saturated: the inputs exercise the arithmetic, not only the clamp.
  ASSERT_EQ(fused.outputs.size(), 1u);
  std::set<int8_t> distinct(reinterpret_cast<const int8_t*>(fused.outputs[0].data.data()),
                            reinterpret_cast<const int8_t*>(fused.outputs[0].data.data()) + 1000);
  EXPECT_GT(distinct.size(), 50u);
}

constexpr char kChain[] = R"(
func.func @main(%a: tensor<1000xf32>, %b: tensor<1000xf32>) -> (tensor<1000xi8>, tensor<1000xi1>, tensor<1000xf32>) {
  %qa = "stablehlo.uniform_quantize"(%a) : (tensor<1000xf32>) -> tensor<1000x!quant.uniform<i8:f32, 0.1:-30>>
  %qb = "stablehlo.uniform_quantize"(%b) : (tensor<1000xf32>) -> tensor<1000x!quant.uniform<i8:f32, 0.5:-20>>
  %s = "stablehlo.add"(%qa, %qb) : (tensor<1000x!quant.uniform<i8:f32, 0.1:-30>>, tensor<1000x!quant.uniform<i8:f32, 0.5:-20>>) -> tensor<1000x!quant.uniform<i8:f32, 0.5:-20>>
  %m = "stablehlo.multiply"(%s, %qa) : (tensor<1000x!quant.uniform<i8:f32, 0.5:-20>>, tensor<1000x!quant.uniform<i8:f32, 0.1:-30>>) -> tensor<1000x!quant.uniform<i8:f32, 0.25:5>>
  %t = "stablehlo.tanh"(%m) : (tensor<1000x!quant.uniform<i8:f32, 0.25:5>>) -> tensor<1000x!quant.uniform<i8:f32, 0.01:0>>
  %o = "stablehlo.bitcast_convert"(%t) : (tensor<1000x!quant.uniform<i8:f32, 0.01:0>>) -> tensor<1000xi8>
  %c = "stablehlo.compare"(%qa, %qb) {comparison_direction = #stablehlo<comparison_direction GT>} : (tensor<1000x!quant.uniform<i8:f32, 0.1:-30>>, tensor<1000x!quant.uniform<i8:f32, 0.5:-20>>) -> tensor<1000xi1>
  %f = "stablehlo.convert"(%s) : (tensor<1000x!quant.uniform<i8:f32, 0.5:-20>>) -> tensor<1000xf32>
  return %o, %c, %f : tensor<1000xi8>, tensor<1000xi1>, tensor<1000xf32>
}
)";

TEST_P(QuantizedFusion, ChainsFuseIntoFewerDispatchesWithTheSameBits) {
  const auto inputs = Inputs(1000);
  RunResult fused = CompileAndRun(kChain, true, inputs);
  RunResult unfused = CompileAndRun(kChain, false, inputs);
  // Unfused: two quantizes and one dispatch per quantized op (add, multiply,
  // tanh, compare, convert). Fused: the add is read by two ops, so it stays a
  // dispatch of its own; multiply and tanh become one; compare and convert
  // one each.
  EXPECT_EQ(unfused.dispatches, 7u);
  EXPECT_EQ(fused.dispatches, 6u);
  ExpectSameBits(fused, unfused);
}

// A legalized op stands for many IR ops that emit no code of their own; the
// function keeps one source location per pc that starts an op's code, and
// it is the op that emitted there.
TEST(QuantizedFusionLocations, OneRecordPerPc) {
  compiler::CompileOptions options;
  options.target = "cpu";
  auto bytes = compiler::Compile(kChain, "quantized.mlir", options, nullptr);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  auto module = vm::LoadModule(bytes.value());
  ASSERT_TRUE(module.ok()) << module.status().message();
  const auto& locations = (*module)->functions[0].locations;
  ASSERT_FALSE(locations.empty());
  for (size_t i = 1; i < locations.size(); ++i)
    EXPECT_LT(locations[i - 1].pc, locations[i].pc) << "record " << i;
  EXPECT_LE(locations.size(), (*module)->functions[0].code.size());
}

INSTANTIATE_TEST_SUITE_P(CpuModes, QuantizedFusion, ::testing::Values(hal::CpuMode::kInline, hal::CpuMode::kDeferred),
                         [](const auto& info) {
                           return std::string(info.param == hal::CpuMode::kInline ? "Inline" : "Deferred");
                         });

}  // namespace
}  // namespace kiln
