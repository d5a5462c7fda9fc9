// The row reduction shader (compiler/vulkan/kernels_reduction.cc ReduceRows,
// kernels/vulkan/reduce_rows.glsl): one invocation per row of an f32
// reduce over the innermost axes, summing in the reference's 16-lane order
// (docs/kernels.md, "Reduction order"), so the same bits as the CPU device:
// row lengths that are multiples of 16, of 4 only, and neither (vec4 texel
// reads, shifted by each row's start where rows do not start on a texel),
// two reduced axes (rows of 49, a 7x7 window of NCHW), a maximum, rows shorter than 16
// through a shader chosen for longer ones (the same executable), and a
// non-finite element.
#include <gtest/gtest.h>

#include <cmath>
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

// reduce(%x) over `dims` with an add (or maximum) body, from init 0 (-inf).
std::string ReduceFunction(const std::string& name, const std::vector<int64_t>& in, const std::vector<int64_t>& out,
                           const std::string& dims, const std::string& op) {
  const std::string init = op == "add" ? "0.0" : "0xFF800000";
  return "func.func @" + name + "(%x: " + F32(in) + ") -> " + F32(out) + " {\n  %z = stablehlo.constant dense<" +
         init + "> : tensor<f32>\n  %0 = stablehlo.reduce(%x init: %z) applies stablehlo." + op +
         " across dimensions = [" + dims + "] : (" + F32(in) + ", tensor<f32>) -> " + F32(out) + "\n  return %0 : " +
         F32(out) + "\n}\n";
}

struct Case {
  std::string name;
  std::vector<int64_t> in, out;
  std::string dims, op;
};

TEST_F(VulkanTest, RowReductionsMatchCpuBitForBit) {
  const std::vector<Case> cases = {
      {"whole_groups", {64, 256}, {64}, "1", "add"},   // texels, 16 lanes each fed 16 times
      {"fours", {70, 100}, {70}, "1", "add"},          // texels, then a tail of 4
      {"odd", {65, 333}, {65}, "1", "add"},            // shifted texels, a tail of 13
      {"nchw_window", {2, 64, 7, 7}, {2, 64}, "2, 3", "add"},  // rows of 49: each row's shift in turn
      {"odd_maximum", {80, 19}, {80}, "1", "maximum"},          // one group of 16, a tail of 3
      {"two_axes", {3, 32, 8, 9}, {3, 32}, "2, 3", "add"},
      {"maximum", {96, 48}, {96}, "1", "maximum"},
      // The same executable as whole_groups (same op and attributes): rows of 5.
      {"short_rows", {64, 5}, {64}, "1", "add"},
  };
  std::string src;
  for (const Case& c : cases) src += ReduceFunction(c.name, c.in, c.out, c.dims, c.op);
  auto bytes = CompileAll(src);
  ASSERT_FALSE(bytes.empty());
  auto module = vm::LoadModule(bytes);
  ASSERT_TRUE(module.ok()) << module.status().message();
  // The row shader: work groups of 8 invocations, the operand as a texel buffer.
  int row_shaders = 0;
  for (const auto& shaders : (*module)->vulkan_shaders)
    for (const auto& v : shaders) row_shaders += v.workgroup_size == 8 && v.texel_inputs == 0b1;
  EXPECT_GE(row_shaders, 1);
  std::mt19937_64 rng(59);
  for (const Case& c : cases) {
    std::vector<vm::HostTensor> in = {RandomF32(c.in, rng)};
    if (c.name == "fours") {
      const float inf = INFINITY;
      std::memcpy(in[0].data.data() + 4 * 123, &inf, 4);  // row 1: +inf
    }
    auto want = RunOn(cpu_.get(), bytes, c.name, in);
    auto got = RunOn(vulkan_.get(), bytes, c.name, in);
    ASSERT_TRUE(want.ok()) << want.status().message();
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_EQ((*got)[0].dims, (*want)[0].dims) << c.name;
    EXPECT_EQ((*got)[0].data, (*want)[0].data) << c.name;
  }
}

}  // namespace
}  // namespace kiln::vulkan_test
