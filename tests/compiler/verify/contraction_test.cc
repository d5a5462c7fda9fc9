// Verifier tests for contractions: dot_general, dot and convolution: one
// malformed program per violated constraint, each rejected at the op's
// line:col with a precise message (verify_test_util.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/compiler/verify/verify_test_util.h"

namespace kiln::compiler {
namespace {

std::vector<Case> Cases() {
  // convolution: lhs 1x4x4x1, rhs 3x3x1x1 -> 1x2x2x1 (b01f / 01io / b01f)
  auto conv = [](std::string window, std::string attrs, std::string lhs, std::string rhs, std::string res,
                 std::string dn = "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]") {
    return "  %r = stablehlo.convolution(%a, %b) dim_numbers = " + dn + ", window = {" + window + "} {" + attrs +
           "} : (" + lhs + ", " + rhs + ") -> " + res;
  };
  const std::string L = "tensor<1x4x4x1xf32>", K = "tensor<3x3x1x1xf32>", O = "tensor<1x2x2x1xf32>";
  const std::string CA = "%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>";
  const std::string fg = "feature_group_count = 1 : i64, batch_group_count = 1 : i64";
  return {
      {"dot_general_batch_size", "%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>",
       "  %r = stablehlo.dot_general %a, %b, batching_dims = [0] x [], contracting_dims = [2] x [1] : "
       "(tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>", "stablehlo.dot_general",
       "lhs_batching_dimensions [0] and rhs_batching_dimensions [] must have the same size (C1)"},
      {"dot_general_contract_size", "%a: tensor<3x4xf32>, %b: tensor<4x5xf32>",
       "  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [] : (tensor<3x4xf32>, tensor<4x5xf32>) -> "
       "tensor<3x4x5xf32>", "stablehlo.dot_general", "(C2)"},
      {"dot_general_unique", "%a: tensor<4x4xf32>, %b: tensor<4x4xf32>",
       "  %r = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [0] x [1] : "
       "(tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>", "stablehlo.dot_general",
       "lhs_batching_dimensions + lhs_contracting_dimensions [0, 0] repeats 0 (C3)"},
      {"dot_general_rhs_unique", "%a: tensor<4x4xf32>, %b: tensor<4x4xf32>",
       "  %r = stablehlo.dot_general %a, %b, batching_dims = [0] x [1], contracting_dims = [1] x [1] : "
       "(tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4xf32>", "stablehlo.dot_general", "(C4)"},
      {"dot_general_lhs_range", "%a: tensor<3x4xf32>, %b: tensor<4x5xf32>",
       "  %r = stablehlo.dot_general %a, %b, contracting_dims = [2] x [0] : (tensor<3x4xf32>, tensor<4x5xf32>) -> "
       "tensor<3x5xf32>", "stablehlo.dot_general", "lhs_contracting_dimensions [2] has 2, out of range [0, 2) (C6)"},
      {"dot_general_rhs_range", "%a: tensor<3x4xf32>, %b: tensor<4x5xf32>",
       "  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [3] : (tensor<3x4xf32>, tensor<4x5xf32>) -> "
       "tensor<3x5xf32>", "stablehlo.dot_general", "(C8)"},
      {"dot_general_lhs_batch_range", "%a: tensor<3x4xf32>, %b: tensor<4x5xf32>",
       "  %r = stablehlo.dot_general %a, %b, batching_dims = [5] x [1], contracting_dims = [1] x [0] : "
       "(tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>", "stablehlo.dot_general", "(C5)"},
      {"dot_general_batch_dims", "%a: tensor<2x3x4xf32>, %b: tensor<3x4x5xf32>",
       "  %r = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : "
       "(tensor<2x3x4xf32>, tensor<3x4x5xf32>) -> tensor<2x3x5xf32>", "stablehlo.dot_general",
       "batching dimension sizes differ: lhs dimension 0 is 2, rhs dimension 0 is 3 (C9)"},
      {"dot_general_contract_dims", "%a: tensor<3x4xf32>, %b: tensor<5x6xf32>",
       "  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<3x4xf32>, tensor<5x6xf32>) -> "
       "tensor<3x6xf32>", "stablehlo.dot_general",
       "contracting dimension sizes differ: lhs dimension 1 is 4, rhs dimension 0 is 5 (C10)"},
      {"dot_general_result", "%a: tensor<3x4xf32>, %b: tensor<4x5xf32>",
       "  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<3x4xf32>, tensor<4x5xf32>) -> "
       "tensor<5x3xf32>", "stablehlo.dot_general", "inferred shape [3, 5] (C12)"},
      {"dot_general_element", "%a: tensor<3x4xf32>, %b: tensor<4x5xf64>",
       "  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<3x4xf32>, tensor<4x5xf64>) -> "
       "tensor<3x5xf32>", "stablehlo.dot_general", "(C13)"},
      {"dot_contract", "%a: tensor<3x4xf32>, %b: tensor<5x6xf32>",
       "  %r = \"stablehlo.dot\"(%a, %b) : (tensor<3x4xf32>, tensor<5x6xf32>) -> tensor<3x6xf32>", "stablehlo.dot",
       "contracting dimension sizes differ"},
      {"dot_result", "%a: tensor<3x4xf32>, %b: tensor<4x6xf32>",
       "  %r = \"stablehlo.dot\"(%a, %b) : (tensor<3x4xf32>, tensor<4x6xf32>) -> tensor<3x5xf32>", "stablehlo.dot",
       "inferred shape [3, 6]"},
      {"dot_rank", "%a: tensor<2x3x4xf32>, %b: tensor<4x6xf32>",
       "  %r = \"stablehlo.dot\"(%a, %b) : (tensor<2x3x4xf32>, tensor<4x6xf32>) -> tensor<2x3x6xf32>", "stablehlo.dot",
       "must have rank 1 or 2"},
      {"conv_rank", "%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1xf32>",
       conv("stride = [1, 1]", fg, L, "tensor<3x3x1xf32>", O), "stablehlo.convolution", "must have the same rank (C1)"},
      {"conv_strides_size", CA, conv("stride = [1]", fg, L, K, O), "stablehlo.convolution",
       "window_strides [1] has 1 elements, expected 2 (the number of spatial dimensions) (C2)"},
      {"conv_strides_positive", CA, conv("stride = [1, 0]", fg, L, K, O), "stablehlo.convolution",
       "window_strides [1, 0] must be positive (C3)"},
      {"conv_padding", CA, conv("pad = [[0, 0]]", fg, L, K, O), "stablehlo.convolution",
       "padding must have shape [2, 2], got [1, 2] (C4)"},
      {"conv_lhs_dilation", CA, conv("lhs_dilate = [1, 1, 1]", fg, L, K, O), "stablehlo.convolution", "(C5)"},
      {"conv_lhs_dilation_positive", CA, conv("lhs_dilate = [0, 1]", fg, L, K, O), "stablehlo.convolution",
       "lhs_dilation [0, 1] must be positive (C6)"},
      {"conv_rhs_dilation", CA, conv("rhs_dilate = [2]", fg, L, K, O), "stablehlo.convolution", "(C7)"},
      {"conv_rhs_dilation_positive", CA, conv("rhs_dilate = [1, -1]", fg, L, K, O), "stablehlo.convolution", "(C8)"},
      {"conv_batch_group", "%a: tensor<3x4x4x1xf32>, %b: tensor<3x3x1x2xf32>",
       conv("", "feature_group_count = 1 : i64, batch_group_count = 2 : i64", "tensor<3x4x4x1xf32>",
            "tensor<3x3x1x2xf32>", "tensor<1x2x2x2xf32>"),
       "stablehlo.convolution", "input batch dimension size 3 is not divisible by batch_group_count 2 (C10)"},
      {"conv_feature_group", "%a: tensor<1x4x4x3xf32>, %b: tensor<3x3x1x2xf32>",
       conv("", "feature_group_count = 2 : i64, batch_group_count = 1 : i64", "tensor<1x4x4x3xf32>",
            "tensor<3x3x1x2xf32>", "tensor<1x2x2x2xf32>"),
       "stablehlo.convolution", "input feature dimension size 3 is not divisible by feature_group_count 2 (C11)"},
      {"conv_dims_unique", CA,
       "  %r = \"stablehlo.convolution\"(%a, %b) {dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, "
       "input_feature_dimension = 3, input_spatial_dimensions = [1, 1], kernel_input_feature_dimension = 2, "
       "kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, "
       "output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>} : (tensor<1x4x4x1xf32>, "
       "tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>",
       "stablehlo.convolution", "input dimensions [0, 1, 1, 3] repeats 1 (C13)"},
      {"conv_kernel_features", "%a: tensor<1x4x4x2xf32>, %b: tensor<3x3x1x1xf32>",
       conv("", fg, "tensor<1x4x4x2xf32>", K, O), "stablehlo.convolution",
       "kernel input feature dimension size 1 must be 2 (input features / feature_group_count) (C14)"},
      {"conv_kernel_out_batch", "%a: tensor<2x4x4x1xf32>, %b: tensor<3x3x1x3xf32>",
       conv("", "feature_group_count = 1 : i64, batch_group_count = 2 : i64", "tensor<2x4x4x1xf32>",
            "tensor<3x3x1x3xf32>", "tensor<1x2x2x3xf32>"),
       "stablehlo.convolution", "(C15)"},
      {"conv_kernel_out_feature", "%a: tensor<1x4x4x2xf32>, %b: tensor<3x3x1x3xf32>",
       conv("", "feature_group_count = 2 : i64, batch_group_count = 1 : i64", "tensor<1x4x4x2xf32>",
            "tensor<3x3x1x3xf32>", "tensor<1x2x2x3xf32>"),
       "stablehlo.convolution", "(C16)"},
      {"conv_kernel_unique", CA,
       "  %r = \"stablehlo.convolution\"(%a, %b) {dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, "
       "input_feature_dimension = 3, input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, "
       "kernel_output_feature_dimension = 2, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, "
       "output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>} : (tensor<1x4x4x1xf32>, "
       "tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>",
       "stablehlo.convolution", "kernel dimensions [0, 1, 2, 2] repeats 2 (C18)"},
      {"conv_output_range", CA,
       "  %r = \"stablehlo.convolution\"(%a, %b) {dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, "
       "input_feature_dimension = 3, input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, "
       "kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, "
       "output_feature_dimension = 4, output_spatial_dimensions = [1, 2]>} : (tensor<1x4x4x1xf32>, "
       "tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>",
       "stablehlo.convolution", "output dimensions [0, 1, 2, 4] has 4, out of range [0, 4) (C20)"},
      {"conv_feature_group_positive", CA, conv("", "feature_group_count = 0 : i64, batch_group_count = 1 : i64", L, K, O),
       "stablehlo.convolution", "feature_group_count 0 must be positive (C21)"},
      {"conv_batch_group_positive", CA, conv("", "feature_group_count = 1 : i64, batch_group_count = 0 : i64", L, K, O),
       "stablehlo.convolution", "(C22)"},
      {"conv_both_groups", "%a: tensor<2x4x4x2xf32>, %b: tensor<3x3x1x2xf32>",
       conv("", "feature_group_count = 2 : i64, batch_group_count = 2 : i64", "tensor<2x4x4x2xf32>",
            "tensor<3x3x1x2xf32>", "tensor<1x2x2x2xf32>"),
       "stablehlo.convolution", "cannot both be greater than 1 (C23)"},
      {"conv_result_shape", CA, conv("stride = [1, 1]", fg, L, K, "tensor<1x3x3x1xf32>"), "stablehlo.convolution",
       "does not match the inferred shape [1, 2, 2, 1] (C25)"},
      {"conv_result_padded", CA, conv("pad = [[1, 1], [1, 1]]", fg, L, K, O), "stablehlo.convolution",
       "inferred shape [1, 4, 4, 1] (C25)"},
      {"conv_result_rank", CA, conv("", fg, L, K, "tensor<1x2x2xf32>"), "stablehlo.convolution", "(C26)"},
      {"conv_element", "%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf64>",
       conv("", fg, L, "tensor<3x3x1x1xf64>", O), "stablehlo.convolution", "(C27)"},
  };
}

TEST(VerifyContraction, RejectsMalformedPrograms) { ExpectRejected(Cases(), 37); }

}  // namespace
}  // namespace kiln::compiler
