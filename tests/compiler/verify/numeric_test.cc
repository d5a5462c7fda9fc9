// Verifier tests for numeric ops: fft, rng, rng_bit_generator, batch_norm_*
// and uniform_quantize/dequantize: one malformed program per violated
// constraint, each rejected at the op's line:col with a precise message
// (verify_test_util.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/compiler/verify/verify_test_util.h"

namespace kiln::compiler {
namespace {

std::vector<Case> Cases() {
  return {
      {"fft_length", "%a: tensor<4xcomplex<f32>>",
       "  %r = stablehlo.fft %a, type = FFT, length = [4, 4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>",
       "stablehlo.fft", "is longer than the operand rank 1 (C1)"},
      {"fft_types", "%a: tensor<4xf32>",
       "  %r = stablehlo.fft %a, type = FFT, length = [4] : (tensor<4xf32>) -> tensor<4xcomplex<f32>>", "stablehlo.fft",
       "FFT needs the same complex type for operand and result (tensor<4xf32> -> tensor<4xcomplex<f32>>) (C2)"},
      {"fft_rfft_result", "%a: tensor<8xf32>",
       "  %r = stablehlo.fft %a, type = RFFT, length = [8] : (tensor<8xf32>) -> tensor<8xcomplex<f32>>",
       "stablehlo.fft", "inferred shape [5] (C5)"},
      {"fft_rfft_length", "%a: tensor<8xf32>",
       "  %r = stablehlo.fft %a, type = RFFT, length = [4] : (tensor<8xf32>) -> tensor<5xcomplex<f32>>",
       "stablehlo.fft", "(C4)"},
      {"rng_types", "%a: tensor<f32>, %b: tensor<f64>, %s: tensor<1xi64>",
       "  %r = stablehlo.rng %a, %b, %s, distribution = UNIFORM : (tensor<f32>, tensor<f64>, tensor<1xi64>) -> "
       "tensor<2xf32>", "stablehlo.rng", "(C1)"},
      {"rng_normal_int", "%a: tensor<i32>, %s: tensor<1xi64>",
       "  %r = stablehlo.rng %a, %a, %s, distribution = NORMAL : (tensor<i32>, tensor<i32>, tensor<1xi64>) -> "
       "tensor<2xi32>", "stablehlo.rng", "NORMAL distribution needs floating-point a, got tensor<i32> (C2)"},
      {"rng_bit_generator_state", "%s: tensor<2xui64>",
       "  %o, %r = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<3xui64>, "
       "tensor<4xui32>)", "stablehlo.rng_bit_generator", "(C1)"},
      {"rng_bit_generator_size", "%s: tensor<3xui64>",
       "  %o, %r = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<3xui64>) -> (tensor<3xui64>, "
       "tensor<4xui32>)", "stablehlo.rng_bit_generator", "THREE_FRY needs an initial_state of 2 elements"},
      {"batch_norm_index", "%x: tensor<2x3xf32>, %s: tensor<3xf32>",
       "  %r = \"stablehlo.batch_norm_inference\"(%x, %s, %s, %s, %s) {epsilon = 1.0e-5 : f32, feature_index = 2 : i64}"
       " : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>",
       "stablehlo.batch_norm_inference", "feature_index 2 is out of range [0, 2) (C1)"},
      {"batch_norm_scale", "%x: tensor<2x3xf32>, %s: tensor<2xf32>",
       "  %r = \"stablehlo.batch_norm_inference\"(%x, %s, %s, %s, %s) {epsilon = 1.0e-5 : f32, feature_index = 1 : i64}"
       " : (tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x3xf32>",
       "stablehlo.batch_norm_inference", "must be 1-D of size 3 (the operand's feature dimension) (C3)"},
      {"batch_norm_training_element", "%x: tensor<2x3xf32>, %s: tensor<3xf64>",
       "  %r:3 = \"stablehlo.batch_norm_training\"(%x, %s, %s) {epsilon = 1.0e-5 : f32, feature_index = 1 : i64}"
       " : (tensor<2x3xf32>, tensor<3xf64>, tensor<3xf64>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)",
       "stablehlo.batch_norm_training", "(C2)"},
      {"uniform_quantize_shape", "%a: tensor<2xf32>",
       "  %r = stablehlo.uniform_quantize %a : (tensor<2xf32>) -> tensor<3x!quant.uniform<i8:f32, 0.5:0>>",
       "stablehlo.uniform_quantize", "(C1)"},
      {"uniform_dequantize_type", "%a: tensor<2x!quant.uniform<i8:f32, 0.5:0>>",
       "  %r = stablehlo.uniform_dequantize %a : (tensor<2x!quant.uniform<i8:f32, 0.5:0>>) -> tensor<2xf64>",
       "stablehlo.uniform_dequantize", "must be the operand's expressed type (C2)"},
  };
}

TEST(VerifyNumeric, RejectsMalformedPrograms) { ExpectRejected(Cases(), 13); }

}  // namespace
}  // namespace kiln::compiler
