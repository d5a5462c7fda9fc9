// The vulkan target's contraction shaders (compiler/vulkan/kernels_
// contraction.cc) against the CPU device: dot_general of odd shapes,
// convolution, and epilogues fused into both.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tests/hal/vulkan/vulkan_test_fixture.h"

namespace kiln::vulkan_test {
namespace {

// Odd sizes (not multiples of the 16x16 tiles), a batch dim and an
// unusual contracting layout, against the CPU.
TEST_F(VulkanTest, DotGeneralOddShapesMatchCpu) {
  const char* src = R"(
func.func @main(%a: tensor<3x37x19xf32>, %b: tensor<3x23x37xf32>) -> tensor<3x19x23xf32> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [1] x [2] : (tensor<3x37x19xf32>, tensor<3x23x37xf32>) -> tensor<3x19x23xf32>
  return %0 : tensor<3x19x23xf32>
}
)";
  auto bytes = CompileAll(src, "vulkan");
  ASSERT_FALSE(bytes.empty());
  std::mt19937_64 rng(3);
  auto make = [&](std::vector<int64_t> dims) { return RandomF32(std::move(dims), rng); };
  auto a = make({3, 37, 19}), b = make({3, 23, 37});
  auto want = RunOn(cpu_.get(), bytes, "main", {a, b});
  auto got = RunOn(vulkan_.get(), bytes, "main", {a, b});
  ASSERT_TRUE(want.ok()) << want.status().message();
  ASSERT_TRUE(got.ok()) << got.status().message();
  for (int64_t i = 0; i < 3 * 19 * 23; ++i) {
    float w, v;
    std::memcpy(&w, (*want)[0].data.data() + i * 4, 4);
    std::memcpy(&v, (*got)[0].data.data() + i * 4, 4);
    EXPECT_NEAR(v, w, 1e-4f) << i;
  }
}

// The 16-bit value nearest `x` (round to nearest even), as bits.
uint16_t ToHalfBits(float x, ElementType t) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  if (t == ElementType::kBF16) return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
  // f16: |x| within [2^-14, 65504] here (no subnormals, no overflow).
  const uint32_t sign = (u >> 16) & 0x8000u;
  const int32_t exp = static_cast<int32_t>((u >> 23) & 0xFFu) - 127 + 15;
  uint32_t mant = u & 0x7FFFFFu;
  uint32_t h = (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  const uint32_t rest = mant & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

float FromHalfBits(uint16_t h, ElementType t) {
  uint32_t u;
  if (t == ElementType::kBF16) {
    u = static_cast<uint32_t>(h) << 16;
  } else {
    const uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu;
    u = exp == 0 ? sign : sign | ((exp - 15 + 127) << 23) | (mant << 13);  // (no subnormal results here)
  }
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// bf16 and f16 dot_general and convolution on Vulkan are computed in f32
// between converts (compiler/passes/widen_narrow_contractions.h), so they
// take the register-blocked shaders (8 invocations per work group; the
// generic dot_general's are 256): against the CPU running the module
// compiled for the CPU alone, whose 16-bit kernels sum exactly and round
// once. The f32 sums may round to the neighbouring 16-bit value: within
// one ulp of the result type.
TEST_F(VulkanTest, SixteenBitContractionsTakeTheBlockedShadersAndMatchCpu) {
  struct Case {
    const char* fn;
    ElementType type;
    std::vector<std::vector<int64_t>> shapes;
  };
  const std::string src = R"(
func.func @dot_bf16(%a: tensor<37x45xbf16>, %b: tensor<45x29xbf16>) -> tensor<37x29xbf16> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<37x45xbf16>, tensor<45x29xbf16>) -> tensor<37x29xbf16>
  return %0 : tensor<37x29xbf16>
}
func.func @dot_f16(%a: tensor<2x19x33xf16>, %b: tensor<2x33x20xf16>) -> tensor<2x19x20xf16> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x19x33xf16>, tensor<2x33x20xf16>) -> tensor<2x19x20xf16>
  return %0 : tensor<2x19x20xf16>
}
func.func @conv_bf16(%x: tensor<2x7x7x8xbf16>, %w: tensor<3x3x8x12xbf16>) -> tensor<2x7x7x12xbf16> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x7x7x8xbf16>, tensor<3x3x8x12xbf16>) -> tensor<2x7x7x12xbf16>
  return %0 : tensor<2x7x7x12xbf16>
}
)";
  auto on_vulkan = CompileAll(src, "vulkan");
  auto on_cpu = CompileAll(src, "cpu");
  ASSERT_FALSE(on_vulkan.empty());
  ASSERT_FALSE(on_cpu.empty());
  auto module = vm::LoadModule(on_vulkan);
  ASSERT_TRUE(module.ok()) << module.status().message();
  size_t blocked = 0;
  for (const auto& variants : (*module)->vulkan_shaders)
    for (const auto& v : variants) {
      EXPECT_NE(v.workgroup_size, 256u);  // no generic dot_general
      blocked += v.workgroup_size == 8u;
    }
  EXPECT_EQ(blocked, 3u);
  const std::vector<Case> cases = {{"dot_bf16", ElementType::kBF16, {{37, 45}, {45, 29}}},
                                   {"dot_f16", ElementType::kF16, {{2, 19, 33}, {2, 33, 20}}},
                                   {"conv_bf16", ElementType::kBF16, {{2, 7, 7, 8}, {3, 3, 8, 12}}}};
  std::mt19937_64 rng(61);
  std::uniform_real_distribution<float> unit(0.25f, 1.0f);
  std::bernoulli_distribution negative(0.3);
  for (const Case& c : cases) {
    std::vector<vm::HostTensor> in;
    for (const auto& dims : c.shapes) {
      int64_t n = 1;
      for (int64_t d : dims) n *= d;
      std::vector<uint16_t> bits(static_cast<size_t>(n));
      for (auto& b : bits) b = ToHalfBits(negative(rng) ? -unit(rng) : unit(rng), c.type);
      in.push_back(HostTensorOf(c.type, dims, bits));
    }
    auto want = RunOn(cpu_.get(), on_cpu, c.fn, in);
    auto got = RunOn(vulkan_.get(), on_vulkan, c.fn, in);
    ASSERT_TRUE(want.ok()) << c.fn << ": " << want.status().message();
    ASSERT_TRUE(got.ok()) << c.fn << ": " << got.status().message();
    ASSERT_EQ((*got)[0].data.size(), (*want)[0].data.size()) << c.fn;
    for (size_t i = 0; i + 2 <= (*want)[0].data.size(); i += 2) {
      uint16_t w, g;
      std::memcpy(&w, (*want)[0].data.data() + i, 2);
      std::memcpy(&g, (*got)[0].data.data() + i, 2);
      // Same sign: neighbouring values differ by one in their bits.
      const int d = std::abs(static_cast<int>(w & 0x7FFFu) - static_cast<int>(g & 0x7FFFu));
      EXPECT_TRUE(w == g || ((w ^ g) < 0x8000u && d <= 1))
          << c.fn << " element " << i / 2 << ": " << FromHalfBits(g, c.type) << ", the CPU gives "
          << FromHalfBits(w, c.type);
    }
  }
}

// 8- and 16-bit integer dot_general into i32 takes the strided
// register-blocked shader, summing in int accumulators (wrapping in 32
// bits as the reference's sums do): i8 x i8, u8 x u8 with a batch dim and a
// transposed rhs, i8 sums past 2^24 (where f32 would round) and i16 sums
// that wrap at the extremes. Bit for bit against the CPU on random bytes and
// with every element at its extreme.
TEST_F(VulkanTest, SmallIntegerDotsTakeTheBlockedShader) {
  struct Case {
    std::string lhs, rhs, out, dims;
    std::vector<int64_t> ld, rd;
    ElementType type;
    uint32_t workgroup;
  };
  const std::vector<Case> cases = {
      {"tensor<9x1023xi8>", "tensor<1023x21xi8>", "tensor<9x21xi32>", "contracting_dims = [1] x [0]", {9, 1023},
       {1023, 21}, ElementType::kSI8, 8},
      {"tensor<2x7x258xui8>", "tensor<2x19x258xui8>", "tensor<2x7x19xi32>",
       "batching_dims = [0] x [0], contracting_dims = [2] x [2]", {2, 7, 258}, {2, 19, 258}, ElementType::kUI8, 8},
      {"tensor<5x1025xi8>", "tensor<1025x6xi8>", "tensor<5x6xi32>", "contracting_dims = [1] x [0]", {5, 1025},
       {1025, 6}, ElementType::kSI8, 8},
      {"tensor<4x300xi16>", "tensor<300x5xi16>", "tensor<4x5xi32>", "contracting_dims = [1] x [0]", {4, 300},
       {300, 5}, ElementType::kSI16, 8}};
  std::mt19937_64 rng(73);
  for (size_t n = 0; n < cases.size(); ++n) {
    const Case& c = cases[n];
    const std::string src = "func.func @main(%a: " + c.lhs + ", %b: " + c.rhs + ") -> " + c.out +
                            " {\n  %0 = stablehlo.dot_general %a, %b, " + c.dims + " : (" + c.lhs + ", " + c.rhs +
                            ") -> " + c.out + "\n  return %0 : " + c.out + "\n}\n";
    auto bytes = CompileForWorkGroups(src, c.workgroup);
    ASSERT_FALSE(bytes.empty()) << n;
    // Random bytes, then every byte at its extreme (the largest sums).
    for (bool extreme : {false, true}) {
      auto operand = [&](const std::vector<int64_t>& d) {
        int64_t count = 1;
        for (int64_t x : d) count *= x;
        const size_t width = c.type == ElementType::kSI16 ? 2 : 1;
        std::vector<uint8_t> v(static_cast<size_t>(count) * width);
        for (size_t k = 0; k < v.size(); ++k)  // extremes: -128, 255, -32768
          v[k] = !extreme ? static_cast<uint8_t>(rng()) : c.type == ElementType::kUI8 ? 255 : (k % width == width - 1 ? 0x80 : 0);
        return HostTensorOf(c.type, d, v);
      };
      std::vector<vm::HostTensor> in = {operand(c.ld), operand(c.rd)};
      auto want = RunOn(cpu_.get(), bytes, "main", in);
      auto got = RunOn(vulkan_.get(), bytes, "main", in);
      ASSERT_TRUE(want.ok()) << want.status().message();
      ASSERT_TRUE(got.ok()) << got.status().message();
      EXPECT_EQ((*got)[0].data, (*want)[0].data) << "case " << n << (extreme ? ", extremes" : ", random");
    }
  }
}

// A convolution with padding, strides, dilation and feature groups,
// against the CPU.
// complex<f32> and complex<f64> dot_general (a batch dim, odd sizes, a
// transposed rhs) against the CPU: each part within 1e-5 (complex<f32>) or
// 1e-12 (complex<f64>) of 1 + |w| per contracted term.
TEST_F(VulkanTest, ComplexDotGeneralMatchesCpu) {
  for (const char* type : {"complex<f32>", "complex<f64>"}) {
    SCOPED_TRACE(type);
    const std::string t = type;
    const std::string A = "tensor<2x5x19x" + t + ">", B = "tensor<2x7x19x" + t + ">", O = "tensor<2x5x7x" + t + ">";
    const std::string src = "func.func @main(%a: " + A + ", %b: " + B + ") -> " + O +
                            " {\n  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (" +
                            A + ", " + B + ") -> " + O + "\n  return %0 : " + O + "\n}\n";
    ExpectComplexProgramMatchesCpu(cpu_.get(), vulkan_.get(), src, t == "complex<f64>", {{2, 5, 19}, {2, 7, 19}}, 20);
  }
}

// complex convolution (groups, strides, padding and rhs dilation; padding
// zeros take part in the products as in floats) against the CPU, as above:
// 18 products per output.
TEST_F(VulkanTest, ComplexConvolutionMatchesCpu) {
  for (const char* type : {"complex<f32>", "complex<f64>"}) {
    SCOPED_TRACE(type);
    const std::string t = type;
    const std::string X = "tensor<2x6x11x9x" + t + ">", K = "tensor<4x3x3x2x" + t + ">", O = "tensor<2x4x6x3x" + t + ">";
    const std::string src = "func.func @main(%x: " + X + ", %k: " + K + ") -> " + O +
                            " {\n  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], "
                            "window = {stride = [2, 3], pad = [[1, 1], [2, 0]], rhs_dilate = [1, 2]} "
                            "{batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (" +
                            X + ", " + K + ") -> " + O + "\n  return %0 : " + O + "\n}\n";
    ExpectComplexProgramMatchesCpu(cpu_.get(), vulkan_.get(), src, t == "complex<f64>", {{2, 6, 11, 9}, {4, 3, 3, 2}},
                                   20);
  }
}

TEST_F(VulkanTest, ConvolutionMatchesCpu) {
  const char* src = R"(
func.func @main(%x: tensor<2x6x11x9xf32>, %k: tensor<4x3x3x2xf32>) -> tensor<2x4x6x3xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 3], pad = [[1, 1], [2, 0]], rhs_dilate = [1, 2]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<2x6x11x9xf32>, tensor<4x3x3x2xf32>) -> tensor<2x4x6x3xf32>
  return %0 : tensor<2x4x6x3xf32>
}
)";
  auto bytes = CompileAll(src, "vulkan");
  ASSERT_FALSE(bytes.empty());
  std::mt19937_64 rng(13);
  std::vector<vm::HostTensor> in = {RandomF32({2, 6, 11, 9}, rng), RandomF32({4, 3, 3, 2}, rng)};
  auto want = RunOn(cpu_.get(), bytes, "main", in);
  auto got = RunOn(vulkan_.get(), bytes, "main", in);
  ASSERT_TRUE(want.ok()) << want.status().message();
  ASSERT_TRUE(got.ok()) << got.status().message();
  ExpectNearF32((*got)[0], (*want)[0], 1e-4f);
}

// Epilogues fused into dot_general and convolution (kernels/reference/
// epilogue.h): a bias read in place, a full-shaped addend, an activation.
TEST_F(VulkanTest, FusedEpiloguesMatchCpu) {
  const char* src = R"(
func.func @main(%x: tensor<19x37xf32>, %w: tensor<37x23xf32>, %bias: tensor<23xf32>, %a: tensor<3x9x17xf32>,
                %b: tensor<3x17x5xf32>, %y: tensor<3x9x5xf32>, %img: tensor<2x9x11x3xf32>, %k: tensor<3x3x3x4xf32>,
                %kb: tensor<4xf32>) -> (tensor<19x23xf32>, tensor<3x9x5xf32>, tensor<2x9x11x4xf32>) {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<19x37xf32>, tensor<37x23xf32>) -> tensor<19x23xf32>
  %1 = stablehlo.broadcast_in_dim %bias, dims = [1] : (tensor<23xf32>) -> tensor<19x23xf32>
  %2 = stablehlo.add %0, %1 : tensor<19x23xf32>
  %3 = stablehlo.logistic %2 : tensor<19x23xf32>
  %4 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<3x9x17xf32>, tensor<3x17x5xf32>) -> tensor<3x9x5xf32>
  %5 = stablehlo.subtract %y, %4 : tensor<3x9x5xf32>
  %8 = stablehlo.convolution(%img, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x9x11x3xf32>, tensor<3x3x3x4xf32>) -> tensor<2x9x11x4xf32>
  %9 = stablehlo.broadcast_in_dim %kb, dims = [3] : (tensor<4xf32>) -> tensor<2x9x11x4xf32>
  %10 = stablehlo.add %8, %9 : tensor<2x9x11x4xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<2x9x11x4xf32>
  %11 = stablehlo.maximum %10, %zero : tensor<2x9x11x4xf32>
  return %3, %5, %11 : tensor<19x23xf32>, tensor<3x9x5xf32>, tensor<2x9x11x4xf32>
}
)";
  auto bytes = CompileAll(src, "vulkan");
  ASSERT_FALSE(bytes.empty());
  std::mt19937_64 rng(17);
  auto make = [&](std::vector<int64_t> dims) { return RandomF32(std::move(dims), rng); };
  std::vector<vm::HostTensor> in = {make({19, 37}), make({37, 23}),      make({23}),
                                    make({3, 9, 17}), make({3, 17, 5}),  make({3, 9, 5}),
                                    make({2, 9, 11, 3}), make({3, 3, 3, 4}), make({4})};
  auto want = RunOn(cpu_.get(), bytes, "main", in);
  auto got = RunOn(vulkan_.get(), bytes, "main", in);
  ASSERT_TRUE(want.ok()) << want.status().message();
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_EQ(want->size(), 3u);
  for (size_t r = 0; r < 3; ++r) {
    ASSERT_EQ((*want)[r].data.size(), (*got)[r].data.size());
    for (size_t i = 0; i < (*want)[r].data.size() / 4; ++i) {
      float w, v;
      std::memcpy(&w, (*want)[r].data.data() + i * 4, 4);
      std::memcpy(&v, (*got)[r].data.data() + i * 4, 4);
      EXPECT_NEAR(v, w, 1e-4f) << "result " << r << " element " << i;
    }
  }
}

}  // namespace
}  // namespace kiln::vulkan_test
