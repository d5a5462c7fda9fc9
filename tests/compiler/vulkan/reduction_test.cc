// The vulkan target's reduction shaders (compiler/vulkan/kernels_
// reduction.cc) against the CPU device: both paths, exact for integers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tests/hal/vulkan/vulkan_test_fixture.h"

namespace kiln::vulkan_test {
namespace {

// Large reductions take the work-group path (a work group per output
// element); small ones one invocation per output. Integers must match the CPU
// exactly (init folded in once even when it is no identity), floats within
// the reordering tolerance; a variadic reduce pairs max with min.
TEST_F(VulkanTest, ReductionsMatchCpu) {
  const char* src = R"(
func.func @main(%a: tensor<37x5000xf32>, %b: tensor<100003xi32>, %c: tensor<3x7xi32>) -> (tensor<37xf32>, tensor<i32>, tensor<5000xf32>, tensor<i32>, tensor<i32>, tensor<3xi32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %seven = stablehlo.constant dense<7> : tensor<i32>
  %big = stablehlo.constant dense<-2147483648> : tensor<i32>
  %small = stablehlo.constant dense<2147483647> : tensor<i32>
  %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<37x5000xf32>, tensor<f32>) -> tensor<37xf32>
  %1 = stablehlo.reduce(%b init: %seven) applies stablehlo.add across dimensions = [0] : (tensor<100003xi32>, tensor<i32>) -> tensor<i32>
  %2 = stablehlo.reduce(%a init: %z) applies stablehlo.maximum across dimensions = [0] : (tensor<37x5000xf32>, tensor<f32>) -> tensor<5000xf32>
  %3:2 = stablehlo.reduce(%b init: %big), (%b init: %small) across dimensions = [0] : (tensor<100003xi32>, tensor<100003xi32>, tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
    reducer(%x: tensor<i32>, %y: tensor<i32>) (%u: tensor<i32>, %v: tensor<i32>) {
      %m = stablehlo.maximum %x, %y : tensor<i32>
      %n = stablehlo.minimum %u, %v : tensor<i32>
      stablehlo.return %m, %n : tensor<i32>, tensor<i32>
    }
  %4 = stablehlo.reduce(%c init: %seven) applies stablehlo.multiply across dimensions = [1] : (tensor<3x7xi32>, tensor<i32>) -> tensor<3xi32>
  return %0, %1, %2, %3#0, %3#1, %4 : tensor<37xf32>, tensor<i32>, tensor<5000xf32>, tensor<i32>, tensor<i32>, tensor<3xi32>
}
)";
  auto bytes = CompileAll(src, "vulkan");
  ASSERT_FALSE(bytes.empty());
  std::mt19937_64 rng(11);
  vm::HostTensor a = RandomF32({37, 5000}, rng);
  auto b = RandomBits(ElementType::kSI32, {100003}, rng);
  auto c = RandomBits(ElementType::kSI32, {3, 7}, rng);
  auto want = RunOn(cpu_.get(), bytes, "main", {a, b, c});
  auto got = RunOn(vulkan_.get(), bytes, "main", {a, b, c});
  ASSERT_TRUE(want.ok()) << want.status().message();
  ASSERT_TRUE(got.ok()) << got.status().message();
  for (size_t r : {1, 2, 3, 4, 5}) EXPECT_EQ((*want)[r].data, (*got)[r].data) << "result " << r;
  for (int i = 0; i < 37; ++i) {
    float w, v;
    std::memcpy(&w, (*want)[0].data.data() + i * 4, 4);
    std::memcpy(&v, (*got)[0].data.data() + i * 4, 4);
    EXPECT_NEAR(v, w, 1e-3f * (1 + std::fabs(w))) << i;
  }
}

}  // namespace
}  // namespace kiln::vulkan_test
