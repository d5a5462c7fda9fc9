// The vulkan target's reduction shaders (compiler/vulkan/kernels_
// reduction.cc) against the CPU device: reduce on both paths, exact for
// integers, and select_and_scatter bit for bit.
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

// select_and_scatter (the gradient of max pooling) on the Vulkan device,
// bit-identical to the CPU: overlapping f32 windows with padding, and i32
// operands drawn from a few values so that ties decide the pick.
TEST_F(VulkanTest, SelectAndScatterMatchesCpuBitForBit) {
  const char* src = R"(
func.func @pool_grad(%x: tensor<2x7x9x3xf32>, %g: tensor<2x4x4x3xf32>, %z: tensor<f32>) -> tensor<2x7x9x3xf32> {
  %0 = "stablehlo.select_and_scatter"(%x, %g, %z) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %c = stablehlo.compare GE, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
  }, {
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>,
      padding = dense<[[0, 0], [1, 1], [0, 1], [0, 0]]> : tensor<4x2xi64>}
    : (tensor<2x7x9x3xf32>, tensor<2x4x4x3xf32>, tensor<f32>) -> tensor<2x7x9x3xf32>
  return %0 : tensor<2x7x9x3xf32>
}
func.func @ties(%x: tensor<7x5xi32>, %g: tensor<3x2xi32>, %z: tensor<i32>) -> tensor<7x5xi32> {
  %0 = "stablehlo.select_and_scatter"(%x, %g, %z) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %c = stablehlo.compare GT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
  }, {
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %s = stablehlo.multiply %a, %b : tensor<i32>
      stablehlo.return %s : tensor<i32>
  }) {window_dimensions = array<i64: 3, 3>, window_strides = array<i64: 2, 2>}
    : (tensor<7x5xi32>, tensor<3x2xi32>, tensor<i32>) -> tensor<7x5xi32>
  return %0 : tensor<7x5xi32>
}
)";
  auto bytes = CompileAll(src, "vulkan");
  ASSERT_FALSE(bytes.empty());
  std::mt19937_64 rng(19);
  auto tensor = [&](ElementType t, std::vector<int64_t> dims, int lo, int hi) {
    vm::HostTensor h;
    h.type = t;
    h.dims = std::move(dims);
    std::uniform_int_distribution<int> ints(lo, hi);
    std::normal_distribution<float> floats;
    for (int64_t k = 0; k < h.NumElements(); ++k) {
      uint8_t b[4];
      if (t == ElementType::kF32) {
        float v = floats(rng);
        std::memcpy(b, &v, 4);
      } else {
        int32_t v = ints(rng);
        std::memcpy(b, &v, 4);
      }
      h.data.insert(h.data.end(), b, b + 4);
    }
    return h;
  };
  for (int round = 0; round < 3; ++round) {
    std::vector<std::pair<const char*, std::vector<vm::HostTensor>>> cases = {
        {"pool_grad", {tensor(ElementType::kF32, {2, 7, 9, 3}, 0, 0), tensor(ElementType::kF32, {2, 4, 4, 3}, 0, 0),
                       tensor(ElementType::kF32, {}, 0, 0)}},
        {"ties", {tensor(ElementType::kSI32, {7, 5}, 0, 2), tensor(ElementType::kSI32, {3, 2}, -3, 3),
                  tensor(ElementType::kSI32, {}, 1, 2)}}};
    for (const auto& [fn, inputs] : cases) {
      auto want = RunOn(cpu_.get(), bytes, fn, inputs);
      auto got = RunOn(vulkan_.get(), bytes, fn, inputs);
      ASSERT_TRUE(want.ok()) << want.status().message();
      ASSERT_TRUE(got.ok()) << got.status().message();
      EXPECT_EQ((*want)[0].data, (*got)[0].data) << fn;
    }
  }
}

// chlo.scan (compiler/vulkan/kernels_reduction.cc): a running sum and a
// running max with its index (two inputs, two carries), forward and
// reversed, along each axis of a 3-D operand, and a zero-length scan axis
// (the carries come back as the inits); bit for bit against the CPU.
TEST_F(VulkanTest, ScanMatchesCpu) {
  std::mt19937_64 rng(29);
  for (const std::vector<int64_t>& dims : {std::vector<int64_t>{3, 4, 5}, std::vector<int64_t>{2, 0, 3}})
    for (int64_t dim = 0; dim < 3; ++dim)
      for (bool reverse : {false, true}) {
        SCOPED_TRACE("dims " + std::to_string(dims[0]) + "x" + std::to_string(dims[1]) + "x" + std::to_string(dims[2]) +
                     " dimension " + std::to_string(dim) + (reverse ? " reversed" : ""));
        std::vector<int64_t> lane;
        for (int64_t d = 0; d < 3; ++d)
          if (d != dim) lane.push_back(dims[d]);
        auto shape = [](const std::vector<int64_t>& d, const char* t) {
          std::string s = "tensor<";
          for (int64_t x : d) s += std::to_string(x) + "x";
          return s + t + ">";
        };
        const std::string xt = shape(dims, "f32"), it = shape(dims, "i32"), ct = shape(lane, "f32"),
                          ci = shape(lane, "i32"), sf = "tensor<f32>", si = "tensor<i32>";
        const std::string attrs = std::string("dimension=") + std::to_string(dim) + (reverse ? " attributes {is_reverse = true}" : "");
        const std::string src =
            "func.func @main(%x: " + xt + ", %k: " + it + ", %c0: " + ct + ", %c1: " + ct + ", %c2: " + ci + ") -> (" +
            xt + ", " + xt + ", " + it + ", " + ct + ", " + ct + ", " + ci + ") {\n"
            "  %0:6 = chlo.scan(%x, %x, %k) inits(%c0, %c1, %c2) " + attrs + " {\n"
            "  ^bb0(%a: " + sf + ", %b: " + sf + ", %i: " + si + ", %s: " + sf + ", %m: " + sf + ", %j: " + si + "):\n"
            "    %sum = stablehlo.add %a, %s : " + sf + "\n"
            "    %gt = stablehlo.compare GT, %b, %m : (" + sf + ", " + sf + ") -> tensor<i1>\n"
            "    %mx = stablehlo.select %gt, %b, %m : tensor<i1>, " + sf + "\n"
            "    %ix = stablehlo.select %gt, %i, %j : tensor<i1>, " + si + "\n"
            "    stablehlo.return %sum, %mx, %ix, %sum, %mx, %ix : " + sf + ", " + sf + ", " + si + ", " + sf + ", " + sf +
            ", " + si + "\n  } : (" + xt + ", " + xt + ", " + it + ", " + ct + ", " + ct + ", " + ci + ") -> (" + xt + ", " +
            xt + ", " + it + ", " + ct + ", " + ct + ", " + ci + ")\n"
            "  return %0#0, %0#1, %0#2, %0#3, %0#4, %0#5 : " + xt + ", " + xt + ", " + it + ", " + ct + ", " + ct + ", " +
            ci + "\n}\n";
        auto bytes = CompileAll(src, "vulkan");
        ASSERT_FALSE(bytes.empty());
        auto floats = [&](const std::vector<int64_t>& d) {
          vm::HostTensor h = RandomBits(ElementType::kF32, d, rng);
          std::uniform_real_distribution<float> u(-10, 10);
          for (size_t i = 0; i < h.data.size(); i += 4) {
            const float v = u(rng);
            std::memcpy(&h.data[i], &v, 4);
          }
          return h;
        };
        std::vector<vm::HostTensor> in = {floats(dims), RandomBits(ElementType::kSI32, dims, rng), floats(lane),
                                          floats(lane), RandomBits(ElementType::kSI32, lane, rng)};
        auto want = RunOn(cpu_.get(), bytes, "main", in);
        auto got = RunOn(vulkan_.get(), bytes, "main", in);
        ASSERT_TRUE(want.ok()) << want.status().message();
        ASSERT_TRUE(got.ok()) << got.status().message();
        for (size_t r = 0; r < 6; ++r) EXPECT_EQ((*want)[r].data, (*got)[r].data) << "result " << r;
        if (dims[dim] == 0) EXPECT_EQ((*got)[3].data, in[2].data) << "the carries are the inits";
      }
}

}  // namespace
}  // namespace kiln::vulkan_test
