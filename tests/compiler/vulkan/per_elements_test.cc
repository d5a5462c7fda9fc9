// Per-element shaders that take several consecutive elements per invocation
// (compiler/vulkan/codegen.cc PerElements, kernels/vulkan/per_elements.glsl:
// grid_args {0, E}) and elementwise programs that read their f32 inputs as
// vec4 texels (compiler/vulkan/kernels_elementwise.cc), against the CPU
// device bit for bit: element counts that are and are not multiples of
// four (a view that ends short of the last texel reads the storage buffer
// instead), a lone element, rank-0 and integer inputs, broadcasts and a
// data-movement op; and the driver's and loader's checks of the grid.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tests/hal/vulkan/vulkan_test_fixture.h"

namespace kiln::vulkan_test {
namespace {

std::string F32(const std::vector<int64_t>& dims) {
  std::string s = "tensor<";
  for (int64_t d : dims) s += std::to_string(d) + "x";
  return s + "f32>";
}

void ExpectSameBits(const vm::HostTensor& got, const vm::HostTensor& want, const std::string& what) {
  ASSERT_EQ(got.dims, want.dims) << what;
  ASSERT_EQ(got.data.size(), want.data.size()) << what;
  EXPECT_EQ(got.data, want.data) << what;
}

// Each call's first result on the Vulkan device has the CPU device's bits.
using Calls = std::vector<std::pair<std::string, std::vector<vm::HostTensor>>>;
void ExpectSameBitsAsCpu(hal::Device* cpu, hal::Device* vulkan, const std::vector<uint8_t>& bytes,
                         const Calls& calls) {
  for (const auto& [fn, in] : calls) {
    auto want = RunOn(cpu, bytes, fn, in);
    auto got = RunOn(vulkan, bytes, fn, in);
    ASSERT_TRUE(want.ok()) << fn << ": " << want.status().message();
    ASSERT_TRUE(got.ok()) << fn << ": " << got.status().message();
    ExpectSameBits((*got)[0], (*want)[0], fn);
  }
}

void ExpectWithinUlp(const vm::HostTensor& got, const vm::HostTensor& want, int32_t ulp, const std::string& what) {
  ASSERT_EQ(got.dims, want.dims) << what;
  ASSERT_EQ(got.data.size(), want.data.size()) << what;
  for (size_t i = 0; i + 4 <= got.data.size(); i += 4) {
    int32_t a, b;
    std::memcpy(&a, got.data.data() + i, 4);
    std::memcpy(&b, want.data.data() + i, 4);
    // Same-signed finite floats: their bit patterns order as their values.
    EXPECT_LE(std::abs(static_cast<int64_t>(a) - b), ulp) << what << " element " << i / 4;
  }
}

// (a * b + a) - b and tanh(a) over each shape: exact IEEE operations, the
// same bits on both devices, and Kiln's own tanh, within its 3 ulp; where
// the shader reads texels (64, 8 and 1 elements: whole invocations written
// by 16-byte stores, a part of one element by element) and where it reads
// words (35 and 105 elements: views that end short of the last ones).
TEST_F(VulkanTest, ElementwiseProgramsOverSeveralElementsPerInvocationMatchCpu) {
  const std::vector<std::vector<int64_t>> shapes = {{64}, {35}, {1}, {2, 4}, {3, 5, 7}};
  std::string src;
  for (size_t k = 0; k < shapes.size(); ++k) {
    const std::string t = F32(shapes[k]), n = std::to_string(k);
    src += "func.func @f" + n + "(%a: " + t + ", %b: " + t + ") -> (" + t + ", " + t + ") {\n" +
           "  %0 = stablehlo.multiply %a, %b : " + t + "\n  %1 = stablehlo.add %0, %a : " + t +
           "\n  %2 = stablehlo.subtract %1, %b : " + t + "\n  %3 = stablehlo.tanh %a : " + t +
           "\n  return %2, %3 : " + t + ", " + t + "\n}\n";
  }
  auto bytes = CompileAll(src);
  ASSERT_FALSE(bytes.empty());
  auto module = vm::LoadModule(bytes);
  ASSERT_TRUE(module.ok()) << module.status().message();
  for (const auto& shaders : (*module)->vulkan_shaders)
    for (const auto& v : shaders) {
      EXPECT_EQ(v.grid_args, (std::vector<uint32_t>{0, hal::ElementsPerInvocation(v)}));
      EXPECT_GE(hal::ElementsPerInvocation(v), 4u);
      // Every input, read at the output's index.
      EXPECT_EQ(v.texel_inputs, (1u << v.input_types.size()) - 1u);
    }
  std::mt19937_64 rng(47);
  for (size_t k = 0; k < shapes.size(); ++k) {
    std::vector<vm::HostTensor> in = {RandomF32(shapes[k], rng), RandomF32(shapes[k], rng)};
    const std::string fn = "f" + std::to_string(k);
    auto want = RunOn(cpu_.get(), bytes, fn, in);
    auto got = RunOn(vulkan_.get(), bytes, fn, in);
    ASSERT_TRUE(want.ok()) << want.status().message();
    ASSERT_TRUE(got.ok()) << got.status().message();
    ExpectSameBits((*got)[0], (*want)[0], fn);
    ExpectWithinUlp((*got)[1], (*want)[1], 3, fn + " tanh");
  }
}

// Inputs the texel prefetch does not take (a rank-0 scale, a broadcast
// row, i32 values, per-channel vectors over NCHW) and a transpose, over
// counts that are not multiples of four. Inputs read through an axis map
// follow the output index stepped from element to element (carries from
// the last dim into every other within one invocation's 16 elements in
// @channels: 2x3x5x7, 210 elements).
TEST_F(VulkanTest, OtherPerElementShadersOverSeveralElementsPerInvocationMatchCpu) {
  const char* src = R"(
func.func @scaled(%a: tensor<5x7xf32>, %s: tensor<f32>, %row: tensor<7xf32>) -> tensor<5x7xf32> {
  %0 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<5x7xf32>
  %1 = stablehlo.broadcast_in_dim %row, dims = [1] : (tensor<7xf32>) -> tensor<5x7xf32>
  %2 = stablehlo.multiply %a, %0 : tensor<5x7xf32>
  %3 = stablehlo.add %2, %1 : tensor<5x7xf32>
  return %3 : tensor<5x7xf32>
}
func.func @channels(%x: tensor<2x3x5x7xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<2x3x5x7xf32> {
  %0 = stablehlo.broadcast_in_dim %s, dims = [1] : (tensor<3xf32>) -> tensor<2x3x5x7xf32>
  %1 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<3xf32>) -> tensor<2x3x5x7xf32>
  %2 = stablehlo.multiply %x, %0 : tensor<2x3x5x7xf32>
  %3 = stablehlo.add %2, %1 : tensor<2x3x5x7xf32>
  %z = stablehlo.constant dense<0.0> : tensor<2x3x5x7xf32>
  %4 = stablehlo.maximum %3, %z : tensor<2x3x5x7xf32>
  return %4 : tensor<2x3x5x7xf32>
}
func.func @ints(%a: tensor<37xi32>, %b: tensor<37xi32>) -> tensor<37xi32> {
  %0 = stablehlo.multiply %a, %b : tensor<37xi32>
  %1 = stablehlo.xor %0, %a : tensor<37xi32>
  return %1 : tensor<37xi32>
}
func.func @transposed(%a: tensor<3x5x7xf32>) -> tensor<7x3x5xf32> {
  %0 = stablehlo.transpose %a, dims = [2, 0, 1] : (tensor<3x5x7xf32>) -> tensor<7x3x5xf32>
  return %0 : tensor<7x3x5xf32>
}
)";
  auto bytes = CompileAll(src);
  ASSERT_FALSE(bytes.empty());
  std::mt19937_64 rng(53);
  std::vector<int32_t> ia(37), ib(37);
  for (size_t i = 0; i < ia.size(); ++i) {
    ia[i] = static_cast<int32_t>(rng());
    ib[i] = static_cast<int32_t>(rng());
  }
  const Calls calls = {
      {"scaled", {RandomF32({5, 7}, rng), RandomF32({}, rng), RandomF32({7}, rng)}},
      {"channels", {RandomF32({2, 3, 5, 7}, rng), RandomF32({3}, rng), RandomF32({3}, rng)}},
      {"ints", {HostTensorOf(ElementType::kSI32, {37}, ia), HostTensorOf(ElementType::kSI32, {37}, ib)}},
      {"transposed", {RandomF32({3, 5, 7}, rng)}}};
  ExpectSameBitsAsCpu(cpu_.get(), vulkan_.get(), bytes, calls);
}

// 16-bit results (f16, bf16, i16, ui16) are gathered per invocation and
// written as whole words where the output is word-aligned and all 16
// elements exist (compiler/vulkan/codegen.cc PerElements), element by
// element otherwise: 64 elements (whole words only), 37 (a tail) and 5
// (less than one invocation), bit for bit against the CPU.
TEST_F(VulkanTest, SixteenBitResultsOverSeveralElementsPerInvocationMatchCpu) {
  std::string src;
  for (int n : {64, 37, 5}) {
    const std::string N = std::to_string(n);
    src += "func.func @to_bf16_" + N + "(%a: tensor<" + N + "xf32>) -> tensor<" + N + "xbf16> {\n" +
           "  %0 = stablehlo.convert %a : (tensor<" + N + "xf32>) -> tensor<" + N + "xbf16>\n" +
           "  return %0 : tensor<" + N + "xbf16>\n}\n";
    src += "func.func @to_f16_" + N + "(%a: tensor<" + N + "xf32>) -> tensor<" + N + "xf16> {\n" +
           "  %0 = stablehlo.convert %a : (tensor<" + N + "xf32>) -> tensor<" + N + "xf16>\n" +
           "  return %0 : tensor<" + N + "xf16>\n}\n";
    src += "func.func @add_i16_" + N + "(%a: tensor<" + N + "xi16>, %b: tensor<" + N + "xi16>) -> tensor<" + N +
           "xi16> {\n  %0 = stablehlo.add %a, %b : tensor<" + N + "xi16>\n  return %0 : tensor<" + N + "xi16>\n}\n";
    src += "func.func @sub_ui16_" + N + "(%a: tensor<" + N + "xui16>, %b: tensor<" + N + "xui16>) -> tensor<" + N +
           "xui16> {\n  %0 = stablehlo.subtract %a, %b : tensor<" + N + "xui16>\n  return %0 : tensor<" + N +
           "xui16>\n}\n";
  }
  auto bytes = CompileAll(src, "vulkan");
  ASSERT_FALSE(bytes.empty());
  std::mt19937_64 rng(67);
  for (int n : {64, 37, 5}) {
    const std::string N = std::to_string(n);
    std::vector<uint16_t> ia(static_cast<size_t>(n)), ib(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) ia[i] = static_cast<uint16_t>(rng()), ib[i] = static_cast<uint16_t>(rng());
    const vm::HostTensor x = RandomF32({n}, rng);
    const Calls calls = {
        {"to_bf16_" + N, {x}},
        {"to_f16_" + N, {x}},
        {"add_i16_" + N, {HostTensorOf(ElementType::kSI16, {n}, ia), HostTensorOf(ElementType::kSI16, {n}, ib)}},
        {"sub_ui16_" + N, {HostTensorOf(ElementType::kUI16, {n}, ia), HostTensorOf(ElementType::kUI16, {n}, ib)}}};
    ExpectSameBitsAsCpu(cpu_.get(), vulkan_.get(), bytes, calls);
  }
}

// Sub-word results of per-element shaders (pad, slice, transpose,
// reverse, compare) are gathered into words per invocation
// (compiler/vulkan/codegen.cc PerElements, kiln_gbits) and written whole
// where the invocation's elements all exist and start a word, element by
// element otherwise: i8, ui8, i1 and bf16 over 64, 61 and 6 elements (the
// 61-element slice starts 3 bytes into its operand's word), bit for bit
// against the CPU.
TEST_F(VulkanTest, SubWordResultsGatheredIntoWordsMatchCpu) {
  std::string src;
  auto t = [](int64_t n, const char* e) { return "tensor<" + std::to_string(n) + "x" + e + ">"; };
  for (const char* e : {"i8", "ui8", "bf16"}) {
    for (int64_t n : {64, 61, 6}) {
      const std::string N = std::to_string(n), E = e, f = std::string("_") + e + "_" + N;
      src += "func.func @pad" + f + "(%a: " + t(n, e) + ", %v: tensor<" + E + ">) -> " + t(n + 7, e) +
             " {\n  %0 = stablehlo.pad %a, %v, low = [3], high = [4], interior = [0] : (" + t(n, e) + ", tensor<" + E +
             ">) -> " + t(n + 7, e) + "\n  return %0 : " + t(n + 7, e) + "\n}\n";
      src += "func.func @slice" + f + "(%a: " + t(n + 3, e) + ") -> " + t(n, e) + " {\n  %0 = stablehlo.slice %a [3:" +
             std::to_string(n + 3) + "] : (" + t(n + 3, e) + ") -> " + t(n, e) + "\n  return %0 : " + t(n, e) + "\n}\n";
      src += "func.func @reverse" + f + "(%a: " + t(n, e) + ") -> " + t(n, e) +
             " {\n  %0 = stablehlo.reverse %a, dims = [0] : " + t(n, e) + "\n  return %0 : " + t(n, e) + "\n}\n";
      src += "func.func @less" + f + "(%a: " + t(n, e) + ", %b: " + t(n, e) + ") -> " + t(n, "i1") +
             " {\n  %0 = stablehlo.compare LT, %a, %b : (" + t(n, e) + ", " + t(n, e) + ") -> " + t(n, "i1") +
             "\n  return %0 : " + t(n, "i1") + "\n}\n";
    }
  }
  src += "func.func @transpose_i8(%a: tensor<7x9xi8>) -> tensor<9x7xi8> {\n  %0 = stablehlo.transpose %a, dims = [1, 0] "
         ": (tensor<7x9xi8>) -> tensor<9x7xi8>\n  return %0 : tensor<9x7xi8>\n}\n";
  auto bytes = CompileAll(src, "vulkan");
  ASSERT_FALSE(bytes.empty());
  std::mt19937_64 rng(79);
  auto random = [&](ElementType type, int64_t n) {  // n = 0: a scalar
    const size_t width = type == ElementType::kBF16 ? 2 : 1;
    std::vector<uint8_t> v(static_cast<size_t>(n == 0 ? 1 : n) * width);
    for (auto& x : v) x = static_cast<uint8_t>(rng());
    if (type == ElementType::kBF16)  // finite values: no NaN payloads to compare
      for (size_t k = 1; k < v.size(); k += 2) v[k] &= 0x3F;
    return HostTensorOf(type, n == 0 ? std::vector<int64_t>{} : std::vector<int64_t>{n}, v);
  };
  const std::vector<std::pair<const char*, ElementType>> types = {
      {"i8", ElementType::kSI8}, {"ui8", ElementType::kUI8}, {"bf16", ElementType::kBF16}};
  for (const auto& [e, type] : types) {
    for (int64_t n : {64, 61, 6}) {
      const std::string f = std::string("_") + e + "_" + std::to_string(n);
      const Calls calls = {
          {"pad" + f, {random(type, n), random(type, 0)}},
          {"slice" + f, {random(type, n + 3)}},
          {"reverse" + f, {random(type, n)}},
          {"less" + f, {random(type, n), random(type, n)}}};
      ExpectSameBitsAsCpu(cpu_.get(), vulkan_.get(), bytes, calls);
    }
  }
  const vm::HostTensor x = HostTensorOf(ElementType::kSI8, {7, 9}, random(ElementType::kSI8, 63).data);
  auto want = RunOn(cpu_.get(), bytes, "transpose_i8", {x});
  auto got = RunOn(vulkan_.get(), bytes, "transpose_i8", {x});
  ASSERT_TRUE(want.ok()) << want.status().message();
  ASSERT_TRUE(got.ok()) << got.status().message();
  ExpectSameBits((*got)[0], (*want)[0], "transpose_i8");
}

// f32 transposes (compiler/vulkan/kernels_data_movement.cc TransposeF32:
// 16 outputs per invocation stepping their input offsets, texel gathers)
// against the CPU bit for bit: NCHW <-> NHWC, attention's head swap, a
// matrix, a lone dim, size-1 dims, counts that are multiples of four (texel
// reads, 16-byte stores) and not (storage words, the tail element by
// element), a count below one invocation's; NaN payloads, signed zeros,
// infinities and subnormals among the values.
TEST_F(VulkanTest, F32TransposesMatchCpuBitForBit) {
  struct Case {
    std::vector<int64_t> in;
    std::vector<int64_t> perm;
  };
  const std::vector<Case> cases = {
      {{2, 8, 5, 6}, {0, 2, 3, 1}}, {{2, 5, 6, 8}, {0, 3, 1, 2}}, {{2, 3, 5, 8}, {0, 2, 1, 3}},
      {{33, 17}, {1, 0}},           {{37}, {0}},                  {{1, 7, 1}, {2, 0, 1}},
      {{3, 5, 7}, {2, 0, 1}},       {{4, 3}, {1, 0}},             {{64, 64, 3, 3}, {1, 2, 3, 0}},
  };
  std::string src;
  for (size_t n = 0; n < cases.size(); ++n) {
    std::vector<int64_t> out;
    std::string perm;
    for (size_t d = 0; d < cases[n].perm.size(); ++d) {
      out.push_back(cases[n].in[cases[n].perm[d]]);
      perm += (d ? ", " : "") + std::to_string(cases[n].perm[d]);
    }
    src += "func.func @t" + std::to_string(n) + "(%a: " + F32(cases[n].in) + ") -> " + F32(out) +
           " {\n  %0 = stablehlo.transpose %a, dims = [" + perm + "] : (" + F32(cases[n].in) + ") -> " + F32(out) +
           "\n  return %0 : " + F32(out) + "\n}\n";
  }
  auto bytes = CompileAll(src, "vulkan");
  ASSERT_FALSE(bytes.empty());
  std::mt19937_64 rng(59);
  const uint32_t specials[] = {0x7fc12345u, 0xffa00001u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x00000003u};
  for (size_t n = 0; n < cases.size(); ++n) {
    vm::HostTensor x = RandomF32(cases[n].in, rng);
    for (size_t k = 0; k < std::size(specials) && 4 * (3 * k + 1) <= x.data.size(); ++k)
      std::memcpy(x.data.data() + 4 * 3 * k, &specials[k], 4);
    const std::string fn = "t" + std::to_string(n);
    auto want = RunOn(cpu_.get(), bytes, fn, {x});
    auto got = RunOn(vulkan_.get(), bytes, fn, {x});
    ASSERT_TRUE(want.ok()) << want.status().message();
    ASSERT_TRUE(got.ok()) << got.status().message();
    ExpectSameBits((*got)[0], (*want)[0], fn);
  }
}

// The driver refuses element grids with a bad count per invocation before
// they reach the device; the count scales the work groups it launches.
TEST_F(VulkanTest, MalformedElementGridsAreRefused) {
  EXPECT_TRUE(hal::ValidElementGrid({}));
  EXPECT_TRUE(hal::ValidElementGrid({1}));
  EXPECT_TRUE(hal::ValidElementGrid({0, 64}));
  EXPECT_FALSE(hal::ValidElementGrid({2}));
  EXPECT_FALSE(hal::ValidElementGrid({0, 0}));
  EXPECT_FALSE(hal::ValidElementGrid({0, 65}));
  EXPECT_FALSE(hal::ValidElementGrid({0, 4, 1}));
  auto module = vm::LoadModule(CompileAll(R"(
func.func @main(%a: tensor<9xf32>, %b: tensor<9xf32>) -> tensor<9xf32> {
  %0 = stablehlo.add %a, %b : tensor<9xf32>
  return %0 : tensor<9xf32>
}
)",
                                          "vulkan"));
  ASSERT_TRUE(module.ok()) << module.status().message();
  ASSERT_EQ((*module)->vulkan_shaders.size(), 1u);
  const hal::ShaderVariant good = (*module)->vulkan_shaders[0].at(0);
  auto prepare = [&](const hal::ShaderVariant& v) {
    hal::ExecutableSpec spec{"stablehlo.add", {}};
    spec.Add(hal::kVulkanShaderFormat, std::make_shared<const std::vector<hal::ShaderVariant>>(1, v));
    return vulkan_->PrepareExecutable(spec).status();
  };
  EXPECT_TRUE(prepare(good).ok()) << prepare(good).message();
  for (const std::vector<uint32_t>& args : {std::vector<uint32_t>{0, 0}, {0, 65}, {3, 4}}) {
    hal::ShaderVariant v = good;
    v.grid_args = args;
    Status s = prepare(v);
    EXPECT_NE(s.message().find("malformed Vulkan element grid"), std::string::npos) << s.message();
  }
}

}  // namespace
}  // namespace kiln::vulkan_test
