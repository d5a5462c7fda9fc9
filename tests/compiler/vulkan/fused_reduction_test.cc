// Producer fusion into reductions on the Vulkan device (compiler/vulkan/
// kernels_row_block.cc, kernels_reduction.cc) against the CPU device: jax's
// softmax, torch's layer norm and an RMS norm, each one kiln.row_block
// dispatch on both devices, and reduces with a fused producer on both
// shader paths, on random inputs with odd shapes: one row, rows not a
// multiple of the 64 invocations of a work group, rows of one element and
// long rows. Float sums fold in another order on the GPU (docs/vulkan.md),
// so results agree within a small tolerance rather than bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tests/hal/vulkan/vulkan_test_fixture.h"

namespace kiln::vulkan_test {
namespace {

std::string Dims(int64_t r, int64_t n) { return std::to_string(r) + "x" + std::to_string(n); }

std::string Softmax(int64_t r, int64_t n) {
  const std::string t = "tensor<" + Dims(r, n) + "xf32>", rt = "tensor<" + std::to_string(r) + "xf32>",
                    r1 = "tensor<" + std::to_string(r) + "x1xf32>";
  return "func.func @main(%x: " + t + ") -> " + t + " {\n" +
         "  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
         "  %zero = stablehlo.constant dense<0.0> : tensor<f32>\n"
         "  %0 = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (" + t +
         ", tensor<f32>) -> " + rt + "\n" +
         "  %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (" + rt + ") -> " + r1 + "\n" +
         "  %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (" + r1 + ") -> " + t + "\n" +
         "  %3 = stablehlo.subtract %x, %2 : " + t + "\n" +
         "  %4 = stablehlo.exponential %3 : " + t + "\n" +
         "  %5 = stablehlo.reduce(%4 init: %zero) applies stablehlo.add across dimensions = [1] : (" + t +
         ", tensor<f32>) -> " + rt + "\n" +
         "  %6 = stablehlo.broadcast_in_dim %5, dims = [0] : (" + rt + ") -> " + r1 + "\n" +
         "  %7 = stablehlo.broadcast_in_dim %6, dims = [0, 1] : (" + r1 + ") -> " + t + "\n" +
         "  %8 = stablehlo.divide %4, %7 : " + t + "\n" + "  return %8 : " + t + "\n}\n";
}

// Layer norm (mean, centred square, mean, rsqrt, scale and shift) and an RMS
// norm of the same [R, N] input.
std::string Norms(int64_t r, int64_t n) {
  const std::string t = "tensor<" + Dims(r, n) + "xf32>", rt = "tensor<" + std::to_string(r) + "xf32>",
                    v = "tensor<" + std::to_string(n) + "xf32>";
  auto red = [&](const std::string& dst, const std::string& src) {
    return "  " + dst + " = stablehlo.reduce(" + src + " init: %zero) applies stablehlo.add across dimensions = [1] : (" +
           t + ", tensor<f32>) -> " + rt + "\n";
  };
  auto bc = [&](const std::string& dst, const std::string& src) {
    return "  " + dst + " = stablehlo.broadcast_in_dim " + src + ", dims = [0] : (" + rt + ") -> " + t + "\n";
  };
  return "func.func @main(%x: " + t + ", %g: " + v + ", %b: " + v + ") -> (" + t + ", " + t + ") {\n" +
         "  %zero = stablehlo.constant dense<0.0> : tensor<f32>\n"
         "  %n = stablehlo.constant dense<" + std::to_string(n) + ".0> : " + rt + "\n" +
         "  %eps = stablehlo.constant dense<9.99999974E-6> : " + rt + "\n" + red("%sum", "%x") +
         "  %mean = stablehlo.divide %sum, %n : " + rt + "\n" + bc("%mb", "%mean") +
         "  %xc = stablehlo.subtract %x, %mb : " + t + "\n" + "  %sq = stablehlo.multiply %xc, %xc : " + t + "\n" +
         red("%ssq", "%sq") + "  %var = stablehlo.divide %ssq, %n : " + rt + "\n" +
         "  %ve = stablehlo.add %var, %eps : " + rt + "\n" + "  %rs = stablehlo.rsqrt %ve : " + rt + "\n" +
         bc("%rb", "%rs") + "  %y0 = stablehlo.multiply %xc, %rb : " + t + "\n" +
         "  %gb = stablehlo.broadcast_in_dim %g, dims = [1] : (" + v + ") -> " + t + "\n" +
         "  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (" + v + ") -> " + t + "\n" +
         "  %y1 = stablehlo.multiply %y0, %gb : " + t + "\n" + "  %ln = stablehlo.add %y1, %bb : " + t + "\n" +
         "  %x2 = stablehlo.multiply %x, %x : " + t + "\n" + red("%s2", "%x2") +
         "  %ms = stablehlo.divide %s2, %n : " + rt + "\n" + "  %mse = stablehlo.add %ms, %eps : " + rt + "\n" +
         "  %r2 = stablehlo.rsqrt %mse : " + rt + "\n" + bc("%r2b", "%r2") +
         "  %z = stablehlo.multiply %x, %r2b : " + t + "\n" + "  %rms = stablehlo.multiply %z, %gb : " + t + "\n" +
         "  return %ln, %rms : " + t + ", " + t + "\n}\n";
}

struct Shape {
  int64_t rows, n;
};
// One row; rows and row lengths around and not multiples of 64 (a work
// group); rows of one element; long rows. Rows of at most 64 elements, or
// 64 rows and more, take the row-per-invocation shader (16 rows per work
// group, 64 from 256 rows: 65, 67, 130 and 257 rows leave the last group
// part empty); a few long rows a group per row. Rows of a multiple of 4
// elements read their f32 inputs as vec4 texels there (3x64, 70x128,
// 257x36).
const Shape kShapes[] = {{1, 333}, {67, 333}, {5, 1},    {3, 64},    {65, 63},   {130, 10},
                         {257, 5}, {2, 65},   {4, 20000}, {70, 128}, {257, 36}};

// Runs `src` on both devices; every float result agrees within `tol` (times
// 1 + |cpu value|). Returns the Vulkan device's dispatch count.
uint64_t ExpectClose(hal::Device* cpu, hal::Device* vulkan, const std::string& src, const std::vector<vm::HostTensor>& in, float tol,
                     const std::string& what) {
  auto bytes = CompileAll(src);
  EXPECT_FALSE(bytes.empty()) << what;
  if (bytes.empty()) return 0;
  auto want = RunOn(cpu, bytes, "main", in);
  const uint64_t before = vulkan->stats().dispatches;
  auto got = RunOn(vulkan, bytes, "main", in);
  const uint64_t dispatches = vulkan->stats().dispatches - before;
  EXPECT_TRUE(want.ok()) << what << ": " << want.status().message();
  EXPECT_TRUE(got.ok()) << what << ": " << got.status().message();
  if (!want.ok() || !got.ok()) return 0;
  EXPECT_EQ(want->size(), got->size());
  for (size_t r = 0; r < want->size() && r < got->size(); ++r) {
    const auto& w = (*want)[r].data;
    const auto& g = (*got)[r].data;
    EXPECT_EQ(w.size(), g.size()) << what;
    int bad = 0;
    for (size_t i = 0; i + 4 <= w.size() && i + 4 <= g.size() && bad < 5; i += 4) {
      float a, b;
      std::memcpy(&a, &w[i], 4);
      std::memcpy(&b, &g[i], 4);
      if (!(std::fabs(a - b) <= tol * (1 + std::fabs(a)))) {
        ++bad;
        ADD_FAILURE() << what << " result " << r << " element " << i / 4 << ": cpu " << a << " vulkan " << b;
      }
    }
  }
  return dispatches;
}

TEST_F(VulkanTest, SoftmaxRowBlockMatchesCpu) {
  std::mt19937_64 rng(21);
  for (const Shape& s : kShapes) {
    auto x = RandomF32({s.rows, s.n}, rng, std::uniform_real_distribution<float>(-20, 20));
    const std::string what = "softmax " + Dims(s.rows, s.n);
    // The whole softmax is one dispatch on the GPU too.
    EXPECT_EQ(ExpectClose(cpu_.get(), vulkan_.get(), Softmax(s.rows, s.n), {x}, 1e-5f, what), 1u) << what;
  }
}

TEST_F(VulkanTest, LayerNormAndRmsNormRowBlocksMatchCpu) {
  std::mt19937_64 rng(22);
  for (const Shape& s : kShapes) {
    auto x = RandomF32({s.rows, s.n}, rng, std::uniform_real_distribution<float>(-3, 5));
    auto g = RandomF32({s.n}, rng, std::uniform_real_distribution<float>(0.5f, 1.5f));
    auto b = RandomF32({s.n}, rng, std::uniform_real_distribution<float>(-1, 1));
    const std::string what = "norms " + Dims(s.rows, s.n);
    // One row block per norm (both tails read g in place, through their
    // axis maps: the shared broadcast is not written out).
    EXPECT_EQ(ExpectClose(cpu_.get(), vulkan_.get(), Norms(s.rows, s.n), {x, g, b}, 2e-4f, what), 2u) << what;
  }
}

// Rows over two outer axes ([3, 5, 77]: the row index decomposes) and a
// log-softmax (a per-row log between the sum and the tail).
TEST_F(VulkanTest, RankThreeLogSoftmaxRowBlockMatchesCpu) {
  const char* src = R"(
func.func @main(%x: tensor<3x5x77xf32>) -> tensor<3x5x77xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [2] : (tensor<3x5x77xf32>, tensor<f32>) -> tensor<3x5xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0, 1] : (tensor<3x5xf32>) -> tensor<3x5x77xf32>
  %d = stablehlo.subtract %x, %mb : tensor<3x5x77xf32>
  %e = stablehlo.exponential %d : tensor<3x5x77xf32>
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [2] : (tensor<3x5x77xf32>, tensor<f32>) -> tensor<3x5xf32>
  %l = stablehlo.log %s : tensor<3x5xf32>
  %lb = stablehlo.broadcast_in_dim %l, dims = [0, 1] : (tensor<3x5xf32>) -> tensor<3x5x77xf32>
  %y = stablehlo.subtract %d, %lb : tensor<3x5x77xf32>
  return %y : tensor<3x5x77xf32>
}
)";
  std::mt19937_64 rng(24);
  auto x = RandomF32({3, 5, 77}, rng, std::uniform_real_distribution<float>(-10, 10));
  EXPECT_EQ(ExpectClose(cpu_.get(), vulkan_.get(), src, {x}, 1e-5f, "log-softmax 3x5x77"), 1u);
}

// Reduces with a fused producer outside row blocks: a sum of squares over
// the outer axis (a work group per output: 300 elements reduced), a sum of
// x * y + 1 over both axes of a small tensor (one invocation per output) and
// a max of |x - y| whose y is broadcast along the reduced axis.
TEST_F(VulkanTest, ReducesWithFusedProducersMatchCpu) {
  const char* src = R"(
func.func @main(%x: tensor<300x7xf32>, %y: tensor<300x7xf32>, %v: tensor<7xf32>) -> (tensor<7xf32>, tensor<f32>, tensor<300xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %one = stablehlo.constant dense<1.0> : tensor<300x7xf32>
  %sq = stablehlo.multiply %x, %x : tensor<300x7xf32>
  %0 = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<300x7xf32>, tensor<f32>) -> tensor<7xf32>
  %xy = stablehlo.multiply %x, %y : tensor<300x7xf32>
  %xy1 = stablehlo.add %xy, %one : tensor<300x7xf32>
  %s = stablehlo.slice %xy1 [0:20, 0:7] : (tensor<300x7xf32>) -> tensor<20x7xf32>
  %s2 = stablehlo.multiply %s, %s : tensor<20x7xf32>
  %1 = stablehlo.reduce(%s2 init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<20x7xf32>, tensor<f32>) -> tensor<f32>
  %vb = stablehlo.broadcast_in_dim %v, dims = [1] : (tensor<7xf32>) -> tensor<300x7xf32>
  %d = stablehlo.subtract %x, %vb : tensor<300x7xf32>
  %a = stablehlo.abs %d : tensor<300x7xf32>
  %2 = stablehlo.reduce(%a init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<300x7xf32>, tensor<f32>) -> tensor<300xf32>
  return %0, %1, %2 : tensor<7xf32>, tensor<f32>, tensor<300xf32>
}
)";
  std::mt19937_64 rng(23);
  auto x = RandomF32({300, 7}, rng), y = RandomF32({300, 7}, rng), v = RandomF32({7}, rng);
  ExpectClose(cpu_.get(), vulkan_.get(), src, {x, y, v}, 1e-4f, "fused reduces");
}

}  // namespace
}  // namespace kiln::vulkan_test
