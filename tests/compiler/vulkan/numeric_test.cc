// The vulkan target's numeric shaders (compiler/vulkan/kernels_numeric.cc)
// against the CPU device: chlo.top_k, bit for bit.
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

}  // namespace
}  // namespace kiln::vulkan_test
