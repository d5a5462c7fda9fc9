// Results do not depend on the thread count: reductions (rows, columns, the
// whole tensor, a fused producer), softmax, a layer norm, a GEMM and a
// convolution, large enough to be split over the pool, give the same bits
// at 1, 2 and 4 threads (the fast kernels never split one result's sum
// between tasks; kernels/reference/reduction_order.h fixes the order of
// the sums that are vectorised).
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "compiler/compile.h"
#include "hal/cpu/cpu_device.h"
#include "tests/support/host_tensor_util.h"
#include "vm/context.h"

namespace kiln {
namespace {

using test::HostTensorOf;

constexpr char kSource[] = R"(
func.func @main(%x: tensor<301x1003xf32>, %w: tensor<1003x190xf32>, %img: tensor<2x31x29x8xf32>,
                %k: tensor<3x3x8x16xf32>, %g: tensor<1003xf32>)
    -> (tensor<301xf32>, tensor<1003xf32>, tensor<f32>, tensor<301x1003xf32>, tensor<301x1003xf32>,
        tensor<301x190xf32>, tensor<2x31x29x16xf32>) {
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %rows = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<301x1003xf32>, tensor<f32>) -> tensor<301xf32>
  %cols = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<301x1003xf32>, tensor<f32>) -> tensor<1003xf32>
  %all = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<301x1003xf32>, tensor<f32>) -> tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<301x1003xf32>, tensor<f32>) -> tensor<301xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<301xf32>) -> tensor<301x1003xf32>
  %d = stablehlo.subtract %x, %mb : tensor<301x1003xf32>
  %e = stablehlo.exponential %d : tensor<301x1003xf32>
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<301x1003xf32>, tensor<f32>) -> tensor<301xf32>
  %sb = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<301xf32>) -> tensor<301x1003xf32>
  %softmax = stablehlo.divide %e, %sb : tensor<301x1003xf32>
  %n = stablehlo.constant dense<1.003000e+03> : tensor<301xf32>
  %mean = stablehlo.divide %rows, %n : tensor<301xf32>
  %meanb = stablehlo.broadcast_in_dim %mean, dims = [0] : (tensor<301xf32>) -> tensor<301x1003xf32>
  %xc = stablehlo.subtract %x, %meanb : tensor<301x1003xf32>
  %sq = stablehlo.multiply %xc, %xc : tensor<301x1003xf32>
  %ssq = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<301x1003xf32>, tensor<f32>) -> tensor<301xf32>
  %var = stablehlo.divide %ssq, %n : tensor<301xf32>
  %rs = stablehlo.rsqrt %var : tensor<301xf32>
  %rsb = stablehlo.broadcast_in_dim %rs, dims = [0] : (tensor<301xf32>) -> tensor<301x1003xf32>
  %gb = stablehlo.broadcast_in_dim %g, dims = [1] : (tensor<1003xf32>) -> tensor<301x1003xf32>
  %y = stablehlo.multiply %xc, %rsb : tensor<301x1003xf32>
  %ln = stablehlo.multiply %y, %gb : tensor<301x1003xf32>
  %gemm = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<301x1003xf32>, tensor<1003x190xf32>) -> tensor<301x190xf32>
  %conv = stablehlo.convolution(%img, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x31x29x8xf32>, tensor<3x3x8x16xf32>) -> tensor<2x31x29x16xf32>
  return %rows, %cols, %all, %softmax, %ln, %gemm, %conv : tensor<301xf32>, tensor<1003xf32>, tensor<f32>, tensor<301x1003xf32>, tensor<301x1003xf32>, tensor<301x190xf32>, tensor<2x31x29x16xf32>
}
)";

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-4.0f, 4.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

std::vector<vm::HostTensor> RunAt(const std::string& target, int threads, const std::vector<vm::HostTensor>& in) {
  compiler::CompileOptions options;
  options.target = target;
  auto bytes = compiler::Compile(kSource, "threads.mlir", options, nullptr);
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  if (!bytes.ok()) return {};
  auto module = vm::LoadModule(bytes.value());
  EXPECT_TRUE(module.ok()) << module.status().message();
  if (!module.ok()) return {};
  auto device = hal::CreateCpuDevice(hal::CpuMode::kDeferred, threads);
  auto ctx = vm::Context::Create(*module, device.get());
  EXPECT_TRUE(ctx.ok()) << ctx.status().message();
  if (!ctx.ok()) return {};
  auto out = (*ctx)->Invoke("main", in);
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? std::move(out.value()) : std::vector<vm::HostTensor>{};
}

// "cpu" fuses producers into the reductions; "all" (a module that may also
// run on vulkan) keeps them apart.
class ThreadCount : public ::testing::TestWithParam<const char*> {};

TEST_P(ThreadCount, ResultsAreBitIdenticalAt1And2And4Threads) {
  const auto x = Random(301 * 1003, 1), w = Random(1003 * 190, 2), img = Random(2 * 31 * 29 * 8, 3),
             k = Random(3 * 3 * 8 * 16, 4), g = Random(1003, 5);
  const std::vector<vm::HostTensor> in = {
      HostTensorOf(ElementType::kF32, {301, 1003}, x), HostTensorOf(ElementType::kF32, {1003, 190}, w),
      HostTensorOf(ElementType::kF32, {2, 31, 29, 8}, img), HostTensorOf(ElementType::kF32, {3, 3, 8, 16}, k),
      HostTensorOf(ElementType::kF32, {1003}, g)};
  const auto one = RunAt(GetParam(), 1, in);
  ASSERT_EQ(one.size(), 7u);
  for (int threads : {2, 4}) {
    const auto many = RunAt(GetParam(), threads, in);
    ASSERT_EQ(many.size(), one.size());
    for (size_t i = 0; i < one.size(); ++i) EXPECT_EQ(many[i].data, one[i].data) << "result " << i << " at " << threads;
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, ThreadCount, ::testing::Values("cpu", "all"));

}  // namespace
}  // namespace kiln
