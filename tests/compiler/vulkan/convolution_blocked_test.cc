// The register-blocked convolution shader (compiler/vulkan/
// kernels_contraction_blocked.cc, kernels/vulkan/convolution_blocked.glsl)
// against the CPU device: both result layouts it writes ([b, spatial..., f]
// and [b, f, spatial...]), inputs and kernels in other layouts, feature
// groups (grouped, depthwise, a channel multiplier), 1-D to 3-D
// windows, strides, kernel dilation, reversal, negative and uneven padding,
// sizes that are not multiples of its 8x16 tile, 1x1 convolutions, a fused
// epilogue, infinite weights meeting padding (the spec's padded lhs holds
// zeros, and 0 * inf is NaN); and which convolutions take it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tests/hal/vulkan/vulkan_test_fixture.h"

namespace kiln::vulkan_test {
namespace {

std::string Shape(const std::vector<int64_t>& dims) {
  std::string s = "tensor<";
  for (int64_t d : dims) s += std::to_string(d) + "x";
  return s + "f32>";
}

struct ConvCase {
  std::vector<int64_t> lhs, rhs, out;
  std::string dims, window;
  int64_t terms;  // contracted terms per output (taps x input features)
  int64_t groups = 1;
};

std::string ConvFunction(size_t n, const ConvCase& c) {
  return "func.func @f" + std::to_string(n) + "(%a: " + Shape(c.lhs) + ", %b: " + Shape(c.rhs) + ") -> " +
         Shape(c.out) + " {\n  %0 = stablehlo.convolution(%a, %b) dim_numbers = " + c.dims + ", window = {" +
         c.window + "} {batch_group_count = 1 : i64, feature_group_count = " + std::to_string(c.groups) +
         " : i64} : (" + Shape(c.lhs) + ", " + Shape(c.rhs) + ") -> " + Shape(c.out) + "\n  return %0 : " +
         Shape(c.out) + "\n}\n";
}

void RunCases(hal::Device* cpu, hal::Device* vulkan, const std::vector<ConvCase>& cases, uint32_t workgroup_size,
              float inf_weight = 0) {
  std::string src;
  for (size_t c = 0; c < cases.size(); ++c) src += ConvFunction(c, cases[c]);
  // Which shader each took: the blocked ones run 8 invocations per work
  // group, the generic dot_general 256, the generic convolution 64.
  auto bytes = CompileForWorkGroups(src, workgroup_size);
  ASSERT_FALSE(bytes.empty());
  std::mt19937_64 rng(41);
  for (size_t c = 0; c < cases.size(); ++c) {
    std::vector<vm::HostTensor> in = {RandomF32(cases[c].lhs, rng), RandomF32(cases[c].rhs, rng)};
    if (inf_weight != 0) std::memcpy(in[1].data.data() + 4 * 7, &inf_weight, 4);
    const std::string fn = "f" + std::to_string(c);
    auto want = RunOn(cpu, bytes, fn, in);
    auto got = RunOn(vulkan, bytes, fn, in);
    ASSERT_TRUE(want.ok()) << want.status().message();
    ASSERT_TRUE(got.ok()) << got.status().message();
    ExpectCloseF32((*got)[0], (*want)[0], cases[c].terms, fn + " " + cases[c].dims);
  }
}

const char kNhwc[] = "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]";
const char kNchw[] = "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]";

std::vector<ConvCase> Cases() {
  return {
      // NHWC, same padding; 2 x 9 x 11 positions and 19 features: edge tiles in both.
      {{2, 9, 11, 5}, {3, 3, 5, 19}, {2, 9, 11, 19}, kNhwc, "pad = [[1, 1], [1, 1]]", 45},
      // NCHW, OIHW kernel: strides, kernel dilation, uneven padding.
      {{3, 6, 10, 7}, {17, 6, 3, 3}, {3, 17, 6, 4}, kNchw,
       "stride = [2, 1], pad = [[1, 2], [0, 1]], rhs_dilate = [1, 2]", 54},
      // 1-D, reversed window, negative padding.
      {{4, 20, 3}, {5, 3, 8}, {4, 17, 8}, "[b, 0, f]x[0, i, o]->[b, 0, f]", "pad = [[-1, 2]], reverse = [1]", 15},
      // 3-D.
      {{1, 4, 5, 6, 3}, {2, 2, 3, 3, 4}, {1, 4, 5, 6, 4}, "[b, 0, 1, 2, f]x[0, 1, 2, i, o]->[b, 0, 1, 2, f]",
       "pad = [[0, 1], [1, 0], [1, 1]]", 36},
      // NHWC, 8 input and 20 output features: vec4 texel reads of both
      // operands (an edge feature tile), strides and padding.
      {{2, 7, 9, 8}, {3, 3, 8, 20}, {2, 4, 5, 20}, kNhwc, "stride = [2, 2], pad = [[1, 1], [1, 1]]", 72},
      // 1x1 (an inverted residual block's expansion).
      {{2, 4, 4, 32}, {1, 1, 32, 48}, {2, 4, 4, 48}, kNhwc, "", 32},
      // NCHW input, NHWC result; kernel [i, 0, 1, o].
      {{2, 4, 6, 6}, {4, 3, 3, 9}, {2, 6, 6, 9}, "[b, f, 0, 1]x[i, 0, 1, o]->[b, 0, 1, f]", "pad = [[1, 1], [1, 1]]",
       36},
      // NHWC input, NCHW result, one position.
      {{1, 3, 3, 2}, {3, 3, 2, 5}, {1, 5, 1, 1}, "[b, 0, 1, f]x[0, 1, i, o]->[b, f, 0, 1]", "", 18},
      // Two feature groups of 3 inputs and 2 outputs each.
      {{2, 5, 5, 6}, {3, 3, 3, 4}, {2, 5, 5, 4}, kNhwc, "pad = [[1, 1], [1, 1]]", 27, 2},
      // Depthwise, NHWC (an inverted residual block's), 24 features: an edge feature tile.
      {{2, 7, 6, 24}, {3, 3, 1, 24}, {2, 7, 6, 24}, kNhwc, "pad = [[1, 1], [1, 1]]", 9, 24},
      // Depthwise with a channel multiplier of 2, NCHW, stride 2 (405 and
      // 90 elements: views that end short of the last ones, so storage-buffer reads).
      {{1, 5, 9, 9}, {10, 1, 3, 3}, {1, 10, 5, 5}, kNchw, "stride = [2, 2], pad = [[1, 1], [1, 1]]", 9, 5},
      // Depthwise, NCHW, whole texels: one component of a texel per read.
      {{2, 8, 6, 6}, {8, 1, 3, 3}, {2, 8, 6, 6}, kNchw, "pad = [[1, 1], [1, 1]]", 9, 8},
  };
}

TEST_F(VulkanTest, BlockedConvolutionMatchesCpu) { RunCases(cpu_.get(), vulkan_.get(), Cases(), 8u); }

// An infinite weight: positions whose tap meets it inside the input are
// infinite, those where the tap falls on padding NaN (0 * inf), as on the
// CPU device.
TEST_F(VulkanTest, BlockedConvolutionMultipliesPaddingZerosLikeTheSpec) {
  const auto cases = Cases();
  RunCases(cpu_.get(), vulkan_.get(), {cases[0], cases[1], cases[4], cases[9]}, 8u, INFINITY);
}

// A fused epilogue (bias and relu over the NCHW result) runs on each result
// in the blocked shader.
TEST_F(VulkanTest, BlockedConvolutionRunsItsEpilogue) {
  const char* src = R"(
func.func @main(%a: tensor<2x8x9x9xf32>, %w: tensor<16x8x3x3xf32>, %bias: tensor<16xf32>) -> tensor<2x16x9x9xf32> {
  %0 = stablehlo.convolution(%a, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x8x9x9xf32>, tensor<16x8x3x3xf32>) -> tensor<2x16x9x9xf32>
  %1 = stablehlo.broadcast_in_dim %bias, dims = [1] : (tensor<16xf32>) -> tensor<2x16x9x9xf32>
  %2 = stablehlo.add %0, %1 : tensor<2x16x9x9xf32>
  %3 = stablehlo.constant dense<0.0> : tensor<2x16x9x9xf32>
  %4 = stablehlo.maximum %2, %3 : tensor<2x16x9x9xf32>
  return %4 : tensor<2x16x9x9xf32>
}
)";
  auto bytes = CompileAll(src, "vulkan");
  ASSERT_FALSE(bytes.empty());
  auto module = vm::LoadModule(bytes);
  ASSERT_TRUE(module.ok()) << module.status().message();
  ASSERT_EQ((*module)->vulkan_shaders.size(), 1u);  // one dispatch: the epilogue is fused
  for (const auto& v : (*module)->vulkan_shaders[0]) {
    EXPECT_EQ(v.workgroup_size, 8u);
    EXPECT_EQ(v.texel_inputs, 0b11u);  // NCHW operands too are read through texel views
  }
  std::mt19937_64 rng(43);
  std::vector<vm::HostTensor> in = {RandomF32({2, 8, 9, 9}, rng), RandomF32({16, 8, 3, 3}, rng),
                                    RandomF32({16}, rng)};
  auto want = RunOn(cpu_.get(), bytes, "main", in);
  auto got = RunOn(vulkan_.get(), bytes, "main", in);
  ASSERT_TRUE(want.ok()) << want.status().message();
  ASSERT_TRUE(got.ok()) << got.status().message();
  ExpectCloseF32((*got)[0], (*want)[0], 72, "epilogue");
}

// Epilogue reads that depend on the output feature alone (per-feature
// scale and shift, a scalar) are made once per tile column, others (a
// residual) per element: NHWC and NCHW results, 20 features (a tile column
// past the last feature leaves the loop), and a dense layer's bias over 37
// columns. A column read at the wrong feature fails the comparison.
TEST_F(VulkanTest, BlockedEpilogueReadsByColumnMatchCpu) {
  const char* src = R"(
func.func @nhwc(%a: tensor<2x5x5x8xf32>, %w: tensor<3x3x8x20xf32>, %scale: tensor<20xf32>, %shift: tensor<20xf32>, %s: tensor<f32>, %res: tensor<2x5x5x20xf32>) -> tensor<2x5x5x20xf32> {
  %0 = stablehlo.convolution(%a, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x5x5x8xf32>, tensor<3x3x8x20xf32>) -> tensor<2x5x5x20xf32>
  %1 = stablehlo.broadcast_in_dim %scale, dims = [3] : (tensor<20xf32>) -> tensor<2x5x5x20xf32>
  %2 = stablehlo.broadcast_in_dim %shift, dims = [3] : (tensor<20xf32>) -> tensor<2x5x5x20xf32>
  %3 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<2x5x5x20xf32>
  %4 = stablehlo.multiply %0, %1 : tensor<2x5x5x20xf32>
  %5 = stablehlo.add %4, %2 : tensor<2x5x5x20xf32>
  %6 = stablehlo.multiply %5, %3 : tensor<2x5x5x20xf32>
  %7 = stablehlo.add %6, %res : tensor<2x5x5x20xf32>
  return %7 : tensor<2x5x5x20xf32>
}
func.func @nchw(%a: tensor<2x8x5x5xf32>, %w: tensor<20x8x3x3xf32>, %scale: tensor<20xf32>, %shift: tensor<20xf32>, %s: tensor<f32>, %res: tensor<2x20x5x5xf32>) -> tensor<2x20x5x5xf32> {
  %0 = stablehlo.convolution(%a, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x8x5x5xf32>, tensor<20x8x3x3xf32>) -> tensor<2x20x5x5xf32>
  %1 = stablehlo.broadcast_in_dim %scale, dims = [1] : (tensor<20xf32>) -> tensor<2x20x5x5xf32>
  %2 = stablehlo.broadcast_in_dim %shift, dims = [1] : (tensor<20xf32>) -> tensor<2x20x5x5xf32>
  %3 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<2x20x5x5xf32>
  %4 = stablehlo.multiply %0, %1 : tensor<2x20x5x5xf32>
  %5 = stablehlo.add %4, %2 : tensor<2x20x5x5xf32>
  %6 = stablehlo.multiply %5, %3 : tensor<2x20x5x5xf32>
  %7 = stablehlo.add %6, %res : tensor<2x20x5x5xf32>
  return %7 : tensor<2x20x5x5xf32>
}
func.func @dense(%a: tensor<7x20xf32>, %w: tensor<20x37xf32>, %bias: tensor<37xf32>, %res: tensor<7x37xf32>) -> tensor<7x37xf32> {
  %0 = stablehlo.dot_general %a, %w, contracting_dims = [1] x [0] : (tensor<7x20xf32>, tensor<20x37xf32>) -> tensor<7x37xf32>
  %1 = stablehlo.broadcast_in_dim %bias, dims = [1] : (tensor<37xf32>) -> tensor<7x37xf32>
  %2 = stablehlo.add %0, %1 : tensor<7x37xf32>
  %3 = stablehlo.add %2, %res : tensor<7x37xf32>
  return %3 : tensor<7x37xf32>
}
)";
  auto bytes = CompileAll(src, "vulkan");
  ASSERT_FALSE(bytes.empty());
  auto module = vm::LoadModule(bytes);
  ASSERT_TRUE(module.ok()) << module.status().message();
  ASSERT_EQ((*module)->vulkan_shaders.size(), 3u);  // one dispatch each: the epilogues are fused
  for (const auto& variants : (*module)->vulkan_shaders)
    for (const auto& v : variants) EXPECT_EQ(v.workgroup_size, 8u);  // the blocked shaders
  std::mt19937_64 rng(47);
  ExpectF32RunsMatchCpu(cpu_.get(), vulkan_.get(), bytes,
                        {{"nhwc", {{2, 5, 5, 8}, {3, 3, 8, 20}, {20}, {20}, {}, {2, 5, 5, 20}}, 72},
                         {"nchw", {{2, 8, 5, 5}, {20, 8, 3, 3}, {20}, {20}, {}, {2, 20, 5, 5}}, 72},
                         {"dense", {{7, 20}, {20, 37}, {37}, {7, 37}}, 20}},
                        rng);
}

// lhs dilation (transposed convolutions: a decoder's upsampling) takes the
// blocked shader, whose taps on the holes between input elements read
// zeros as on padding: NHWC and NCHW, strided-transpose shapes with
// asymmetric padding, a 1-D one with a kernel dilation too, odd feature
// counts; an infinite weight on holes gives NaN, as on the CPU.
TEST_F(VulkanTest, BlockedConvolutionWithLhsDilationMatchesCpu) {
  const std::vector<ConvCase> cases = {
      {{1, 3, 3, 2}, {2, 2, 2, 3}, {1, 4, 4, 3}, kNhwc, "lhs_dilate = [2, 2]", 8},
      {{2, 5, 5, 8}, {3, 3, 8, 20}, {2, 10, 10, 20}, kNhwc, "pad = [[1, 2], [1, 2]], lhs_dilate = [2, 2]", 72},
      {{1, 8, 4, 5}, {16, 8, 3, 3}, {1, 16, 12, 15}, "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]",
       "pad = [[2, 2], [2, 2]], lhs_dilate = [3, 3]", 72},
      {{2, 9, 4}, {3, 4, 6}, {2, 16, 6}, "[b, 0, f]x[0, i, o]->[b, 0, f]",
       "pad = [[2, 1]], lhs_dilate = [2], rhs_dilate = [2]", 12}};
  RunCases(cpu_.get(), vulkan_.get(), cases, 8u);
  RunCases(cpu_.get(), vulkan_.get(), cases, 8u, INFINITY);
}

// 8- and 16-bit integer convolutions into i32 take the blocked shader,
// summing in int accumulators (wrapping in 32 bits as the reference's sums
// do): i8 x i8 NHWC with padding, NCHW strided, u8 x u8, depthwise, a
// transposed one, i8 sums past 2^24 (where f32 would round) and i16 sums
// that wrap at the extremes. Bit for bit against the CPU, on random bytes
// and with every element at its extreme.
TEST_F(VulkanTest, SmallIntegerConvolutionsTakeTheBlockedShader) {
  struct Case {
    std::vector<int64_t> lhs, rhs, out;
    std::string dims, window;
    ElementType a, b;
    int64_t groups;
    uint32_t workgroup;  // 8: the blocked shader; 64: the generic one
  };
  const std::vector<Case> cases = {
      {{2, 6, 6, 113}, {3, 3, 113, 20}, {2, 6, 6, 20}, kNhwc, "pad = [[1, 1], [1, 1]]", ElementType::kSI8,
       ElementType::kSI8, 1, 8},
      {{1, 16, 9, 9}, {20, 16, 3, 3}, {1, 20, 4, 4}, kNchw, "stride = [2, 2]", ElementType::kSI8, ElementType::kSI8, 1,
       8},
      {{2, 5, 5, 28}, {3, 3, 28, 12}, {2, 5, 5, 12}, kNhwc, "pad = [[1, 1], [1, 1]]", ElementType::kUI8,
       ElementType::kUI8, 1, 8},
      {{1, 7, 7, 24}, {3, 3, 1, 24}, {1, 7, 7, 24}, kNhwc, "pad = [[1, 1], [1, 1]]", ElementType::kSI8,
       ElementType::kSI8, 24, 8},
      {{1, 4, 4, 8}, {3, 3, 8, 8}, {1, 8, 8, 8}, kNhwc, "pad = [[1, 2], [1, 2]], lhs_dilate = [2, 2]",
       ElementType::kSI8, ElementType::kSI8, 1, 8},
      {{1, 4, 4, 114}, {3, 3, 114, 8}, {1, 4, 4, 8}, kNhwc, "pad = [[1, 1], [1, 1]]", ElementType::kSI8,
       ElementType::kSI8, 1, 8},
      {{1, 4, 4, 16}, {3, 3, 16, 8}, {1, 4, 4, 8}, kNhwc, "pad = [[1, 1], [1, 1]]", ElementType::kSI16,
       ElementType::kSI16, 1, 8}};
  auto tensor = [](const std::vector<int64_t>& d, ElementType t) {
    std::string s = "tensor<";
    for (int64_t x : d) s += std::to_string(x) + "x";
    return s + (t == ElementType::kSI8    ? "i8>"
                : t == ElementType::kUI8  ? "ui8>"
                : t == ElementType::kSI16 ? "i16>"
                                          : "i32>");
  };
  std::mt19937_64 rng(71);
  for (size_t n = 0; n < cases.size(); ++n) {
    const Case& c = cases[n];
    const std::string src = "func.func @main(%a: " + tensor(c.lhs, c.a) + ", %b: " + tensor(c.rhs, c.b) + ") -> " +
                            tensor(c.out, ElementType::kSI32) + " {\n  %0 = stablehlo.convolution(%a, %b) dim_numbers = " +
                            c.dims + ", window = {" + c.window + "} {batch_group_count = 1 : i64, feature_group_count = " +
                            std::to_string(c.groups) + " : i64} : (" + tensor(c.lhs, c.a) + ", " + tensor(c.rhs, c.b) +
                            ") -> " + tensor(c.out, ElementType::kSI32) + "\n  return %0 : " +
                            tensor(c.out, ElementType::kSI32) + "\n}\n";
    auto bytes = CompileForWorkGroups(src, c.workgroup);
    ASSERT_FALSE(bytes.empty()) << n;
    // Random bytes, then every byte at its extreme (-128 or 255: the
    // largest sums, away from padding).
    for (bool extreme : {false, true}) {
      auto operand = [&](const std::vector<int64_t>& d, ElementType t) {
        int64_t count = 1;
        for (int64_t x : d) count *= x;
        const size_t width = t == ElementType::kSI16 ? 2 : 1;
        std::vector<uint8_t> v(static_cast<size_t>(count) * width);
        for (size_t k = 0; k < v.size(); ++k)  // extremes: -128, 255, -32768
          v[k] = !extreme ? static_cast<uint8_t>(rng()) : t == ElementType::kUI8 ? 255 : (k % width == width - 1 ? 0x80 : 0);
        return HostTensorOf(t, d, v);
      };
      std::vector<vm::HostTensor> in = {operand(c.lhs, c.a), operand(c.rhs, c.b)};
      auto want = RunOn(cpu_.get(), bytes, "main", in);
      auto got = RunOn(vulkan_.get(), bytes, "main", in);
      ASSERT_TRUE(want.ok()) << want.status().message();
      ASSERT_TRUE(got.ok()) << got.status().message();
      EXPECT_EQ((*got)[0].data, (*want)[0].data) << "case " << n << (extreme ? ", extremes" : ", random");
    }
  }
}

// Result layouts other than the two keep the generic shader, and still
// match the CPU, an infinite weight on padding included (NaN: the generic
// shader multiplies its zeros too).
TEST_F(VulkanTest, ConvolutionOutsideTheBlockedShapesKeepsTheGenericShader) {
  const std::vector<ConvCase> cases = {
      {{1, 4, 4, 8}, {3, 3, 1, 8}, {4, 1, 4, 8}, "[b, 0, 1, f]x[0, 1, i, o]->[0, b, 1, f]",
       "pad = [[1, 1], [1, 1]]", 9, 8}};
  RunCases(cpu_.get(), vulkan_.get(), cases, 64u);
  RunCases(cpu_.get(), vulkan_.get(), cases, 64u, INFINITY);
}

// A constant f32 tensor of `dims` as MLIR hex data, holding `t`'s values.
std::string HexConstant(const vm::HostTensor& t) {
  static const char digits[] = "0123456789ABCDEF";
  std::string s = "dense<\"0x";
  for (uint8_t b : t.data) s += std::string{digits[b >> 4], digits[b & 15]};
  return s + "\">";
}

// Each case as a function with its kernel a constant, compiled for every
// target (the kernel laid out for Vulkan) and for the CPU alone (as
// written), run on Vulkan and on the CPU: a value moved to the wrong place
// fails.
void ExpectConstantKernelCasesMatchCpu(hal::Device* cpu, hal::Device* vulkan, const std::vector<ConvCase>& cases,
                                       uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string src;
  std::vector<vm::HostTensor> kernels;
  for (size_t n = 0; n < cases.size(); ++n) {
    const ConvCase& c = cases[n];
    kernels.push_back(RandomF32(c.rhs, rng));
    src += "func.func @f" + std::to_string(n) + "(%a: " + Shape(c.lhs) + ") -> " + Shape(c.out) +
           " {\n  %b = stablehlo.constant " + HexConstant(kernels.back()) + " : " + Shape(c.rhs) +
           "\n  %0 = stablehlo.convolution(%a, %b) dim_numbers = " + c.dims + ", window = {" + c.window +
           "} {batch_group_count = 1 : i64, feature_group_count = " + std::to_string(c.groups) + " : i64} : (" +
           Shape(c.lhs) + ", " + Shape(c.rhs) + ") -> " + Shape(c.out) + "\n  return %0 : " + Shape(c.out) +
           "\n}\n";
  }
  auto on_vulkan = CompileForWorkGroups(src, 8);  // every one the blocked shader
  auto on_cpu = CompileAll(src, "cpu");
  ASSERT_FALSE(on_vulkan.empty());
  ASSERT_FALSE(on_cpu.empty());
  for (size_t n = 0; n < cases.size(); ++n) {
    const std::string fn = "f" + std::to_string(n);
    std::vector<vm::HostTensor> in = {RandomF32(cases[n].lhs, rng)};
    auto want = RunOn(cpu, on_cpu, fn, in);
    auto got = RunOn(vulkan, on_vulkan, fn, in);
    ASSERT_TRUE(want.ok()) << fn << ": " << want.status().message();
    ASSERT_TRUE(got.ok()) << fn << ": " << got.status().message();
    ExpectCloseF32((*got)[0], (*want)[0], cases[n].terms, fn);
  }
}

// Constant kernels are laid out with their output features last while
// compiling for Vulkan (compiler/passes/conv_kernel_layout.h), where the
// blocked shader reads four output features of a kernel row as one texel
// and the input a component at a time: NCHW with OIHW kernels (plain,
// strided, depthwise), NHWC with three input features (too few for the
// vec4 input reads) and 20 outputs (a tile column past the last quad),
// and 6 output features (not whole texels: the scalar reads). Each
// against the CPU running the module compiled for the CPU alone, whose
// kernel is as written: a value moved to the wrong place fails.
TEST_F(VulkanTest, ConstantKernelsMovedToOutputFeaturesLastMatchCpu) {
  const std::vector<ConvCase> cases = {
      {{2, 8, 9, 9}, {20, 8, 3, 3}, {2, 20, 9, 9}, "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]",
       "pad = [[1, 1], [1, 1]]", 72},
      {{1, 8, 9, 9}, {16, 8, 3, 3}, {1, 16, 4, 4}, "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]",
       "stride = [2, 2]", 72},
      {{2, 12, 7, 7}, {12, 1, 3, 3}, {2, 12, 7, 7}, "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]",
       "pad = [[1, 1], [1, 1]]", 9, 12},
      {{2, 9, 9, 3}, {20, 3, 3, 3}, {2, 9, 9, 20}, "[b, 0, 1, f]x[o, i, 0, 1]->[b, 0, 1, f]",
       "pad = [[1, 1], [1, 1]]", 27},
      {{1, 8, 6, 6}, {6, 8, 3, 3}, {1, 6, 6, 6}, "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]",
       "pad = [[1, 1], [1, 1]]", 72},
  };
  ExpectConstantKernelCasesMatchCpu(cpu_.get(), vulkan_.get(), cases, 53);
}

// NCHW rows read in runs of four positions (output widths a multiple of 4,
// stride 1 along them: kiln_run4 in convolution_blocked.glsl): padding on
// both sides (runs hanging over the row's ends and, in the first and last
// rows, over the tensor's), asymmetric padding with a dilated kernel, a
// channel-last result of an NCHW input (runs across batch entries' rows),
// a 1-D convolution over rows of 18 (rows starting mid-texel); padding and
// the taps shift the runs to every offset within a texel.
TEST_F(VulkanTest, NchwRowRunsMatchCpu) {
  const std::vector<ConvCase> cases = {
      {{2, 8, 12, 12}, {20, 8, 3, 3}, {2, 20, 12, 12}, "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]",
       "pad = [[1, 1], [1, 1]]", 72},
      {{1, 5, 8, 16}, {8, 5, 3, 5}, {1, 8, 10, 12}, "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]",
       "pad = [[2, 2], [3, 1]], rhs_dilate = [1, 2]", 75},
      {{3, 4, 5, 8}, {12, 4, 3, 3}, {3, 5, 8, 12}, "[b, f, 0, 1]x[o, i, 0, 1]->[b, 0, 1, f]",
       "pad = [[1, 1], [1, 1]]", 36},
      {{2, 4, 18}, {8, 4, 3}, {2, 8, 20}, "[b, f, 0]x[o, i, 0]->[b, f, 0]", "pad = [[2, 2]]", 12},
  };
  ExpectConstantKernelCasesMatchCpu(cpu_.get(), vulkan_.get(), cases, 59);
}

}  // namespace
}  // namespace kiln::vulkan_test
