// The vulkan target's numeric shaders (compiler/vulkan/kernels_numeric.cc)
// against the CPU device: chlo.top_k, rng_bit_generator and rng, bit for
// bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tests/hal/vulkan/vulkan_test_fixture.h"

namespace kiln::vulkan_test {
namespace {

// chlo.top_k over rows with ties, signed zeros, infinities and NaNs of both
// signs (floats: the total order), and integers' extremes; k from 0 to the
// whole row; i32 and i64 indices. Values and indices must equal the CPU's
// (the reference kernel) bit for bit, and the function must run on the
// Vulkan device itself (compiled for the vulkan target alone).
TEST_F(VulkanTest, TopKMatchesCpu) {
  struct Case {
    const char* type;
    int64_t rows, n, k;
    const char* index_type;
  };
  const Case cases[] = {{"f32", 7, 33, 5, "i32"},  {"f32", 3, 16, 16, "i32"}, {"f32", 4, 9, 0, "i32"},
                        {"f32", 1, 300, 1, "i64"}, {"f64", 5, 20, 7, "i32"},  {"f16", 4, 40, 6, "i32"},
                        {"bf16", 4, 40, 6, "i32"}, {"i32", 6, 25, 4, "i32"},  {"ui8", 6, 50, 10, "i32"},
                        {"i64", 3, 17, 3, "i64"},  {"i1", 2, 9, 4, "i32"}};
  std::mt19937_64 rng(20261128);
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.type) + " " + std::to_string(c.rows) + "x" + std::to_string(c.n) + " k=" +
                 std::to_string(c.k));
    const std::string in = "tensor<" + std::to_string(c.rows) + "x" + std::to_string(c.n) + "x" + c.type + ">";
    const std::string out_shape = "tensor<" + std::to_string(c.rows) + "x" + std::to_string(c.k) + "x";
    const std::string src = "func.func @main(%x: " + in + ") -> (" + out_shape + c.type + ">, " + out_shape +
                            c.index_type + ">) {\n  %v, %i = \"chlo.top_k\"(%x) {k = " + std::to_string(c.k) +
                            " : i64} : (" + in + ") -> (" + out_shape + c.type + ">, " + out_shape + c.index_type +
                            ">)\n  return %v, %i : " + out_shape + c.type + ">, " + out_shape + c.index_type +
                            ">\n}\n";
    auto bytes = CompileAll(src, "vulkan");
    ASSERT_FALSE(bytes.empty());
    auto et = ElementTypeFromName(c.type);
    ASSERT_TRUE(et.has_value());
    vm::HostTensor x = RandomBits(*et, {c.rows, c.n}, rng);
    const size_t w = StorageBytes(*et);
    // Ties: every third element repeats one a few places before it in its row.
    for (int64_t r = 0; r < c.rows; ++r)
      for (int64_t j = 3; j < c.n; j += 3)
        std::memcpy(&x.data[(r * c.n + j) * w], &x.data[(r * c.n + j - 1 - static_cast<int64_t>(rng() % 3)) * w], w);
    if (*et == ElementType::kI1)
      for (uint8_t& b : x.data) b &= 1;
    if (*et == ElementType::kF32) {
      const float specials[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1.0f, 1.0f};
      for (size_t s = 0; s < std::size(specials) && s < static_cast<size_t>(c.n); ++s)
        std::memcpy(&x.data[(s * 5 % c.n) * w], &specials[s], w);
    }
    auto want = RunOn(cpu_.get(), bytes, "main", {x});
    auto got = RunOn(vulkan_.get(), bytes, "main", {x});
    ASSERT_TRUE(want.ok()) << want.status().message();
    ASSERT_TRUE(got.ok()) << got.status().message();
    ASSERT_EQ(got->size(), 2u);
    for (size_t r = 0; r < 2; ++r) {
      EXPECT_EQ((*want)[r].dims, (*got)[r].dims);
      EXPECT_EQ((*want)[r].data, (*got)[r].data) << "result " << r;
    }
  }
}

// rng_bit_generator: THREE_FRY and PHILOX (two- and three-word states, a
// counter that carries past 2^64), results of every width (i1 to 64 bits,
// floats as their bit patterns: NaNs included), an odd element count that
// leaves part of the last block unused, and an empty result (the state
// still advances by nothing). State and bits as the CPU's, bit for bit.
TEST_F(VulkanTest, RngBitGeneratorMatchesCpu) {
  struct Case {
    const char* algorithm;
    std::vector<uint64_t> state;
    const char* type;
    std::vector<int64_t> dims;
  };
  const uint64_t near_wrap = ~uint64_t{0} - 5;
  const Case cases[] = {{"THREE_FRY", {1, 2}, "ui64", {2, 2}},
                        {"THREE_FRY", {0x123456789abcdefull, near_wrap}, "ui32", {5, 7}},
                        {"PHILOX", {7, near_wrap}, "f32", {3, 11}},
                        {"PHILOX", {7, near_wrap, 41}, "i8", {13}},
                        {"DEFAULT", {0xfeedull, 3, 0}, "f64", {4, 3}},
                        {"PHILOX", {5, 6}, "f16", {9}},
                        {"THREE_FRY", {9, 10}, "i1", {17}},
                        {"PHILOX", {11, 12}, "f8E4M3FN", {6}},
                        {"THREE_FRY", {13, 14}, "i32", {0, 3}}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.algorithm) + " " + c.type);
    const std::string st = "tensor<" + std::to_string(c.state.size()) + "xui64>";
    std::string ot = "tensor<";
    for (int64_t d : c.dims) ot += std::to_string(d) + "x";
    ot += std::string(c.type) + ">";
    const std::string src = "func.func @main(%s: " + st + ") -> (" + st + ", " + ot + ") {\n  %0, %1 = \"stablehlo.rng_bit_generator\"(%s) {rng_algorithm = #stablehlo<rng_algorithm " +
                            c.algorithm + ">} : (" + st + ") -> (" + st + ", " + ot + ")\n  return %0, %1 : " + st +
                            ", " + ot + "\n}\n";
    auto bytes = CompileAll(src, "vulkan");
    ASSERT_FALSE(bytes.empty());
    vm::HostTensor state;
    state.type = ElementType::kUI64;
    state.dims = {static_cast<int64_t>(c.state.size())};
    state.data.resize(c.state.size() * 8);
    std::memcpy(state.data.data(), c.state.data(), state.data.size());
    auto want = RunOn(cpu_.get(), bytes, "main", {state});
    auto got = RunOn(vulkan_.get(), bytes, "main", {state});
    ASSERT_TRUE(want.ok()) << want.status().message();
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_EQ((*want)[0].data, (*got)[0].data) << "the new state";
    EXPECT_EQ((*want)[1].data, (*got)[1].data) << "the bits";
  }
}

// rng (UNIFORM): Kiln's own definition of its bits, bit for bit on both
// devices: integers of every width with ranges that do not divide 2^64, a
// signed range across zero, an empty range (a >= b gives a), booleans,
// and floats whose a + (b - a) u rounds from f64 to the type directly
// (f16, bf16, f8: through f32 by round to odd).
TEST_F(VulkanTest, RngUniformMatchesCpu) {
  struct Case {
    const char* type;
    const char* a;
    const char* b;
  };
  const Case cases[] = {{"i32", "-7", "1000003"}, {"ui8", "3", "250"},  {"i64", "-5000000000", "70000000000"},
                        {"i16", "9", "-3"},       {"i1", "false", "true"}, {"f32", "-2.5", "3.0e3"},
                        {"f64", "1.0e-3", "1.0"}, {"f16", "-1.0", "1.0"}, {"bf16", "0.0", "100.0"},
                        {"f8E5M2", "0.0", "16.0"}, {"f32", "1.0", "1.0"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.type) + " [" + c.a + ", " + c.b + ")");
    const std::string s = std::string("tensor<") + c.type + ">", ot = std::string("tensor<300x200x") + c.type + ">";
    const std::string src = "func.func @main() -> " + ot + " {\n  %a = stablehlo.constant dense<" + c.a + "> : " + s +
                            "\n  %b = stablehlo.constant dense<" + c.b + "> : " + s +
                            "\n  %shape = stablehlo.constant dense<[300, 200]> : tensor<2xi64>\n  %r = \"stablehlo.rng\"(%a, %b, %shape) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (" +
                            s + ", " + s + ", tensor<2xi64>) -> " + ot + "\n  return %r : " + ot + "\n}\n";
    auto bytes = CompileAll(src, "vulkan");
    ASSERT_FALSE(bytes.empty());
    auto want = RunOn(cpu_.get(), bytes, "main", {});
    auto got = RunOn(vulkan_.get(), bytes, "main", {});
    ASSERT_TRUE(want.ok()) << want.status().message();
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_EQ((*want)[0].data, (*got)[0].data);
  }
}

// rng (NORMAL): the reference's Box-Muller, a + b sqrt(-2 log u1) cos(2 pi
// u2), in f64 on both devices with the device's own log and cos
// (math64.glsl): the standard normal within 3 f64 ulp of the CPU's (a
// shifted one within 4: a + b z cancels where it nears zero), so f32, f16
// and bf16 results (rounded from f64) agree within one ulp of their type.
TEST_F(VulkanTest, RngNormalWithinUlpsOfCpu) {
  struct Case {
    const char* type;
    const char* a;
    const char* b;
    int64_t max_ulp;
  };
  const Case cases[] = {{"f64", "0.0", "1.0", 3}, {"f64", "-2.0", "0.5", 4}, {"f32", "1.0", "3.0", 1},
                        {"f16", "0.0", "1.0", 1}, {"bf16", "0.5", "2.0", 1}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.type) + " a = " + c.a + ", b = " + c.b);
    const std::string s = std::string("tensor<") + c.type + ">", ot = std::string("tensor<300x200x") + c.type + ">";
    const std::string src = "func.func @main() -> " + ot + " {\n  %a = stablehlo.constant dense<" + c.a + "> : " + s +
                            "\n  %b = stablehlo.constant dense<" + c.b + "> : " + s +
                            "\n  %shape = stablehlo.constant dense<[300, 200]> : tensor<2xi64>\n  %r = \"stablehlo.rng\"(%a, "
                            "%b, %shape) {rng_distribution = #stablehlo<rng_distribution NORMAL>} : (" +
                            s + ", " + s + ", tensor<2xi64>) -> " + ot + "\n  return %r : " + ot + "\n}\n";
    auto bytes = CompileAll(src, "vulkan");
    ASSERT_FALSE(bytes.empty());
    auto want = RunOn(cpu_.get(), bytes, "main", {});
    auto got = RunOn(vulkan_.get(), bytes, "main", {});
    ASSERT_TRUE(want.ok()) << want.status().message();
    ASSERT_TRUE(got.ok()) << got.status().message();
    const std::vector<uint8_t>& w = (*want)[0].data;
    const std::vector<uint8_t>& g = (*got)[0].data;
    ASSERT_EQ(w.size(), g.size());
    const size_t width = std::string(c.type) == "f64" ? 8 : std::string(c.type) == "f32" ? 4 : 2;
    // Ordered bit patterns (sign-magnitude to two's complement) count ulps.
    auto ordered = [&](const uint8_t* p) {
      uint64_t bits = 0;
      std::memcpy(&bits, p, width);
      const uint64_t sign = uint64_t{1} << (8 * width - 1);
      return (bits & sign) ? -static_cast<int64_t>(bits & (sign - 1)) : static_cast<int64_t>(bits);
    };
    int64_t worst = 0, differing = 0;
    for (size_t i = 0; i < w.size(); i += width) {
      const int64_t d = std::abs(ordered(&w[i]) - ordered(&g[i]));
      worst = std::max(worst, d);
      differing += d != 0;
    }
    EXPECT_LE(worst, c.max_ulp) << differing << " of " << w.size() / width << " elements differ";
    RecordProperty(std::string("rng_normal_") + c.type + "_max_ulp", static_cast<int>(worst));
  }
}

}  // namespace
}  // namespace kiln::vulkan_test
