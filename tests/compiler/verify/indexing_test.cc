// Verifier tests for indexing: dynamic_slice, dynamic_update_slice, gather,
// scatter and sort: one malformed program per violated constraint, each
// rejected at the op's line:col with a precise message (verify_test_util.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/compiler/verify/verify_test_util.h"

namespace kiln::compiler {
namespace {

std::vector<Case> Cases() {
  // gather: operand 3x4x2, indices 2x3x2, result 2x3x2x2 (the spec example, simplified)
  auto gather = [](std::string dn, std::string sizes, std::string result) {
    return "  %r = \"stablehlo.gather\"(%a, %i) {dimension_numbers = #stablehlo.gather<" + dn +
           ">, slice_sizes = array<i64: " + sizes + ">} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>) -> " + result;
  };
  const std::string GA = "%a: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>";
  const std::string good_dn = "offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2";
  // scatter: input 3x4x2, indices 2x3x2, updates 2x3x2x2 (the conformance example)
  auto scatter = [](std::string dn, std::string updates, std::string region, std::string result) {
    return "  %r = \"stablehlo.scatter\"(%a, %i, %u) " + region +
           " {scatter_dimension_numbers = #stablehlo.scatter<" + dn + ">} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, " +
           updates + ") -> " + result;
  };
  const std::string SA = "%a: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>, %u: tensor<2x3x2x2xf32>";
  const std::string SA3 = "%a: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>, %u: tensor<2x3x2x3xf32>";
  const std::string sdn = "update_window_dims = [2, 3], inserted_window_dims = [0], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2";
  const std::string U = "tensor<2x3x2x2xf32>", R = "tensor<3x4x2xf32>";
  const std::string sort_pre = "  %r = \"stablehlo.sort\"(%a) ";
  return {
      {"dynamic_slice_count", "%a: tensor<4xf32>, %i: tensor<i32>",
       "  %r = \"stablehlo.dynamic_slice\"(%a, %i, %i) {slice_sizes = array<i64: 2>} : (tensor<4xf32>, tensor<i32>, "
       "tensor<i32>) -> tensor<2xf32>", "stablehlo.dynamic_slice", "has 2 start indices, expected 1 (the operand rank) (C2)"},
      {"dynamic_slice_index_types", "%a: tensor<4x4xf32>, %i: tensor<i32>, %j: tensor<i64>",
       "  %r = \"stablehlo.dynamic_slice\"(%a, %i, %j) {slice_sizes = array<i64: 2, 2>} : (tensor<4x4xf32>, "
       "tensor<i32>, tensor<i64>) -> tensor<2x2xf32>", "stablehlo.dynamic_slice", "start indices must have the same type, got tensor<i32> and tensor<i64> (C3)"},
      {"dynamic_slice_sizes", "%a: tensor<4xf32>, %i: tensor<i32>",
       "  %r = \"stablehlo.dynamic_slice\"(%a, %i) {slice_sizes = array<i64: 5>} : (tensor<4xf32>, tensor<i32>) -> "
       "tensor<5xf32>", "stablehlo.dynamic_slice", "must be within the operand shape [4] (C4)"},
      {"dynamic_slice_result", "%a: tensor<4xf32>, %i: tensor<i32>",
       "  %r = \"stablehlo.dynamic_slice\"(%a, %i) {slice_sizes = array<i64: 2>} : (tensor<4xf32>, tensor<i32>) -> "
       "tensor<3xf32>", "stablehlo.dynamic_slice", "(C5)"},
      {"dus_type", "%a: tensor<4xf32>, %u: tensor<2xf32>, %i: tensor<i32>",
       "  %r = \"stablehlo.dynamic_update_slice\"(%a, %u, %i) : (tensor<4xf32>, tensor<2xf32>, tensor<i32>) -> "
       "tensor<5xf32>", "stablehlo.dynamic_update_slice", "(C1)"},
      {"dus_update_element", "%a: tensor<4xf32>, %u: tensor<2xf64>, %i: tensor<i32>",
       "  %r = \"stablehlo.dynamic_update_slice\"(%a, %u, %i) : (tensor<4xf32>, tensor<2xf64>, tensor<i32>) -> "
       "tensor<4xf32>", "stablehlo.dynamic_update_slice", "(C2)"},
      {"dus_rank", "%a: tensor<4xf32>, %u: tensor<2x1xf32>, %i: tensor<i32>",
       "  %r = \"stablehlo.dynamic_update_slice\"(%a, %u, %i) : (tensor<4xf32>, tensor<2x1xf32>, tensor<i32>) -> "
       "tensor<4xf32>", "stablehlo.dynamic_update_slice", "(C3)"},
      {"dus_count", "%a: tensor<4xf32>, %u: tensor<2xf32>, %i: tensor<i32>",
       "  %r = \"stablehlo.dynamic_update_slice\"(%a, %u, %i, %i) : (tensor<4xf32>, tensor<2xf32>, tensor<i32>, "
       "tensor<i32>) -> tensor<4xf32>", "stablehlo.dynamic_update_slice", "(C4)"},
      {"dus_fits", "%a: tensor<4xf32>, %u: tensor<5xf32>, %i: tensor<i32>",
       "  %r = \"stablehlo.dynamic_update_slice\"(%a, %u, %i) : (tensor<4xf32>, tensor<5xf32>, tensor<i32>) -> "
       "tensor<4xf32>", "stablehlo.dynamic_update_slice", "does not fit in operand type tensor<4xf32> (C6)"},
      {"gather_rank", GA, gather("offset_dims = [2, 3], collapsed_slice_dims = [], start_index_map = [1, 0], index_vector_dim = 2", "1, 2, 2", "tensor<2x3x2x2xf32>"),
       "stablehlo.gather", "operand rank 3 must equal size(offset_dims) + size(collapsed_slice_dims) + size(operand_batching_dims) = 2 (C1)"},
      {"gather_ivd", GA, gather("offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 4", "1, 2, 2", "tensor<2x3x2x2xf32>"),
       "stablehlo.gather", "index_vector_dim 4 is out of range [0, 3] (C2)"},
      {"gather_map_size", GA, gather("offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1], index_vector_dim = 2", "1, 2, 2", "tensor<2x3x2x2xf32>"),
       "stablehlo.gather", "start_index_map [1] must have 2 elements (the index vector size) (C3)"},
      {"gather_offset_sorted", GA, gather("offset_dims = [3, 2], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2", "1, 2, 2", "tensor<2x3x2x2xf32>"),
       "stablehlo.gather", "offset_dims [3, 2] is not sorted (C4)"},
      {"gather_offset_range", GA, gather("offset_dims = [2, 4], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2", "1, 2, 2", "tensor<2x3x2x2xf32>"),
       "stablehlo.gather", "offset_dims [2, 4] has 4, out of range [0, 4) (C5)"},
      {"gather_collapsed_range", GA, gather("offset_dims = [2, 3], collapsed_slice_dims = [3], start_index_map = [1, 0], index_vector_dim = 2", "1, 2, 2", "tensor<2x3x2x2xf32>"),
       "stablehlo.gather", "(C8)"},
      {"gather_collapsed_size", GA, gather(good_dn, "2, 2, 2", "tensor<2x3x2x2xf32>"),
       "stablehlo.gather", "slice_sizes[0] = 2 of a collapsed dimension must be <= 1 (C9)"},
      {"gather_map_unique", GA, gather("offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 1], index_vector_dim = 2", "1, 2, 2", "tensor<2x3x2x2xf32>"),
       "stablehlo.gather", "start_index_map + operand_batching_dims [1, 1] repeats 1 (C18)"},
      {"gather_map_range", GA, gather("offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 3], index_vector_dim = 2", "1, 2, 2", "tensor<2x3x2x2xf32>"),
       "stablehlo.gather", "(C19)"},
      {"gather_sizes_count", GA, gather(good_dn, "1, 2", "tensor<2x3x2x2xf32>"),
       "stablehlo.gather", "slice_sizes [1, 2] has 2 elements, expected 3 (the operand rank) (C20)"},
      {"gather_sizes_bound", GA, gather(good_dn, "1, 5, 2", "tensor<2x3x5x2xf32>"),
       "stablehlo.gather", "must be within the operand shape [3, 4, 2] (C21)"},
      {"gather_result", GA, gather(good_dn, "1, 2, 2", "tensor<2x3x2x3xf32>"),
       "stablehlo.gather", "does not match the inferred shape [2, 3, 2, 2] (C22)"},
      {"gather_element", GA, gather(good_dn, "1, 2, 2", "tensor<2x3x2x2xf64>"),
       "stablehlo.gather", "(C23)"},
      {"gather_batching_size", GA, gather("offset_dims = [2], collapsed_slice_dims = [0], operand_batching_dims = [1], start_indices_batching_dims = [], start_index_map = [0, 2], index_vector_dim = 2", "1, 1, 2", "tensor<2x3x2xf32>"),
       "stablehlo.gather", "(C16)"},
      {"scatter_rank", SA, scatter("update_window_dims = [2, 3], inserted_window_dims = [], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2", U, kAddF32, R),
       "stablehlo.scatter", "input rank 3 must equal size(update_window_dims) + size(inserted_window_dims) + size(input_batching_dims) = 2 (C2)"},
      {"scatter_updates_shape", SA3, scatter(sdn, "tensor<2x3x2x3xf32>", kAddF32, R),
       "stablehlo.scatter", "updates dimension 3 of size 3 exceeds the input window size 2 (C4)"},
      {"scatter_uwd_sorted", SA, scatter("update_window_dims = [3, 2], inserted_window_dims = [0], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2", U, kAddF32, R),
       "stablehlo.scatter", "update_window_dims [3, 2] is not sorted (C7)"},
      {"scatter_uwd_range", SA, scatter("update_window_dims = [2, 4], inserted_window_dims = [0], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2", U, kAddF32, R),
       "stablehlo.scatter", "(C8)"},
      {"scatter_inserted_range", SA, scatter("update_window_dims = [2, 3], inserted_window_dims = [5], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2", U, kAddF32, R),
       "stablehlo.scatter", "(C11)"},
      {"scatter_ivd", SA, scatter("update_window_dims = [2, 3], inserted_window_dims = [0], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 7", U, kAddF32, R),
       "stablehlo.scatter", "(C22)"},
      {"scatter_map_size", SA, scatter("update_window_dims = [2, 3], inserted_window_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2", U, kAddF32, R),
       "stablehlo.scatter", "scatter_dims_to_operand_dims [1] must have 2 elements (the index vector size) (C19)"},
      {"scatter_map_unique", SA, scatter("update_window_dims = [2, 3], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0, 0], index_vector_dim = 2", U, kAddF32, R),
       "stablehlo.scatter", "(C20)"},
      {"scatter_map_range", SA, scatter("update_window_dims = [2, 3], inserted_window_dims = [0], scatter_dims_to_operand_dims = [1, 3], index_vector_dim = 2", U, kAddF32, R),
       "stablehlo.scatter", "(C21)"},
      {"scatter_body", SA, scatter(sdn, U, kAddF32Bad, R),
       "stablehlo.scatter", "update_computation has type (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>), expected 2 arguments and 1 results (C23)"},
      {"scatter_body_type", SA, scatter(sdn, U, kAddI32, R),
       "stablehlo.scatter", "is not promotable to update_computation argument type tensor<i32> (C23)"},
      {"scatter_result", SA, scatter(sdn, U, kAddF32, "tensor<3x4x3xf32>"),
       "stablehlo.scatter", "(C24)"},
      {"scatter_updates_element", "%a: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>, %u: tensor<2x3x2x2xf64>",
       scatter(sdn, "tensor<2x3x2x2xf64>", kAddF32, R), "stablehlo.scatter", "(C6)"},
      {"sort_dim", "%a: tensor<4xf32>", sort_pre + kLtF32 + " {dimension = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>",
       "stablehlo.sort", "dimension 1 is out of range [-1, 1) (C4)"},
      {"sort_result", "%a: tensor<4xf32>", sort_pre + kLtF32 + " {dimension = 0 : i64} : (tensor<4xf32>) -> tensor<4xf64>",
       "stablehlo.sort", "(C2)"},
      {"sort_comparator", "%a: tensor<4xf32>", sort_pre + kAddF32 + " {dimension = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>",
       "stablehlo.sort", "comparator has type (tensor<f32>, tensor<f32>) -> (tensor<f32>)"},
  };
}

TEST(VerifyIndexing, RejectsMalformedPrograms) { ExpectRejected(Cases(), 39); }

}  // namespace
}  // namespace kiln::compiler
