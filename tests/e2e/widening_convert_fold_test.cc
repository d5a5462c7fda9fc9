// The widening-convert fold (compiler/passes/fold_widening_converts.h): for
// the CPU target, an f16/bf16 -> f32 convert feeding an f32 dot_general,
// dot or convolution is taken into the contraction, which reads the 16-bit
// operand itself. Against the same program compiled for every target
// (where the convert stays a dispatch of its own): fewer dispatches, the
// same bits; a convert with another user stays.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "kernels/cpu/half_float.h"
#include "tests/support/counted_run.h"
#include "tests/support/host_tensor_util.h"

namespace kiln {
namespace {

using test::HostTensorOf;

// Random values rounded to bf16 or f16 bits (to nearest even), with a few
// infinities, zeros of both signs and (f16) subnormals.
vm::HostTensor Random16(ElementType t, std::vector<int64_t> dims, std::mt19937& rng) {
  std::normal_distribution<float> u(0.0f, 1.0f);
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<uint16_t> bits(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    float v = u(rng);
    if (i % 37 == 5) v = i % 2 ? 0.0f : -0.0f;
    if (i % 53 == 9) v = 3e-6f;  // an f16 subnormal; a normal bf16
    bits[i] = t == ElementType::kBF16 ? cpu::F32ToBF16(v) : cpu::F32ToF16(v);
  }
  return HostTensorOf(t, std::move(dims), bits);
}

void ExpectFoldedSameBits(const std::string& source, const std::vector<vm::HostTensor>& inputs) {
  test::CountedRun cpu = test::CompileAndRunCounted(source, inputs, {.target = "cpu", .file_name = "widen.mlir"});
  test::CountedRun all = test::CompileAndRunCounted(source, inputs, {.target = "all", .file_name = "widen.mlir"});
  EXPECT_LT(cpu.dispatches, all.dispatches);
  ASSERT_EQ(cpu.outputs.size(), all.outputs.size());
  for (size_t i = 0; i < cpu.outputs.size(); ++i) {
    EXPECT_EQ(cpu.outputs[i].dims, all.outputs[i].dims);
    EXPECT_TRUE(cpu.outputs[i].data == all.outputs[i].data) << "output " << i << " differs";
  }
}

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

// Batch-1 and batch-32 layers over 16-bit weights (the row-streaming and
// the packed GEMM paths), transposed weights, and one convert read twice.
constexpr char kDots[] = R"(
func.func @main(%x1: tensor<2x96xf32>, %x32: tensor<32x96xf32>, %w: tensor<96x64xHALF>, %v: tensor<48x96xHALF>)
    -> (tensor<2x64xf32>, tensor<32x64xf32>, tensor<2x48xf32>, tensor<96x64xf32>) {
  %w32 = stablehlo.convert %w : (tensor<96x64xHALF>) -> tensor<96x64xf32>
  %a = stablehlo.dot_general %x1, %w32, contracting_dims = [1] x [0] : (tensor<2x96xf32>, tensor<96x64xf32>) -> tensor<2x64xf32>
  %b = stablehlo.dot_general %x32, %w32, contracting_dims = [1] x [0] : (tensor<32x96xf32>, tensor<96x64xf32>) -> tensor<32x64xf32>
  %v32 = stablehlo.convert %v : (tensor<48x96xHALF>) -> tensor<48x96xf32>
  %c = stablehlo.dot_general %x1, %v32, contracting_dims = [1] x [1] : (tensor<2x96xf32>, tensor<48x96xf32>) -> tensor<2x48xf32>
  %u = stablehlo.convert %w : (tensor<96x64xHALF>) -> tensor<96x64xf32>
  %d = stablehlo.add %u, %u : tensor<96x64xf32>
  %e = stablehlo.dot_general %x1, %u, contracting_dims = [1] x [0] : (tensor<2x96xf32>, tensor<96x64xf32>) -> tensor<2x64xf32>
  %f = stablehlo.add %a, %e : tensor<2x64xf32>
  return %f, %b, %c, %d : tensor<2x64xf32>, tensor<32x64xf32>, tensor<2x48xf32>, tensor<96x64xf32>
}
)";

TEST(WideningConvertFold, DotsReadTheirSixteenBitWeights) {
  for (const char* half : {"bf16", "f16"}) {
    SCOPED_TRACE(half);
    const ElementType t = std::string(half) == "bf16" ? ElementType::kBF16 : ElementType::kF16;
    std::mt19937 rng(3);
    const std::vector<vm::HostTensor> inputs = {test::RandomF32({2, 96}, rng), test::RandomF32({32, 96}, rng),
                                                Random16(t, {96, 64}, rng), Random16(t, {48, 96}, rng)};
    // %w32 and %v32 fold; %u stays for the add (into which it then fuses).
    ExpectFoldedSameBits(Replace(kDots, "HALF", half), inputs);
  }
}

constexpr char kConv[] = R"(
func.func @main(%x: tensor<2x9x9x16xf32>, %w: tensor<3x3x16x24xbf16>) -> tensor<2x9x9x24xf32> {
  %w32 = stablehlo.convert %w : (tensor<3x3x16x24xbf16>) -> tensor<3x3x16x24xf32>
  %y = stablehlo.convolution(%x, %w32) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x9x9x16xf32>, tensor<3x3x16x24xf32>) -> tensor<2x9x9x24xf32>
  return %y : tensor<2x9x9x24xf32>
}
)";

TEST(WideningConvertFold, ConvolutionsReadTheirSixteenBitWeights) {
  std::mt19937 rng(4);
  ExpectFoldedSameBits(kConv, {test::RandomF32({2, 9, 9, 16}, rng), Random16(ElementType::kBF16, {3, 3, 16, 24}, rng)});
}

}  // namespace
}  // namespace kiln
