// Tests of the input language's op set (compiler/op_names.cc): every op of
// the StableHLO spec, CHLO and the conformance suite's test dialects is
// known; an op outside it is refused as unknown, while a known op Kiln has no
// kernel for stays "not supported by the cpu target yet".
#include <gtest/gtest.h>

#include <string>

#include "compiler/compile.h"
#include "compiler/op_names.h"

namespace kiln::compiler {
namespace {

std::string CompileError(const std::string& src) {
  CompileOptions options;
  options.target = "cpu";
  auto bytes = Compile(src, "t.mlir", options, nullptr);
  EXPECT_FALSE(bytes.ok()) << "compiled:\n" << src;
  return bytes.ok() ? "" : bytes.status().message();
}

// The spec's op headings (../shared/reference/stablehlo-spec.md, "Ops").
TEST(OpNames, EverySpecOpIsKnown) {
  const char* spec_ops[] = {
      "abs", "add", "after_all", "all_gather", "all_reduce", "all_to_all", "and", "async_done", "async_start",
      "atan2", "batch_norm_grad", "batch_norm_inference", "batch_norm_training", "bitcast_convert",
      "broadcast_in_dim", "case", "cbrt", "ceil", "cholesky", "clamp", "collective_broadcast",
      "collective_permute", "collective_reduce", "compare", "complex", "composite", "concatenate", "constant",
      "convert", "convolution", "cosine", "count_leading_zeros", "custom_call", "divide", "dot_general",
      "dynamic_broadcast_in_dim", "dynamic_conv", "dynamic_gather", "dynamic_iota", "dynamic_pad",
      "dynamic_reshape", "dynamic_slice", "dynamic_update_slice", "exponential", "exponential_minus_one", "fft",
      "floor", "gather", "get_dimension_size", "get_tuple_element", "if", "imag", "infeed", "iota", "is_finite",
      "log", "log_plus_one", "logistic", "map", "maximum", "minimum", "multiply", "negate", "not",
      "optimization_barrier", "or", "outfeed", "pad", "partition_id", "popcnt", "power", "real", "recv",
      "reduce", "reduce_precision", "reduce_scatter", "reduce_window", "remainder", "replica_id", "reshape",
      "reverse", "rng", "rng_bit_generator", "round_nearest_afz", "round_nearest_even", "rsqrt", "scatter",
      "select", "select_and_scatter", "send", "shift_left", "shift_right_arithmetic", "shift_right_logical",
      "sign", "sine", "slice", "sort", "sqrt", "subtract", "tan", "tanh", "transpose", "triangular_solve",
      "tuple", "uniform_dequantize", "uniform_quantize", "while", "xor", "return"};
  for (const char* op : spec_ops) EXPECT_TRUE(op_names::IsKnownOp(std::string("stablehlo.") + op)) << op;
  for (const char* op : {"chlo.erf", "chlo.top_k", "chlo.broadcast_add", "chlo.broadcast_zeta", "chlo.constant_like",
                         "stablehlo.broadcast", "stablehlo.dot", "stablehlo.einsum", "func.call", "func.return",
                         "check.expect_eq_const", "interpreter.run_parallel"})
    EXPECT_TRUE(op_names::IsKnownOp(op)) << op;
  for (const char* op : {"stablehlo.frobnicate", "chlo.broadcast_frobnicate", "chlo.frobnicate", "check.frobnicate",
                         "kiln.elementwise", "kiln.copy", "arith.addf", "frobnicate"})
    EXPECT_FALSE(op_names::IsKnownOp(op)) << op;
}

TEST(OpNames, UnknownOpIsReportedAsUnknownInBothForms) {
  for (const char* op : {"stablehlo.frobnicate %a : tensor<3xf32>",
                         "\"stablehlo.frobnicate\"(%a) : (tensor<3xf32>) -> tensor<3xf32>"}) {
    std::string m = CompileError(std::string("func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {\n  %0 = ") + op +
                                 "\n  return %0 : tensor<3xf32>\n}\n");
    EXPECT_NE(m.find("t.mlir:2:8: error: unknown operation 'stablehlo.frobnicate'\n"), std::string::npos) << m;
    EXPECT_EQ(m.find("not supported"), std::string::npos) << m;
  }
}

// A pretty form the parser cannot read is still reported by the op's name.
TEST(OpNames, UnknownOpOfAnotherDialectNamesTheDialectsKilnReads) {
  std::string m = CompileError(
      "func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {\n  %0 = math.fma %a, %a, %a fastmath<fast> : "
      "tensor<3xf32>\n  return %0 : tensor<3xf32>\n}\n");
  EXPECT_NE(m.find("t.mlir:2:8: error: unknown operation 'math.fma' (Kiln reads StableHLO programs: the "
                   "stablehlo, chlo and func dialects)"),
            std::string::npos)
      << m;
}

// A known op without a kernel keeps its own message.
TEST(OpNames, KnownOpWithoutKernelIsNotSupportedYet) {
  std::string m = CompileError(
      "func.func @main(%a: tensor<?xf32>, %n: tensor<i32>) -> tensor<4xf32> {\n"
      "  %0 = \"stablehlo.set_dimension_size\"(%a, %n) {dimension = 0 : i64} : (tensor<?xf32>, tensor<i32>) -> "
      "tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n");
  EXPECT_NE(m.find("stablehlo.set_dimension_size (tensor<4xf32>) is not supported by the cpu target yet"),
            std::string::npos)
      << m;
}

}  // namespace
}  // namespace kiln::compiler
