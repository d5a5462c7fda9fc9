// Dynamic shapes for the ops whose result shapes follow from windows, index
// tensors and attributes (gather, scatter, reduce_window, pad,
// select_and_scatter, convolution, sort, reshape, batch_norm, fft,
// triangular_solve) and for quantized programs: each compiles once with `?`
// dimensions and runs on three shapes, one of them zero-sized, matching the
// same program compiled with the shapes written in (tests/support/dynamic_shapes.h).
// The static programs declare the result sizes the spec's shape inference
// gives, so a wrong run-time rule shows as a shape mismatch.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/dynamic_shapes.h"

namespace kiln {
namespace {

using test::Dims;
using Case = test::DynamicCase;

vm::HostTensor F32(std::vector<int64_t> d, uint32_t s) { return test::RandomTensor(ElementType::kF32, std::move(d), s); }
vm::HostTensor I32(std::vector<int64_t> d, uint32_t s) { return test::RandomTensor(ElementType::kSI32, std::move(d), s); }

// A lower-triangular matrix with a unit diagonal per batch (triangular_solve
// reads only that triangle).
vm::HostTensor UnitLower(int64_t batch) {
  std::vector<float> v;
  for (int64_t b = 0; b < batch; ++b)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) v.push_back(i == j ? 1.0f : (j < i ? 0.25f * static_cast<float>(i + j + b) : 0.0f));
  return test::HostTensorOf(ElementType::kF32, {batch, 3, 3}, v);
}

std::vector<Case> Cases() {
  return {
      {"gather_rows",
       R"(func.func @main(%a: tensor<5x3xf32>, %i: tensor<$Mx1xi64>) -> tensor<$Mx3xf32> {
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>, indices_are_sorted = false} : (tensor<5x3xf32>, tensor<$Mx1xi64>) -> tensor<$Mx3xf32>
  return %0 : tensor<$Mx3xf32>
})",
       {{{"M", 3}}, {{"M", 0}}, {{"M", 7}}},
       [](const Dims& d) {
         std::vector<int64_t> idx;
         for (int64_t k = 0; k < d.at("M"); ++k) idx.push_back((k * 3 + 1) % 5);
         return std::vector{F32({5, 3}, 1), test::I64s({d.at("M"), 1}, idx)};
       }},
      {"scatter_add",
       R"(func.func @main(%a: tensor<$Nx3xf32>, %u: tensor<2x3xf32>) -> tensor<$Nx3xf32> {
  %i = stablehlo.constant dense<[[0], [2]]> : tensor<2x1xi64>
  %0 = "stablehlo.scatter"(%a, %i, %u) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false} : (tensor<$Nx3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<$Nx3xf32>
  return %0 : tensor<$Nx3xf32>
})",
       {{{"N", 4}}, {{"N", 0}}, {{"N", 1}}},
       [](const Dims& d) { return std::vector{F32({d.at("N"), 3}, 2), F32({2, 3}, 3)}; }},
      {"reduce_window_padded_strided",
       R"(func.func @main(%a: tensor<$Nx5xf32>) -> tensor<$Nx3xf32> {
  %z = stablehlo.constant dense<-8.0> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%a, %z) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %m = stablehlo.maximum %x, %y : tensor<f32>
      stablehlo.return %m : tensor<f32>
  }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1, 2>, padding = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<$Nx5xf32>, tensor<f32>) -> tensor<$Nx3xf32>
  return %0 : tensor<$Nx3xf32>
})",
       {{{"N", 4}}, {{"N", 0}}, {{"N", 9}}},
       [](const Dims& d) { return std::vector{F32({d.at("N"), 5}, 4)}; }},
      {"reduce_window_dilated",
       R"(func.func @main(%a: tensor<$Nxf32>) -> tensor<$Rxf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%a, %z) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 3>, window_strides = array<i64: 2>, base_dilations = array<i64: 2>, window_dilations = array<i64: 2>} : (tensor<$Nxf32>, tensor<f32>) -> tensor<$Rxf32>
  return %0 : tensor<$Rxf32>
})",
       // dilated input 2N - 1, dilated window 5: R = (2N - 6) / 2 + 1, or 0 when 2N - 1 < 5
       {{{"N", 6}, {"R", 4}}, {{"N", 2}, {"R", 0}}, {{"N", 3}, {"R", 1}}},
       [](const Dims& d) { return std::vector{F32({d.at("N")}, 5)}; }},
      {"pad_interior",
       R"(func.func @main(%a: tensor<$Nx2xf32>) -> tensor<$Rx3xf32> {
  %z = stablehlo.constant dense<-1.0> : tensor<f32>
  %0 = stablehlo.pad %a, %z, low = [1, 0], high = [2, 1], interior = [1, 0] : (tensor<$Nx2xf32>, tensor<f32>) -> tensor<$Rx3xf32>
  return %0 : tensor<$Rx3xf32>
})",
       {{{"N", 3}, {"R", 8}}, {{"N", 0}, {"R", 3}}, {{"N", 1}, {"R", 4}}},
       [](const Dims& d) { return std::vector{F32({d.at("N"), 2}, 6)}; }},
      {"select_and_scatter",
       R"(func.func @main(%a: tensor<$Nx4xf32>, %s: tensor<$Mx2xf32>) -> tensor<$Nx4xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.select_and_scatter"(%a, %s, %z) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %c = stablehlo.compare GE, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
  }, {
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %t = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %t : tensor<f32>
  }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>} : (tensor<$Nx4xf32>, tensor<$Mx2xf32>, tensor<f32>) -> tensor<$Nx4xf32>
  return %0 : tensor<$Nx4xf32>
})",
       {{{"N", 4}, {"M", 2}}, {{"N", 0}, {"M", 0}}, {{"N", 6}, {"M", 3}}},
       [](const Dims& d) { return std::vector{F32({d.at("N"), 4}, 7), F32({d.at("M"), 2}, 8)}; }},
      {"convolution_strided_padded",
       R"(func.func @main(%x: tensor<$Bx$Wx2xf32>, %k: tensor<3x2x4xf32>) -> tensor<$Bx$Rx4xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [2], pad = [[1, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<$Bx$Wx2xf32>, tensor<3x2x4xf32>) -> tensor<$Bx$Rx4xf32>
  return %0 : tensor<$Bx$Rx4xf32>
})",
       // padded W + 1, window 3, stride 2: R = (W - 2) / 2 + 1, or 0 when W + 1 < 3
       {{{"B", 2}, {"W", 5}, {"R", 2}}, {{"B", 3}, {"W", 1}, {"R", 0}}, {{"B", 0}, {"W", 8}, {"R", 4}}},
       [](const Dims& d) { return std::vector{F32({d.at("B"), d.at("W"), 2}, 9), F32({3, 2, 4}, 10)}; }},
      {"sort_two_operands",
       R"(func.func @main(%k: tensor<$Nxf32>, %v: tensor<$Nxi32>) -> (tensor<$Nxf32>, tensor<$Nxi32>) {
  %0:2 = "stablehlo.sort"(%k, %v) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
      %p = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<$Nxf32>, tensor<$Nxi32>) -> (tensor<$Nxf32>, tensor<$Nxi32>)
  return %0#0, %0#1 : tensor<$Nxf32>, tensor<$Nxi32>
})",
       {{{"N", 5}}, {{"N", 0}}, {{"N", 33}}},
       [](const Dims& d) { return std::vector{F32({d.at("N")}, 11), I32({d.at("N")}, 12)}; }},
      {"reshape_inferred_dimension",
       R"(func.func @main(%a: tensor<$Nx6xf32>) -> tensor<$Mx3xf32> {
  %0 = stablehlo.reshape %a : (tensor<$Nx6xf32>) -> tensor<$Mx3xf32>
  return %0 : tensor<$Mx3xf32>
})",
       {{{"N", 2}, {"M", 4}}, {{"N", 0}, {"M", 0}}, {{"N", 5}, {"M", 10}}},
       [](const Dims& d) { return std::vector{F32({d.at("N"), 6}, 13)}; }},
      {"batch_norm_inference_and_training",
       R"(func.func @main(%a: tensor<$Nx3xf32>, %s: tensor<3xf32>) -> (tensor<$Nx3xf32>, tensor<$Nx3xf32>, tensor<3xf32>) {
  %m = stablehlo.constant dense<[0.5, -0.25, 0.0]> : tensor<3xf32>
  %v = stablehlo.constant dense<[1.0, 4.0, 0.25]> : tensor<3xf32>
  %0 = "stablehlo.batch_norm_inference"(%a, %s, %m, %m, %v) {epsilon = 0.0 : f32, feature_index = 1 : i64} : (tensor<$Nx3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<$Nx3xf32>
  %1:3 = "stablehlo.batch_norm_training"(%a, %s, %m) {epsilon = 1.0 : f32, feature_index = 1 : i64} : (tensor<$Nx3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<$Nx3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0, %1#0, %1#1 : tensor<$Nx3xf32>, tensor<$Nx3xf32>, tensor<3xf32>
})",
       {{{"N", 4}}, {{"N", 0}}, {{"N", 1}}},
       [](const Dims& d) { return std::vector{F32({d.at("N"), 3}, 14), F32({3}, 15)}; }},
      {"rfft",
       R"(func.func @main(%a: tensor<$Nx8xf32>) -> tensor<$Nx5xcomplex<f32>> {
  %0 = stablehlo.fft %a, type = RFFT, length = [8] : (tensor<$Nx8xf32>) -> tensor<$Nx5xcomplex<f32>>
  return %0 : tensor<$Nx5xcomplex<f32>>
})",
       {{{"N", 2}}, {{"N", 0}}, {{"N", 3}}},
       [](const Dims& d) { return std::vector{F32({d.at("N"), 8}, 16)}; }},
      {"triangular_solve_batched",
       R"(func.func @main(%a: tensor<$Bx3x3xf32>, %b: tensor<$Bx3x2xf32>) -> tensor<$Bx3x2xf32> {
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<$Bx3x3xf32>, tensor<$Bx3x2xf32>) -> tensor<$Bx3x2xf32>
  return %0 : tensor<$Bx3x2xf32>
})",
       {{{"B", 2}}, {{"B", 0}}, {{"B", 3}}},
       [](const Dims& d) { return std::vector{UnitLower(d.at("B")), F32({d.at("B"), 3, 2}, 17)}; }},
      {"quantized_dot_general_per_axis",
       R"(func.func @main(%a: tensor<$Mx3xf32>) -> tensor<$Mx2xf32> {
  %q = stablehlo.uniform_quantize %a : (tensor<$Mx3xf32>) -> tensor<$Mx3x!quant.uniform<i8:f32, 0.25:1>>
  %w0 = stablehlo.constant dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
  %w = stablehlo.bitcast_convert %w0 : (tensor<3x2xi8>) -> tensor<3x2x!quant.uniform<i8:f32:1, {0.5, 0.125}>>
  %d = stablehlo.dot_general %q, %w, contracting_dims = [1] x [0] : (tensor<$Mx3x!quant.uniform<i8:f32, 0.25:1>>, tensor<3x2x!quant.uniform<i8:f32:1, {0.5, 0.125}>>) -> tensor<$Mx2x!quant.uniform<i32:f32:1, {0.125, 0.03125}>>
  %r = stablehlo.uniform_dequantize %d : (tensor<$Mx2x!quant.uniform<i32:f32:1, {0.125, 0.03125}>>) -> tensor<$Mx2xf32>
  return %r : tensor<$Mx2xf32>
})",
       {{{"M", 2}}, {{"M", 0}}, {{"M", 5}}},
       [](const Dims& d) { return std::vector{F32({d.at("M"), 3}, 18)}; }},
      {"quantized_transpose_reduce",
       R"(func.func @main(%a: tensor<$Nx4xf32>) -> tensor<4xf32> {
  %q = stablehlo.uniform_quantize %a : (tensor<$Nx4xf32>) -> tensor<$Nx4x!quant.uniform<u8:f32, 0.25:128>>
  %t = stablehlo.transpose %q, dims = [1, 0] : (tensor<$Nx4x!quant.uniform<u8:f32, 0.25:128>>) -> tensor<4x$Nx!quant.uniform<u8:f32, 0.25:128>>
  %z0 = stablehlo.constant dense<128> : tensor<ui8>
  %z = stablehlo.bitcast_convert %z0 : (tensor<ui8>) -> tensor<!quant.uniform<u8:f32, 0.25:128>>
  %r = stablehlo.reduce(%t init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x$Nx!quant.uniform<u8:f32, 0.25:128>>, tensor<!quant.uniform<u8:f32, 0.25:128>>) -> tensor<4x!quant.uniform<u8:f32, 0.25:128>>
  %f = stablehlo.uniform_dequantize %r : (tensor<4x!quant.uniform<u8:f32, 0.25:128>>) -> tensor<4xf32>
  return %f : tensor<4xf32>
})",
       {{{"N", 3}}, {{"N", 0}}, {{"N", 6}}},
       [](const Dims& d) { return std::vector{F32({d.at("N"), 4}, 19)}; }},
  };
}

class DynamicShapeOps : public ::testing::TestWithParam<size_t> {};

TEST_P(DynamicShapeOps, CompilesOnceAndMatchesStaticOnEveryShape) { test::CheckDynamicCase(Cases()[GetParam()]); }

INSTANTIATE_TEST_SUITE_P(Ops, DynamicShapeOps, ::testing::Range<size_t>(0, Cases().size()),
                         [](const auto& info) { return std::string(Cases()[info.param].name); });

}  // namespace
}  // namespace kiln
