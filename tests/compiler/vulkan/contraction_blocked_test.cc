// The register-blocked dot_general shader (compiler/vulkan/
// kernels_contraction_blocked.cc, kernels/vulkan/dot_general_blocked.glsl)
// against the CPU device: sizes that are not multiples of its 8x16 invocation
// tile or of its vec4 loads (1, 3, 17, 129, ...), both rhs layouts
// ([K, N] and [N, K]), batch dims, dot, fused epilogues; its strided form
// for the other f32 layouts; and which types keep the generic shader.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tests/hal/vulkan/vulkan_test_fixture.h"

namespace kiln::vulkan_test {
namespace {

std::string Shape(const std::vector<int64_t>& dims, const char* type = "f32") {
  std::string s = "tensor<";
  for (int64_t d : dims) s += std::to_string(d) + "x";
  return s + type + ">";
}

// A function @fN computing one dot_general of the given operand shapes.
std::string DotFunction(int n, const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                        const std::vector<int64_t>& out, const std::string& dims) {
  return "func.func @f" + std::to_string(n) + "(%a: " + Shape(a) + ", %b: " + Shape(b) + ") -> " + Shape(out) +
         " {\n  %0 = stablehlo.dot_general %a, %b, " + dims + " : (" + Shape(a) + ", " + Shape(b) + ") -> " +
         Shape(out) + "\n  return %0 : " + Shape(out) + "\n}\n";
}

struct Case {
  std::vector<int64_t> a, b, out;
  std::string dims;
  int64_t k;
};

// Compiles one function per case for the vulkan target, checks that every
// dispatch took the shader with `workgroup_size` invocations per work
// group, and compares each case with the CPU on random inputs.
void RunDotCases(hal::Device* cpu, hal::Device* vulkan, const std::vector<Case>& cases, uint32_t workgroup_size,
                 uint64_t seed) {
  std::string src;
  for (size_t c = 0; c < cases.size(); ++c)
    src += DotFunction(static_cast<int>(c), cases[c].a, cases[c].b, cases[c].out, cases[c].dims);
  // Which shader each took: the blocked ones run 8 invocations per work
  // group, the generic dot_general 256, the generic convolution 64.
  auto bytes = CompileForWorkGroups(src, workgroup_size);
  ASSERT_FALSE(bytes.empty());
  std::mt19937_64 rng(seed);
  for (size_t c = 0; c < cases.size(); ++c) {
    std::vector<vm::HostTensor> in = {RandomF32(cases[c].a, rng), RandomF32(cases[c].b, rng)};
    const std::string fn = "f" + std::to_string(c);
    auto want = RunOn(cpu, bytes, fn, in);
    auto got = RunOn(vulkan, bytes, fn, in);
    ASSERT_TRUE(want.ok()) << want.status().message();
    ASSERT_TRUE(got.ok()) << fn << ": " << got.status().message();
    ExpectCloseF32((*got)[0], (*want)[0], cases[c].k, fn + " " + cases[c].dims);
  }
}

// Odd sizes on both paths (K a multiple of 4 reads vec4s; any other K
// reads words), edge tiles in M and N, both rhs layouts, batch dims; M of
// 1, 2, 3 and 4 (tiles of fewer rows: 1, 2, 4, 4) and above 8.
TEST_F(VulkanTest, BlockedDotGeneralOddSizesMatchCpu) {
  const std::string nn = "contracting_dims = [1] x [0]", nt = "contracting_dims = [1] x [1]";
  const std::string bnn = "batching_dims = [0] x [0], contracting_dims = [2] x [1]";
  const std::string bnt = "batching_dims = [0] x [0], contracting_dims = [2] x [2]";
  std::vector<Case> cases;
  for (auto [m, n, k] : std::vector<std::array<int64_t, 3>>{
           {1, 1, 1}, {3, 17, 129}, {129, 3, 17}, {17, 129, 3}, {129, 129, 129}, {1, 129, 16}, {17, 12, 8}, {9, 20, 132},
           {2, 33, 16}, {4, 24, 12}})
    cases.push_back({{m, k}, {k, n}, {m, n}, nn, k});
  for (auto [m, n, k] : std::vector<std::array<int64_t, 3>>{{3, 17, 129}, {17, 3, 16}, {1, 1, 4}, {129, 9, 20}})
    cases.push_back({{m, k}, {n, k}, {m, n}, nt, k});
  cases.push_back({{3, 17, 12}, {3, 12, 9}, {3, 17, 9}, bnn, 12});
  cases.push_back({{2, 5, 7}, {2, 7, 19}, {2, 5, 19}, bnn, 7});
  cases.push_back({{4, 9, 8}, {4, 13, 8}, {4, 9, 13}, bnt, 8});
  // Several free and contracting dims: lhs [M0, M1, K0, K1], rhs [K0, K1, N].
  cases.push_back({{2, 3, 4, 5}, {4, 5, 7}, {2, 3, 7}, "contracting_dims = [2, 3] x [0, 1]", 20});
  // Every case takes the blocked shader: 8 invocations per work group (the
  // generic one has 256).
  RunDotCases(cpu_.get(), vulkan_.get(), cases, 8u, 23);
}

// dot (rank-1 and rank-2 operands) and an empty contraction (K = 0: zeros,
// through the epilogue).
TEST_F(VulkanTest, BlockedDotAndEmptyContractionMatchCpu) {
  const char* src = R"(
func.func @vm(%a: tensor<20xf32>, %b: tensor<20x33xf32>) -> tensor<33xf32> {
  %0 = stablehlo.dot %a, %b : (tensor<20xf32>, tensor<20x33xf32>) -> tensor<33xf32>
  return %0 : tensor<33xf32>
}
func.func @mv(%a: tensor<19x13xf32>, %b: tensor<13xf32>) -> tensor<19xf32> {
  %0 = stablehlo.dot %a, %b : (tensor<19x13xf32>, tensor<13xf32>) -> tensor<19xf32>
  return %0 : tensor<19xf32>
}
func.func @empty(%a: tensor<5x0xf32>, %b: tensor<0x6xf32>, %c: tensor<5x6xf32>) -> tensor<5x6xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<5x0xf32>, tensor<0x6xf32>) -> tensor<5x6xf32>
  %1 = stablehlo.add %0, %c : tensor<5x6xf32>
  return %1 : tensor<5x6xf32>
}
)";
  auto bytes = CompileAll(src, "vulkan");
  ASSERT_FALSE(bytes.empty());
  std::mt19937_64 rng(29);
  ExpectF32RunsMatchCpu(cpu_.get(), vulkan_.get(), bytes,
                        {{"vm", {{20}, {20, 33}}, 20},
                         {"mv", {{19, 13}, {13}}, 13},
                         {"empty", {{5, 0}, {0, 6}, {5, 6}}, 0}},
                        rng);
}

// f32 layouts the blocked shader does not read in place take its strided
// form (8 invocations per work group): a transposed lhs, batch dims that do
// not lead, attention's products (batch dims [0, 2], contracting the last
// dim of both, or the lhs's and the rhs's middle), the output projection
// with the heads folded into the contraction ([1, 3] x [0, 1]), odd sizes
// (edge tiles), no contracting dim and an empty contraction. The vec4 forms
// (the last contracting dim the lhs's innermost, its extent a multiple of
// 4): B read along k (its last contracting dim innermost too) and along n
// (its last free dim innermost: extents 8, 12 and 20, so that a tile of 16
// columns has clamped groups), with heads folded into the contraction, and
// next to them the same layouts whose extents send them to the per-element
// form (K of 19, n of 6).
TEST_F(VulkanTest, DotGeneralOfOtherLayoutsTakesTheStridedBlockedShader) {
  std::vector<Case> cases = {
      {{13, 7}, {13, 9}, {7, 9}, "contracting_dims = [0] x [0]", 13},
      {{5, 6, 3}, {6, 4, 3}, {3, 5, 4}, "batching_dims = [2] x [2], contracting_dims = [1] x [0]", 6},
      {{1, 17, 3, 8}, {1, 19, 3, 8}, {1, 3, 17, 19}, "batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3]", 8},
      {{1, 3, 17, 19}, {1, 19, 3, 8}, {1, 3, 17, 8}, "batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1]", 19},
      {{2, 4, 9, 6}, {4, 6, 21}, {2, 9, 21}, "contracting_dims = [1, 3] x [0, 1]", 24},
      {{3, 5}, {7, 2}, {3, 5, 7, 2}, "contracting_dims = [] x []", 1},
      {{4, 0, 3}, {0, 3, 5}, {4, 5}, "contracting_dims = [1, 2] x [0, 1]", 0},
      {{2, 19, 3, 12}, {2, 21, 3, 12}, {2, 3, 19, 21}, "batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3]", 12},
      {{1, 3, 17, 20}, {1, 20, 3, 8}, {1, 3, 17, 8}, "batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1]", 20},
      {{2, 3, 9, 4}, {2, 4, 3, 12}, {2, 3, 9, 12}, "batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1]", 4},
      {{1, 3, 17, 8}, {1, 8, 3, 6}, {1, 3, 17, 6}, "batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1]", 8},
      {{2, 4, 9, 8}, {4, 8, 20}, {2, 9, 20}, "contracting_dims = [1, 3] x [0, 1]", 32},
      {{2, 4, 9, 8}, {20, 4, 8}, {2, 9, 20}, "contracting_dims = [1, 3] x [1, 2]", 32},
  };
  RunDotCases(cpu_.get(), vulkan_.get(), cases, 8u, 37);
}

// Other types keep the generic shader (16x16 tiles in shared memory) and
// still match the CPU, integers bit for bit.
TEST_F(VulkanTest, DotGeneralOfOtherTypesKeepsTheGenericShader) {
  const char* src = R"(
func.func @ints(%a: tensor<9x17xi32>, %b: tensor<17x5xi32>) -> tensor<9x5xi32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<9x17xi32>, tensor<17x5xi32>) -> tensor<9x5xi32>
  return %0 : tensor<9x5xi32>
}
)";
  auto bytes = CompileAll(src, "vulkan");
  ASSERT_FALSE(bytes.empty());
  auto module = vm::LoadModule(bytes);
  ASSERT_TRUE(module.ok()) << module.status().message();
  for (const auto& variants : (*module)->vulkan_shaders)
    for (const auto& v : variants) EXPECT_EQ(v.workgroup_size, 256u);
  std::mt19937_64 rng(31);
  std::vector<vm::HostTensor> in = {RandomBits(ElementType::kSI32, {9, 17}, rng),
                                    RandomBits(ElementType::kSI32, {17, 5}, rng)};
  auto want = RunOn(cpu_.get(), bytes, "ints", in);
  auto got = RunOn(vulkan_.get(), bytes, "ints", in);
  ASSERT_TRUE(want.ok()) << want.status().message();
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ((*got)[0].data, (*want)[0].data);
}

}  // namespace
}  // namespace kiln::vulkan_test
