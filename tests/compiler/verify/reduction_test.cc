// Verifier tests for reductions: reduce, reduce_window, select_and_scatter and
// map: one malformed program per violated constraint, each rejected at the
// op's line:col with a precise message (verify_test_util.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/compiler/verify/verify_test_util.h"

namespace kiln::compiler {
namespace {

std::vector<Case> Cases() {
  const std::string red = "  %r = \"stablehlo.reduce\"(%a, %c) ";
  const std::string rw = "  %r = \"stablehlo.reduce_window\"(%a, %c) ";
  const std::string RA = "%a: tensor<2x3xf32>, %c: tensor<f32>";
  return {
      {"reduce_init_element", "%a: tensor<2x3xf32>, %c: tensor<f64>",
       red + kAddF32 + " {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f64>) -> tensor<2xf32>",
       "stablehlo.reduce", "input 0 type tensor<2x3xf32> and init value type tensor<f64> must have the same element type (C2)"},
      {"reduce_dims_range", RA, red + kAddF32 + " {dimensions = array<i64: 2>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>",
       "stablehlo.reduce", "dimensions [2] has 2, out of range [0, 2) (C4)"},
      {"reduce_dims_unique", RA, red + kAddF32 + " {dimensions = array<i64: 1, 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>",
       "stablehlo.reduce", "(C5)"},
      {"reduce_body", RA, red + kAddF32Bad + " {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>",
       "stablehlo.reduce", "body has type (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>), expected 2 arguments and 1 results (C6)"},
      {"reduce_body_type", RA, red + kAddI32 + " {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>",
       "stablehlo.reduce", "is not promotable to body argument type tensor<i32> (C6)"},
      {"reduce_result", RA, red + kAddF32 + " {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>",
       "stablehlo.reduce", "result 0 type tensor<3xf32> does not match the inferred shape [2] (C7)"},
      {"reduce_result_element", RA, red + kAddF32 + " {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf64>",
       "stablehlo.reduce", "(C8)"},
      {"reduce_window_dims_size", RA, rw + kAddF32 + " {window_dimensions = array<i64: 2>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<1x3xf32>",
       "stablehlo.reduce_window", "window_dimensions [2] has 1 elements, expected 2 (the input rank) (C4)"},
      {"reduce_window_dims_positive", RA, rw + kAddF32 + " {window_dimensions = array<i64: 2, 0>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<1x3xf32>",
       "stablehlo.reduce_window", "(C5)"},
      {"reduce_window_strides", RA, rw + kAddF32 + " {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 1, 0>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<1x3xf32>",
       "stablehlo.reduce_window", "(C7)"},
      {"reduce_window_base_dil", RA, rw + kAddF32 + " {window_dimensions = array<i64: 2, 1>, base_dilations = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<1x3xf32>",
       "stablehlo.reduce_window", "(C8)"},
      {"reduce_window_win_dil", RA, rw + kAddF32 + " {window_dimensions = array<i64: 2, 1>, window_dilations = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<1x3xf32>",
       "stablehlo.reduce_window", "(C11)"},
      {"reduce_window_padding", RA, rw + kAddF32 + " {window_dimensions = array<i64: 2, 1>, padding = dense<0> : tensor<1x2xi64>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<1x3xf32>",
       "stablehlo.reduce_window", "padding must have shape [2, 2], got [1, 2] (C12)"},
      {"reduce_window_body", RA, rw + kAddI32 + " {window_dimensions = array<i64: 2, 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<1x3xf32>",
       "stablehlo.reduce_window", "(C13)"},
      {"reduce_window_result", RA, rw + kAddF32 + " {window_dimensions = array<i64: 2, 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>",
       "stablehlo.reduce_window", "inferred shape [1, 3] (C15)"},
      {"select_and_scatter_source", "%a: tensor<4xf32>, %src: tensor<3xf32>, %c: tensor<f32>",
       "  %r = \"stablehlo.select_and_scatter\"(%a, %src, %c) " + kGeF32.substr(0, kGeF32.size() - 1) + ", " + kAddF32.substr(1) +
           " {window_dimensions = array<i64: 2>, window_strides = array<i64: 2>} : (tensor<4xf32>, tensor<3xf32>, "
           "tensor<f32>) -> tensor<4xf32>",
       "stablehlo.select_and_scatter", "source type tensor<3xf32> does not match the inferred shape [2] (C2)"},
      {"select_and_scatter_select", "%a: tensor<4xf32>, %src: tensor<2xf32>, %c: tensor<f32>",
       "  %r = \"stablehlo.select_and_scatter\"(%a, %src, %c) " + kAddF32.substr(0, kAddF32.size() - 1) + ", " + kAddF32.substr(1) +
           " {window_dimensions = array<i64: 2>, window_strides = array<i64: 2>} : (tensor<4xf32>, tensor<2xf32>, "
           "tensor<f32>) -> tensor<4xf32>",
       "stablehlo.select_and_scatter", "(C9)"},
      {"select_and_scatter_init", "%a: tensor<4xf32>, %src: tensor<2xf32>, %c: tensor<f64>",
       "  %r = \"stablehlo.select_and_scatter\"(%a, %src, %c) " + kGeF32.substr(0, kGeF32.size() - 1) + ", " + kAddF32.substr(1) +
           " {window_dimensions = array<i64: 2>, window_strides = array<i64: 2>} : (tensor<4xf32>, tensor<2xf32>, "
           "tensor<f64>) -> tensor<4xf32>",
       "stablehlo.select_and_scatter", "(C3)"},
      {"map_dims", "%a: tensor<2xf32>",
       "  %r = \"stablehlo.map\"(%a, %a) " + kAddF32 +
           " {dimensions = array<i64: 1>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>",
       "stablehlo.map", "dimensions [1] must be [0, ..., 0] (C3)"},
      {"map_shape", "%a: tensor<2xf32>, %b: tensor<3xf32>",
       "  %r = \"stablehlo.map\"(%a, %b) " + kAddF32 +
           " {dimensions = array<i64: 0>} : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>",
       "stablehlo.map", "(C1)"},
      {"map_computation", "%a: tensor<2xf32>",
       "  %r = \"stablehlo.map\"(%a) " + kAddF32 + " {dimensions = array<i64: 0>} : (tensor<2xf32>) -> tensor<2xf32>",
       "stablehlo.map", "computation has type (tensor<f32>, tensor<f32>) -> (tensor<f32>)"},
  };
}

TEST(VerifyReduction, RejectsMalformedPrograms) { ExpectRejected(Cases(), 21); }

}  // namespace
}  // namespace kiln::compiler
