// Dynamic shapes: functions whose arguments have `?` dimensions compile once
// and run on several shapes (one of them zero-sized). Each result is checked
// against the same program compiled with those shapes written in statically
// (where the ops are the reference kernels' plain, static-shape path), and
// the result shapes against the spec's shape inference.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/dynamic_shapes.h"

namespace kiln {
namespace {

using test::CompileAndRun;
using test::Dims;
using test::Instantiate;

vm::HostTensor Random(ElementType type, std::vector<int64_t> dims, uint32_t seed) {
  return test::RandomTensor(type, std::move(dims), seed);
}

vm::HostTensor I64s(const std::vector<int64_t>& values) {
  return test::I64s({static_cast<int64_t>(values.size())}, values);
}

using Case = test::DynamicCase;

std::vector<Case> Cases() {
  auto f32 = [](std::vector<int64_t> d, uint32_t s) { return Random(ElementType::kF32, std::move(d), s); };
  auto i32 = [](std::vector<int64_t> d, uint32_t s) { return Random(ElementType::kSI32, std::move(d), s); };
  return {
      {"elementwise_chain",
       R"(func.func @main(%a: tensor<$Nx4xf32>, %b: tensor<$Nx4xf32>) -> tensor<$Nx4xf32> {
  %0 = stablehlo.add %a, %b : tensor<$Nx4xf32>
  %1 = stablehlo.multiply %0, %a : tensor<$Nx4xf32>
  %2 = stablehlo.exponential %1 : tensor<$Nx4xf32>
  return %2 : tensor<$Nx4xf32>
})",
       {{{"N", 3}}, {{"N", 0}}, {{"N", 17}}},
       [=](const Dims& d) { return std::vector{f32({d.at("N"), 4}, 1), f32({d.at("N"), 4}, 2)}; }},
      {"compare_select_convert",
       R"(func.func @main(%a: tensor<$Nxi32>, %b: tensor<$Nxi32>) -> tensor<$Nxf32> {
  %c = stablehlo.compare GT, %a, %b, SIGNED : (tensor<$Nxi32>, tensor<$Nxi32>) -> tensor<$Nxi1>
  %m = stablehlo.select %c, %a, %b : tensor<$Nxi1>, tensor<$Nxi32>
  %f = stablehlo.convert %m : (tensor<$Nxi32>) -> tensor<$Nxf32>
  return %f : tensor<$Nxf32>
})",
       {{{"N", 5}}, {{"N", 0}}, {{"N", 64}}},
       [=](const Dims& d) { return std::vector{i32({d.at("N")}, 3), i32({d.at("N")}, 4)}; }},
      {"broadcast_in_dim",
       R"(func.func @main(%a: tensor<$Nxf32>, %b: tensor<$Nx3xf32>) -> tensor<$Nx3xf32> {
  %0 = stablehlo.broadcast_in_dim %a, dims = [0] : (tensor<$Nxf32>) -> tensor<$Nx3xf32>
  %1 = stablehlo.subtract %0, %b : tensor<$Nx3xf32>
  return %1 : tensor<$Nx3xf32>
})",
       {{{"N", 2}}, {{"N", 0}}, {{"N", 9}}},
       [=](const Dims& d) { return std::vector{f32({d.at("N")}, 5), f32({d.at("N"), 3}, 6)}; }},
      {"dot_general",
       R"(func.func @main(%a: tensor<$Mx8xf32>, %b: tensor<8x$Nxf32>) -> tensor<$Mx$Nxf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<$Mx8xf32>, tensor<8x$Nxf32>) -> tensor<$Mx$Nxf32>
  return %0 : tensor<$Mx$Nxf32>
})",
       {{{"M", 3}, {"N", 5}}, {{"M", 0}, {"N", 4}}, {{"M", 33}, {"N", 1}}},
       [=](const Dims& d) { return std::vector{f32({d.at("M"), 8}, 7), f32({8, d.at("N")}, 8)}; }},
      {"reduce",
       R"(func.func @main(%a: tensor<$Mx$Nxf32>) -> tensor<$Mxf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<$Mx$Nxf32>, tensor<f32>) -> tensor<$Mxf32>
  return %0 : tensor<$Mxf32>
})",
       {{{"M", 4}, {"N", 6}}, {{"M", 3}, {"N", 0}}, {{"M", 0}, {"N", 5}}},
       [=](const Dims& d) { return std::vector{f32({d.at("M"), d.at("N")}, 9)}; }},
      {"concatenate",
       R"(func.func @main(%a: tensor<$Mx2xi32>, %b: tensor<$Nx2xi32>) -> tensor<$Sx2xi32> {
  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<$Mx2xi32>, tensor<$Nx2xi32>) -> tensor<$Sx2xi32>
  return %0 : tensor<$Sx2xi32>
})",
       {{{"M", 2}, {"N", 3}, {"S", 5}}, {{"M", 0}, {"N", 0}, {"S", 0}}, {{"M", 7}, {"N", 0}, {"S", 7}}},
       [=](const Dims& d) { return std::vector{i32({d.at("M"), 2}, 10), i32({d.at("N"), 2}, 11)}; }},
      {"transpose",
       R"(func.func @main(%a: tensor<$Nx3xf32>) -> tensor<3x$Nxf32> {
  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<$Nx3xf32>) -> tensor<3x$Nxf32>
  return %0 : tensor<3x$Nxf32>
})",
       {{{"N", 4}}, {{"N", 0}}, {{"N", 1}}},
       [=](const Dims& d) { return std::vector{f32({d.at("N"), 3}, 12)}; }},
      {"real_dynamic_slice",
       R"(func.func @main(%a: tensor<$Nxi32>, %s: tensor<1xi64>, %l: tensor<1xi64>, %t: tensor<1xi64>) -> tensor<$Rxi32> {
  %0 = stablehlo.real_dynamic_slice %a, %s, %l, %t : (tensor<$Nxi32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<$Rxi32>
  return %0 : tensor<$Rxi32>
})",
       {{{"N", 10}, {"R", 3}}, {{"N", 10}, {"R", 0}}, {{"N", 7}, {"R", 7}}},
       [=](const Dims& d) {
         int64_t n = d.at("N"), r = d.at("R");
         // r = 3: [1:8:3]; r = 0: [4:4:1]; r = n: [0:n:1]
         std::vector<int64_t> s = r == 3 ? std::vector<int64_t>{1, 8, 3}
                                         : (r == 0 ? std::vector<int64_t>{4, 4, 1} : std::vector<int64_t>{0, n, 1});
         return std::vector{i32({n}, 13), I64s({s[0]}), I64s({s[1]}), I64s({s[2]})};
       }},
      {"dynamic_reshape",
       R"(func.func @main(%a: tensor<$Nxf32>, %shape: tensor<2xi64>) -> tensor<$Rx$Cxf32> {
  %0 = stablehlo.dynamic_reshape %a, %shape : (tensor<$Nxf32>, tensor<2xi64>) -> tensor<$Rx$Cxf32>
  return %0 : tensor<$Rx$Cxf32>
})",
       {{{"N", 6}, {"R", 2}, {"C", 3}}, {{"N", 0}, {"R", 0}, {"C", 5}}, {{"N", 12}, {"R", 4}, {"C", 3}}},
       [=](const Dims& d) { return std::vector{f32({d.at("N")}, 14), I64s({d.at("R"), d.at("C")})}; }},
      {"dynamic_iota_and_shape_arithmetic",
       R"(func.func @main(%a: tensor<$Nxi32>) -> tensor<$Mxi32> {
  %n = stablehlo.get_dimension_size %a, dim = 0 : (tensor<$Nxi32>) -> tensor<i32>
  %two = stablehlo.constant dense<2> : tensor<i32>
  %m = stablehlo.multiply %n, %two : tensor<i32>
  %m64 = stablehlo.convert %m : (tensor<i32>) -> tensor<i64>
  %shape = stablehlo.reshape %m64 : (tensor<i64>) -> tensor<1xi64>
  %0 = stablehlo.dynamic_iota %shape, dim = 0 : (tensor<1xi64>) -> tensor<$Mxi32>
  return %0 : tensor<$Mxi32>
})",
       {{{"N", 3}, {"M", 6}}, {{"N", 0}, {"M", 0}}, {{"N", 20}, {"M", 40}}},
       [=](const Dims& d) { return std::vector{i32({d.at("N")}, 15)}; }},
      {"dynamic_broadcast_in_dim",
       R"(func.func @main(%a: tensor<3xf32>, %shape: tensor<2xi64>) -> tensor<$Nx3xf32> {
  %0 = stablehlo.dynamic_broadcast_in_dim %a, %shape, dims = [1] : (tensor<3xf32>, tensor<2xi64>) -> tensor<$Nx3xf32>
  return %0 : tensor<$Nx3xf32>
})",
       {{{"N", 4}}, {{"N", 0}}, {{"N", 1}}},
       [=](const Dims& d) { return std::vector{f32({3}, 16), I64s({d.at("N"), 3})}; }},
      {"dynamic_pad",
       R"(func.func @main(%a: tensor<$Nxf32>, %lo: tensor<1xi64>, %hi: tensor<1xi64>, %in: tensor<1xi64>) -> tensor<$Rxf32> {
  %z = stablehlo.constant dense<-1.0> : tensor<f32>
  %0 = stablehlo.dynamic_pad %a, %z, %lo, %hi, %in : (tensor<$Nxf32>, tensor<f32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<$Rxf32>
  return %0 : tensor<$Rxf32>
})",
       {{{"N", 3}, {"R", 9}}, {{"N", 0}, {"R", 3}}, {{"N", 5}, {"R", 7}}},
       [=](const Dims& d) {
         int64_t n = d.at("N");
         // 3 -> 1 + 3 + 2*2 + 1 = 9; 0 -> 2 + 0 + 1 = 3; 5 -> 1 + 5 + 1 = 7
         if (n == 3) return std::vector{f32({n}, 17), I64s({1}), I64s({1}), I64s({2})};
         if (n == 0) return std::vector{f32({n}, 17), I64s({2}), I64s({1}), I64s({4})};
         return std::vector{f32({n}, 17), I64s({1}), I64s({1}), I64s({0})};
       }},
  };
}

class DynamicShapes : public ::testing::TestWithParam<size_t> {};

TEST_P(DynamicShapes, CompilesOnceAndMatchesStaticOnEveryShape) { test::CheckDynamicCase(Cases()[GetParam()]); }

INSTANTIATE_TEST_SUITE_P(Functions, DynamicShapes, ::testing::Range<size_t>(0, Cases().size()),
                         [](const auto& info) { return std::string(Cases()[info.param].name); });

TEST(DynamicShapesErrors, WrongInputShapeIsReported) {
  auto r = CompileAndRun(Instantiate(Cases()[0].program, nullptr),
                         {Random(ElementType::kF32, {2, 5}, 1), Random(ElementType::kF32, {2, 4}, 2)});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("must be tensor<?x4xf32>"), std::string::npos) << r.status().message();
  auto mismatch = CompileAndRun(Instantiate(Cases()[0].program, nullptr),
                                {Random(ElementType::kF32, {3, 4}, 1), Random(ElementType::kF32, {2, 4}, 2)});
  EXPECT_FALSE(mismatch.ok());
}

}  // namespace
}  // namespace kiln
