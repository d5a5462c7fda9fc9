// Verifier tests for data movement: transpose, broadcast (deprecated), broadcast_in_dim, reshape,
// slice, concatenate, pad, reverse, iota, get_dimension_size and
// bitcast_convert: one malformed program per violated constraint, each
// rejected at the op's line:col with a precise message (verify_test_util.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/compiler/verify/verify_test_util.h"

namespace kiln::compiler {
namespace {

std::vector<Case> Cases() {
  return {
      {"transpose_perm", F23,
       "  %r = \"stablehlo.transpose\"(%a) {permutation = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>",
       "stablehlo.transpose", "stablehlo.transpose: permutation [0, 0] is not a permutation of [0, 2) (C2)"},
      {"transpose_shape", F23,
       "  %r = \"stablehlo.transpose\"(%a) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>",
       "stablehlo.transpose", "result type tensor<2x3xf32> does not match the inferred shape [3, 2] (C3)"},
      {"transpose_element", F23,
       "  %r = \"stablehlo.transpose\"(%a) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf64>",
       "stablehlo.transpose", "(C1)"},
      {"deprecated_broadcast_sizes", "%a: tensor<3xf32>",
       "  %r = \"stablehlo.broadcast\"(%a) {broadcast_sizes = array<i64: 2>} : (tensor<3xf32>) -> tensor<3x2xf32>",
       "stablehlo.broadcast",
       "result type tensor<3x2xf32> must have the dimensions broadcast_sizes followed by the operand's (tensor<3xf32>)"},
      {"deprecated_broadcast_negative", "%a: tensor<3xf32>",
       "  %r = \"stablehlo.broadcast\"(%a) {broadcast_sizes = array<i64: -1>} : (tensor<3xf32>) -> tensor<2x3xf32>",
       "stablehlo.broadcast", "broadcast_sizes must be non-negative, got -1"},
      {"deprecated_broadcast_element", "%a: tensor<3xf32>",
       "  %r = \"stablehlo.broadcast\"(%a) {broadcast_sizes = array<i64: 2>} : (tensor<3xf32>) -> tensor<2x3xf64>",
       "stablehlo.broadcast", "(C1)"},
      {"broadcast_size", "%a: tensor<3xf32>",
       "  %r = \"stablehlo.broadcast_in_dim\"(%a) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<3xf32>) -> "
       "tensor<2x3xf32>", "stablehlo.broadcast_in_dim",
       "broadcast_dimensions [0, 1] has 2 elements, expected 1 (the operand rank) (C2)"},
      {"broadcast_range", "%a: tensor<3xf32>",
       "  %r = \"stablehlo.broadcast_in_dim\"(%a) {broadcast_dimensions = array<i64: 2>} : (tensor<3xf32>) -> "
       "tensor<2x3xf32>", "stablehlo.broadcast_in_dim", "out of range [0, 2) (C3)"},
      {"broadcast_unique", "%a: tensor<1x1xf32>",
       "  %r = \"stablehlo.broadcast_in_dim\"(%a) {broadcast_dimensions = array<i64: 1, 1>} : (tensor<1x1xf32>) -> "
       "tensor<2x3xf32>", "stablehlo.broadcast_in_dim", "repeats 1 (C4)"},
      {"broadcast_dim", "%a: tensor<3xf32>",
       "  %r = \"stablehlo.broadcast_in_dim\"(%a) {broadcast_dimensions = array<i64: 0>} : (tensor<3xf32>) -> "
       "tensor<2x3xf32>", "stablehlo.broadcast_in_dim",
       "operand dimension 0 of size 3 cannot broadcast to result dimension 0 of size 2"},
      {"broadcast_element", "%a: tensor<3xf32>",
       "  %r = \"stablehlo.broadcast_in_dim\"(%a) {broadcast_dimensions = array<i64: 1>} : (tensor<3xf32>) -> "
       "tensor<2x3xi32>", "stablehlo.broadcast_in_dim", "(C1)"},
      {"reshape_count", F23, "  %r = \"stablehlo.reshape\"(%a) : (tensor<2x3xf32>) -> tensor<5xf32>",
       "stablehlo.reshape", "has 6 elements, but result tensor<5xf32> has 5 (C2)"},
      {"reshape_element", F23, "  %r = \"stablehlo.reshape\"(%a) : (tensor<2x3xf32>) -> tensor<6xi32>",
       "stablehlo.reshape", "(C1)"},
      {"slice_size", F23,
       "  %r = \"stablehlo.slice\"(%a) {start_indices = array<i64: 0>, limit_indices = array<i64: 2, 3>, strides = "
       "array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>", "stablehlo.slice",
       "start_indices [0] has 1 elements, expected 2 (the operand rank) (C2)"},
      {"slice_bounds", F23,
       "  %r = \"stablehlo.slice\"(%a) {start_indices = array<i64: 0, 2>, limit_indices = array<i64: 2, 4>, strides = "
       "array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x2xf32>", "stablehlo.slice",
       "dimension 1: need 0 <= start 2 <= limit 4 <= size 3 (C3)"},
      {"slice_stride", F23,
       "  %r = \"stablehlo.slice\"(%a) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 2, 3>, strides = "
       "array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>", "stablehlo.slice", "must be positive (C4)"},
      {"slice_shape", F23,
       "  %r = \"stablehlo.slice\"(%a) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 2, 3>, strides = "
       "array<i64: 1, 2>} : (tensor<2x3xf32>) -> tensor<2x3xf32>", "stablehlo.slice",
       "does not match the inferred shape [2, 2] (C5)"},
      {"slice_element", F23,
       "  %r = \"stablehlo.slice\"(%a) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 2, 3>, strides = "
       "array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf16>", "stablehlo.slice", "(C1)"},
      {"concat_dim", "%a: tensor<2xf32>",
       "  %r = \"stablehlo.concatenate\"(%a, %a) {dimension = 1 : i64} : (tensor<2xf32>, tensor<2xf32>) -> "
       "tensor<4xf32>", "stablehlo.concatenate", "dimension 1 is out of range [0, 1) (C4)"},
      {"concat_element", "%a: tensor<2xf32>, %b: tensor<2xf64>",
       "  %r = \"stablehlo.concatenate\"(%a, %b) {dimension = 0 : i64} : (tensor<2xf32>, tensor<2xf64>) -> "
       "tensor<4xf32>", "stablehlo.concatenate", "(C1)"},
      {"concat_shape", "%a: tensor<2x3xf32>, %b: tensor<2x4xf32>",
       "  %r = \"stablehlo.concatenate\"(%a, %b) {dimension = 0 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> "
       "tensor<4x3xf32>", "stablehlo.concatenate", "must have the same shape except in dimension 0 (C2)"},
      {"concat_result", "%a: tensor<2xf32>",
       "  %r = \"stablehlo.concatenate\"(%a, %a) {dimension = 0 : i64} : (tensor<2xf32>, tensor<2xf32>) -> "
       "tensor<5xf32>", "stablehlo.concatenate", "inferred shape [4] (C6)"},
      {"pad_element", "%a: tensor<2xf32>, %p: tensor<f64>",
       "  %r = \"stablehlo.pad\"(%a, %p) {edge_padding_low = array<i64: 1>, edge_padding_high = array<i64: 1>, "
       "interior_padding = array<i64: 0>} : (tensor<2xf32>, tensor<f64>) -> tensor<4xf32>", "stablehlo.pad", "(C1)"},
      {"pad_sizes", "%a: tensor<2xf32>, %p: tensor<f32>",
       "  %r = \"stablehlo.pad\"(%a, %p) {edge_padding_low = array<i64: 1, 1>, edge_padding_high = array<i64: 1>, "
       "interior_padding = array<i64: 0>} : (tensor<2xf32>, tensor<f32>) -> tensor<4xf32>", "stablehlo.pad",
       "edge_padding_low [1, 1] has 2 elements, expected 1 (the operand rank) (C2)"},
      {"pad_interior", "%a: tensor<2xf32>, %p: tensor<f32>",
       "  %r = \"stablehlo.pad\"(%a, %p) {edge_padding_low = array<i64: 0>, edge_padding_high = array<i64: 0>, "
       "interior_padding = array<i64: -1>} : (tensor<2xf32>, tensor<f32>) -> tensor<1xf32>", "stablehlo.pad",
       "must be non-negative (C3)"},
      {"pad_shape", "%a: tensor<2xf32>, %p: tensor<f32>",
       "  %r = \"stablehlo.pad\"(%a, %p) {edge_padding_low = array<i64: 1>, edge_padding_high = array<i64: 2>, "
       "interior_padding = array<i64: 1>} : (tensor<2xf32>, tensor<f32>) -> tensor<5xf32>", "stablehlo.pad",
       "inferred shape [6] (C4)"},
      {"reverse_dup", F23,
       "  %r = \"stablehlo.reverse\"(%a) {dimensions = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>",
       "stablehlo.reverse", "dimensions [1, 1] repeats 1 (C2)"},
      {"reverse_range", F23,
       "  %r = \"stablehlo.reverse\"(%a) {dimensions = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2x3xf32>",
       "stablehlo.reverse", "out of range [0, 2) (C3)"},
      {"reverse_type", F23,
       "  %r = \"stablehlo.reverse\"(%a) {dimensions = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>",
       "stablehlo.reverse", "(C1)"},
      {"iota_dim", "", "  %r = stablehlo.iota dim = 2 : tensor<2x3xf32>", "stablehlo.iota",
       "iota_dimension 2 is out of range [0, 2) of result type tensor<2x3xf32> (C1)"},
      {"get_dimension_size_dim", F23,
       "  %r = \"stablehlo.get_dimension_size\"(%a) {dimension = 2 : i64} : (tensor<2x3xf32>) -> tensor<i32>",
       "stablehlo.get_dimension_size", "dimension 2 is out of range [0, 2) of operand type tensor<2x3xf32> (C1)"},
      {"bitcast_same_width", "%a: tensor<2xf32>",
       "  %r = \"stablehlo.bitcast_convert\"(%a) : (tensor<2xf32>) -> tensor<3xi32>", "stablehlo.bitcast_convert",
       "must have the same shape (tensor<2xf32> -> tensor<3xi32>) (C1)"},
      {"bitcast_narrow", "%a: tensor<2xf32>",
       "  %r = \"stablehlo.bitcast_convert\"(%a) : (tensor<2xf32>) -> tensor<2x2xi8>", "stablehlo.bitcast_convert",
       "a last dimension of 4"},
      {"bitcast_widen", "%a: tensor<2x3xi8>",
       "  %r = \"stablehlo.bitcast_convert\"(%a) : (tensor<2x3xi8>) -> tensor<2xi32>", "stablehlo.bitcast_convert",
       "operand must have the result's shape plus a last dimension of 4"},
      {"bitcast_complex", "%a: tensor<2xcomplex<f32>>",
       "  %r = \"stablehlo.bitcast_convert\"(%a) : (tensor<2xcomplex<f32>>) -> tensor<2xi64>",
       "stablehlo.bitcast_convert", "(C2)"},
  };
}

TEST(VerifyDataMovement, RejectsMalformedPrograms) { ExpectRejected(Cases(), 32); }

}  // namespace
}  // namespace kiln::compiler
