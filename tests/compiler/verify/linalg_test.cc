// Verifier tests for linear algebra: cholesky and triangular_solve: one
// malformed program per violated constraint, each rejected at the op's
// line:col with a precise message (verify_test_util.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/compiler/verify/verify_test_util.h"

namespace kiln::compiler {
namespace {

std::vector<Case> Cases() {
  return {
      {"cholesky_rank", "%a: tensor<3xf32>",
       "  %r = \"stablehlo.cholesky\"(%a) {lower = true} : (tensor<3xf32>) -> tensor<3xf32>", "stablehlo.cholesky",
       "must have rank at least 2 (C2)"},
      {"cholesky_square", "%a: tensor<2x3xf32>",
       "  %r = \"stablehlo.cholesky\"(%a) {lower = true} : (tensor<2x3xf32>) -> tensor<2x3xf32>", "stablehlo.cholesky",
       "(C3)"},
      {"triangular_solve_rank", "%a: tensor<3x3xf32>, %b: tensor<3xf32>",
       "  %r = \"stablehlo.triangular_solve\"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, "
       "transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<3x3xf32>, tensor<3xf32>) -> tensor<3xf32>",
       "stablehlo.triangular_solve", "(C2)"},
      {"triangular_solve_shape", "%a: tensor<3x3xf32>, %b: tensor<4x2xf32>",
       "  %r = \"stablehlo.triangular_solve\"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, "
       "transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<3x3xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>",
       "stablehlo.triangular_solve", "(C3)"},
  };
}

TEST(VerifyLinalg, RejectsMalformedPrograms) { ExpectRejected(Cases(), 4); }

}  // namespace
}  // namespace kiln::compiler
