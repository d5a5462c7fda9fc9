// Tests of the IR verifier: one malformed program per violated constraint
// (error at the op's line:col with a precise message), valid programs of
// every family (dynamic dimensions included), and every chunk of the
// conformance suite verifying.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/parse/parser.h"
#include "compiler/verify/verifier.h"

namespace kiln::compiler {
namespace {

std::string Fmt(ir::Location l, const std::string& m) {
  return "t.mlir:" + std::to_string(l.line) + ":" + std::to_string(l.col) + ": error: " + m;
}

Status ParseAndVerify(const std::string& src) {
  auto m = ir::ParseModule(src, "t.mlir");
  if (!m.ok()) return Status(StatusCode::kInternal, "PARSE: " + m.status().message());
  return VerifyModule(*m.value(), Fmt);
}

// Reducer regions (generic form).
const std::string kAddF32 =
    "({\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n    %s = stablehlo.add %x, %y : tensor<f32>\n"
    "    stablehlo.return %s : tensor<f32>\n  })";
const std::string kAddI32 =
    "({\n  ^bb0(%x: tensor<i32>, %y: tensor<i32>):\n    %s = stablehlo.add %x, %y : tensor<i32>\n"
    "    stablehlo.return %s : tensor<i32>\n  })";
const std::string kAddF32Bad =  // returns two values
    "({\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n    %s = stablehlo.add %x, %y : tensor<f32>\n"
    "    stablehlo.return %s, %s : tensor<f32>, tensor<f32>\n  })";
const std::string kLtF32 =
    "({\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
    "    %s = stablehlo.compare LT, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
    "    stablehlo.return %s : tensor<i1>\n  })";
const std::string kGeF32 = kLtF32;

struct Case {
  const char* name;
  std::string args;  // @main's arguments
  std::string body;  // @main's ops; the failing op is the first line naming `op`
  const char* op;
  const char* msg;   // substring of the message
  std::string extra = "";  // more functions
};

std::string Program(const Case& c) {
  return "func.func @main(" + c.args + ") {\n" + c.body + "\n  func.return\n}\n" + c.extra;
}

// Line and column of the op's name: first line naming it (quoted, or pretty).
ir::Location Where(const std::string& src, const std::string& op) {
  std::istringstream in(src);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    size_t p = line.find("\"" + op + "\"");
    if (p == std::string::npos) {
      p = line.find(" " + op + " ");
      if (p == std::string::npos) p = line.find(" " + op + "(");
      if (p != std::string::npos) ++p;
    }
    if (p != std::string::npos) return {n, static_cast<int>(p) + 1};
  }
  return {};
}

#define T(x) "tensor<" x ">"
const std::string F23 = "%a: tensor<2x3xf32>";

std::vector<Case> Cases() {
  std::vector<Case> v = {
      // ---- elementwise
      {"add_shape", "%a: tensor<2xf32>, %b: tensor<3xf32>",
       "  %r = \"stablehlo.add\"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>", "stablehlo.add",
       "stablehlo.add: operand type tensor<3xf32> and result type tensor<2xf32> must have the same shape (C1)"},
      {"add_element", "%a: tensor<2xf32>, %b: tensor<2xf64>",
       "  %r = \"stablehlo.add\"(%a, %b) : (tensor<2xf32>, tensor<2xf64>) -> tensor<2xf32>", "stablehlo.add",
       "must have the same element type (C1)"},
      {"add_quant_mixed", "%a: tensor<2x!quant.uniform<i8:f32, 0.5:0>>, %b: tensor<2xf32>",
       "  %r = \"stablehlo.add\"(%a, %b) : (tensor<2x!quant.uniform<i8:f32, 0.5:0>>, tensor<2xf32>) -> "
       "tensor<2x!quant.uniform<i8:f32, 0.5:0>>", "stablehlo.add", "must be quantized when the result type"},
      {"subtract_bool", "%a: tensor<2xi1>", "  %r = stablehlo.subtract %a, %a : tensor<2xi1>", "stablehlo.subtract",
       "result type tensor<2xi1> must be a tensor of integer, floating-point, complex or quantized elements"},
      {"multiply_rank", "%a: tensor<2xf32>, %b: tensor<2x1xf32>",
       "  %r = \"stablehlo.multiply\"(%a, %b) : (tensor<2xf32>, tensor<2x1xf32>) -> tensor<2xf32>",
       "stablehlo.multiply", "must have the same shape (C1)"},
      {"divide_result", "%a: tensor<2xi32>",
       "  %r = \"stablehlo.divide\"(%a, %a) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi64>", "stablehlo.divide",
       "same element type (C1)"},
      {"and_float", "%a: tensor<2xf32>", "  %r = stablehlo.and %a, %a : tensor<2xf32>", "stablehlo.and",
       "must be a tensor of integer or boolean elements"},
      {"or_float", "%a: tensor<2xf32>", "  %r = stablehlo.or %a, %a : tensor<2xf32>", "stablehlo.or",
       "integer or boolean"},
      {"xor_types", "%a: tensor<2xi32>, %b: tensor<2xi16>",
       "  %r = \"stablehlo.xor\"(%a, %b) : (tensor<2xi32>, tensor<2xi16>) -> tensor<2xi32>", "stablehlo.xor",
       "same element type (C1)"},
      {"not_float", "%a: tensor<2xf32>", "  %r = stablehlo.not %a : tensor<2xf32>", "stablehlo.not",
       "integer or boolean"},
      {"popcnt_float", "%a: tensor<2xf32>", "  %r = stablehlo.popcnt %a : tensor<2xf32>", "stablehlo.popcnt",
       "must be a tensor of integer elements"},
      {"clz_float", "%a: tensor<2xf32>", "  %r = stablehlo.count_leading_zeros %a : tensor<2xf32>",
       "stablehlo.count_leading_zeros", "integer elements"},
      {"shift_left_float", "%a: tensor<2xf32>", "  %r = stablehlo.shift_left %a, %a : tensor<2xf32>",
       "stablehlo.shift_left", "integer elements"},
      {"shift_right_arith_shape", "%a: tensor<2xi32>, %b: tensor<4xi32>",
       "  %r = \"stablehlo.shift_right_arithmetic\"(%a, %b) : (tensor<2xi32>, tensor<4xi32>) -> tensor<2xi32>",
       "stablehlo.shift_right_arithmetic", "same shape (C1)"},
      {"shift_right_logical_float", "%a: tensor<2xf16>", "  %r = stablehlo.shift_right_logical %a, %a : tensor<2xf16>",
       "stablehlo.shift_right_logical", "integer elements"},
      {"sqrt_int", "%a: tensor<2xi32>", "  %r = stablehlo.sqrt %a : tensor<2xi32>", "stablehlo.sqrt",
       "floating-point, complex or quantized"},
      {"rsqrt_int", "%a: tensor<2xi32>", "  %r = stablehlo.rsqrt %a : tensor<2xi32>", "stablehlo.rsqrt",
       "floating-point"},
      {"exp_shape", "%a: tensor<2xf32>",
       "  %r = \"stablehlo.exponential\"(%a) : (tensor<2xf32>) -> tensor<3xf32>", "stablehlo.exponential",
       "same shape (C1)"},
      {"expm1_type", "%a: tensor<2xf32>",
       "  %r = \"stablehlo.exponential_minus_one\"(%a) : (tensor<2xf32>) -> tensor<2xf16>",
       "stablehlo.exponential_minus_one", "same element type (C1)"},
      {"log_int", "%a: tensor<2xi8>", "  %r = stablehlo.log %a : tensor<2xi8>", "stablehlo.log", "floating-point"},
      {"log1p_int", "%a: tensor<2xi8>", "  %r = stablehlo.log_plus_one %a : tensor<2xi8>", "stablehlo.log_plus_one",
       "floating-point"},
      {"logistic_int", "%a: tensor<2xi8>", "  %r = stablehlo.logistic %a : tensor<2xi8>", "stablehlo.logistic",
       "floating-point"},
      {"floor_complex", "%a: tensor<2xcomplex<f32>>", "  %r = stablehlo.floor %a : tensor<2xcomplex<f32>>",
       "stablehlo.floor", "floating-point or quantized"},
      {"ceil_int", "%a: tensor<2xi32>", "  %r = stablehlo.ceil %a : tensor<2xi32>", "stablehlo.ceil",
       "floating-point or quantized"},
      {"round_afz_int", "%a: tensor<2xi32>", "  %r = stablehlo.round_nearest_afz %a : tensor<2xi32>",
       "stablehlo.round_nearest_afz", "floating-point"},
      {"round_even_int", "%a: tensor<2xi32>", "  %r = stablehlo.round_nearest_even %a : tensor<2xi32>",
       "stablehlo.round_nearest_even", "floating-point"},
      {"sine_int", "%a: tensor<2xi32>", "  %r = stablehlo.sine %a : tensor<2xi32>", "stablehlo.sine",
       "floating-point"},
      {"cosine_shape", "%a: tensor<2xf32>", "  %r = \"stablehlo.cosine\"(%a) : (tensor<2xf32>) -> tensor<1xf32>",
       "stablehlo.cosine", "same shape"},
      {"tan_int", "%a: tensor<2xi32>", "  %r = stablehlo.tan %a : tensor<2xi32>", "stablehlo.tan", "floating-point"},
      {"tanh_type", "%a: tensor<2xf32>", "  %r = \"stablehlo.tanh\"(%a) : (tensor<2xf32>) -> tensor<2xbf16>",
       "stablehlo.tanh", "same element type"},
      {"cbrt_int", "%a: tensor<2xi32>", "  %r = stablehlo.cbrt %a : tensor<2xi32>", "stablehlo.cbrt",
       "floating-point"},
      {"sign_unsigned", "%a: tensor<2xui32>", "  %r = stablehlo.sign %a : tensor<2xui32>", "stablehlo.sign",
       "signed integer"},
      {"negate_bool", "%a: tensor<2xi1>", "  %r = stablehlo.negate %a : tensor<2xi1>", "stablehlo.negate",
       "integer, floating-point"},
      {"abs_unsigned", "%a: tensor<2xui8>", "  %r = \"stablehlo.abs\"(%a) : (tensor<2xui8>) -> tensor<2xui8>",
       "stablehlo.abs", "operand type tensor<2xui8> must be a tensor of signed integer"},
      {"abs_complex_result", "%a: tensor<2xcomplex<f32>>",
       "  %r = \"stablehlo.abs\"(%a) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>", "stablehlo.abs",
       "must be f32 for operand tensor<2xcomplex<f32>> (C2)"},
      {"abs_shape", "%a: tensor<2xf32>", "  %r = \"stablehlo.abs\"(%a) : (tensor<2xf32>) -> tensor<3xf32>",
       "stablehlo.abs", "same shape (C1)"},
      {"atan2_int", "%a: tensor<2xi32>", "  %r = stablehlo.atan2 %a, %a : tensor<2xi32>", "stablehlo.atan2",
       "floating-point"},
      {"power_bool", "%a: tensor<2xi1>", "  %r = stablehlo.power %a, %a : tensor<2xi1>", "stablehlo.power",
       "integer, floating-point"},
      {"remainder_shape", "%a: tensor<2xf32>, %b: tensor<1xf32>",
       "  %r = \"stablehlo.remainder\"(%a, %b) : (tensor<2xf32>, tensor<1xf32>) -> tensor<2xf32>",
       "stablehlo.remainder", "same shape (C1)"},
      {"maximum_type", "%a: tensor<2xf32>, %b: tensor<2xi32>",
       "  %r = \"stablehlo.maximum\"(%a, %b) : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>", "stablehlo.maximum",
       "same element type (C1)"},
      {"minimum_type", "%a: tensor<2xf32>",
       "  %r = \"stablehlo.minimum\"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi32>", "stablehlo.minimum",
       "same element type (C1)"},
      {"reduce_precision_bits", "%a: tensor<2xf32>",
       "  %r = \"stablehlo.reduce_precision\"(%a) {exponent_bits = 0 : i32, mantissa_bits = 2 : i32} : "
       "(tensor<2xf32>) -> tensor<2xf32>", "stablehlo.reduce_precision", "exponent_bits = 0 must be at least 1 (C2)"},
      {"reduce_precision_mantissa", "%a: tensor<2xf32>",
       "  %r = \"stablehlo.reduce_precision\"(%a) {exponent_bits = 5 : i32, mantissa_bits = -1 : i32} : "
       "(tensor<2xf32>) -> tensor<2xf32>", "stablehlo.reduce_precision", "mantissa_bits = -1 must be non-negative (C3)"},
      {"compare_element", "%a: tensor<2xf32>, %b: tensor<2xf64>",
       "  %r = stablehlo.compare LT, %a, %b : (tensor<2xf32>, tensor<2xf64>) -> tensor<2xi1>", "stablehlo.compare",
       "must have the same element type (C1)"},
      {"compare_shape", "%a: tensor<2xf32>, %b: tensor<3xf32>",
       "  %r = stablehlo.compare LT, %a, %b : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xi1>", "stablehlo.compare",
       "must have the same shape (C2)"},
      {"compare_result", "%a: tensor<2xf32>",
       "  %r = stablehlo.compare LT, %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>", "stablehlo.compare",
       "must be a tensor of i1"},
      {"compare_type", "%a: tensor<2xf32>",
       "  %r = stablehlo.compare LT, %a, %a, SIGNED : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>",
       "stablehlo.compare", "compare_type SIGNED does not fit operand type tensor<2xf32> (C3)"},
      {"compare_totalorder_int", "%a: tensor<2xi32>",
       "  %r = stablehlo.compare LT, %a, %a, TOTALORDER : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>",
       "stablehlo.compare", "(C3)"},
      {"select_pred_shape", "%p: tensor<3xi1>, %a: tensor<2xf32>",
       "  %r = \"stablehlo.select\"(%p, %a, %a) : (tensor<3xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>",
       "stablehlo.select", "must be rank 0 or have the shape of on_true tensor<2xf32> (C1)"},
      {"select_branch_types", "%p: tensor<i1>, %a: tensor<2xf32>, %b: tensor<2xf64>",
       "  %r = \"stablehlo.select\"(%p, %a, %b) : (tensor<i1>, tensor<2xf32>, tensor<2xf64>) -> tensor<2xf32>",
       "stablehlo.select", "must have the same type (C2)"},
      {"select_pred_type", "%p: tensor<i32>, %a: tensor<2xf32>",
       "  %r = \"stablehlo.select\"(%p, %a, %a) : (tensor<i32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>",
       "stablehlo.select", "must be a tensor of i1"},
      {"clamp_min_shape", "%m: tensor<3xf32>, %a: tensor<2xf32>",
       "  %r = \"stablehlo.clamp\"(%m, %a, %a) : (tensor<3xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>",
       "stablehlo.clamp", "min type tensor<3xf32> must be rank 0 or have the shape of operand tensor<2xf32> (C1)"},
      {"clamp_max_shape", "%m: tensor<3xf32>, %a: tensor<2xf32>",
       "  %r = \"stablehlo.clamp\"(%a, %a, %m) : (tensor<2xf32>, tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>",
       "stablehlo.clamp", "(C2)"},
      {"clamp_element", "%m: tensor<f64>, %a: tensor<2xf32>",
       "  %r = \"stablehlo.clamp\"(%m, %a, %m) : (tensor<f64>, tensor<2xf32>, tensor<f64>) -> tensor<2xf32>",
       "stablehlo.clamp", "(C3)"},
      {"clamp_result", "%a: tensor<2xf32>",
       "  %r = \"stablehlo.clamp\"(%a, %a, %a) : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>",
       "stablehlo.clamp", "(C4)"},
      {"complex_operands", "%a: tensor<2xf32>, %b: tensor<2xf64>",
       "  %r = \"stablehlo.complex\"(%a, %b) : (tensor<2xf32>, tensor<2xf64>) -> tensor<2xcomplex<f32>>",
       "stablehlo.complex", "must have the same type (C1)"},
      {"complex_result", "%a: tensor<2xf32>",
       "  %r = \"stablehlo.complex\"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xcomplex<f64>>",
       "stablehlo.complex", "must be a tensor of complex<f32> (C3)"},
      {"complex_shape", "%a: tensor<2xf32>",
       "  %r = \"stablehlo.complex\"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xcomplex<f32>>",
       "stablehlo.complex", "(C2)"},
      {"real_type", "%a: tensor<2xcomplex<f32>>",
       "  %r = \"stablehlo.real\"(%a) : (tensor<2xcomplex<f32>>) -> tensor<2xf64>", "stablehlo.real",
       "must have element type f32 (C2)"},
      {"imag_shape", "%a: tensor<2xcomplex<f32>>",
       "  %r = \"stablehlo.imag\"(%a) : (tensor<2xcomplex<f32>>) -> tensor<3xf32>", "stablehlo.imag", "(C1)"},
      {"is_finite_result", "%a: tensor<2xf32>",
       "  %r = \"stablehlo.is_finite\"(%a) : (tensor<2xf32>) -> tensor<2xf32>", "stablehlo.is_finite",
       "must be a tensor of i1"},
      {"is_finite_int", "%a: tensor<2xi32>",
       "  %r = \"stablehlo.is_finite\"(%a) : (tensor<2xi32>) -> tensor<2xi1>", "stablehlo.is_finite",
       "floating-point or quantized"},
      {"chlo_erf_shape", "%a: tensor<2xf32>", "  %r = \"chlo.erf\"(%a) : (tensor<2xf32>) -> tensor<3xf32>",
       "chlo.erf", "chlo.erf: operand type tensor<2xf32> and result type tensor<3xf32> must have the same shape"},
      {"chlo_is_inf_result", "%a: tensor<2xf32>", "  %r = \"chlo.is_inf\"(%a) : (tensor<2xf32>) -> tensor<2xf32>",
       "chlo.is_inf", "must be a tensor of i1"},
      {"chlo_zeta_broadcast", "%a: tensor<2xf32>, %b: tensor<3xf32>",
       "  %r = \"chlo.zeta\"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> tensor<3xf32>", "chlo.zeta",
       "do not broadcast to result type"},
      {"chlo_lgamma_type", "%a: tensor<2xf32>", "  %r = \"chlo.lgamma\"(%a) : (tensor<2xf32>) -> tensor<2xf64>",
       "chlo.lgamma", "same element type"},
      {"chlo_mulhi_float", "%a: tensor<2xf32>",
       "  %r = \"chlo.mulhi\"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>", "chlo.mulhi",
       "integer elements"},
      // ---- shape ops
      {"transpose_perm", F23,
       "  %r = \"stablehlo.transpose\"(%a) {permutation = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>",
       "stablehlo.transpose", "stablehlo.transpose: permutation [0, 0] is not a permutation of [0, 2) (C2)"},
      {"transpose_shape", F23,
       "  %r = \"stablehlo.transpose\"(%a) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>",
       "stablehlo.transpose", "result type tensor<2x3xf32> does not match the inferred shape [3, 2] (C3)"},
      {"transpose_element", F23,
       "  %r = \"stablehlo.transpose\"(%a) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf64>",
       "stablehlo.transpose", "(C1)"},
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
      {"get_dimension_size_dim", F23,
       "  %r = \"stablehlo.get_dimension_size\"(%a) {dimension = 2 : i64} : (tensor<2x3xf32>) -> tensor<i32>",
       "stablehlo.get_dimension_size", "dimension 2 is out of range [0, 2) of operand type tensor<2x3xf32> (C1)"},
  };
  // gather: operand 3x4x2, indices 2x3x2, result 2x3x2x2 (the spec example, simplified)
  auto gather = [](std::string dn, std::string sizes, std::string result) {
    return "  %r = \"stablehlo.gather\"(%a, %i) {dimension_numbers = #stablehlo.gather<" + dn +
           ">, slice_sizes = array<i64: " + sizes + ">} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>) -> " + result;
  };
  const std::string GA = "%a: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>";
  const std::string good_dn = "offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2";
  std::vector<Case> g = {
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
  };
  v.insert(v.end(), g.begin(), g.end());
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
  std::vector<Case> s = {
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
  };
  v.insert(v.end(), s.begin(), s.end());
  const std::string sort_pre = "  %r = \"stablehlo.sort\"(%a) ";
  std::vector<Case> more = {
      {"sort_dim", "%a: tensor<4xf32>", sort_pre + kLtF32 + " {dimension = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>",
       "stablehlo.sort", "dimension 1 is out of range [-1, 1) (C4)"},
      {"sort_result", "%a: tensor<4xf32>", sort_pre + kLtF32 + " {dimension = 0 : i64} : (tensor<4xf32>) -> tensor<4xf64>",
       "stablehlo.sort", "(C2)"},
      {"sort_comparator", "%a: tensor<4xf32>", sort_pre + kAddF32 + " {dimension = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>",
       "stablehlo.sort", "comparator has type (tensor<f32>, tensor<f32>) -> (tensor<f32>)"},
      // ---- contractions
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
  };
  v.insert(v.end(), more.begin(), more.end());
  // convolution: lhs 1x4x4x1, rhs 3x3x1x1 -> 1x2x2x1 (b01f / 01io / b01f)
  auto conv = [](std::string window, std::string attrs, std::string lhs, std::string rhs, std::string res,
                 std::string dn = "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]") {
    return "  %r = stablehlo.convolution(%a, %b) dim_numbers = " + dn + ", window = {" + window + "} {" + attrs +
           "} : (" + lhs + ", " + rhs + ") -> " + res;
  };
  const std::string L = "tensor<1x4x4x1xf32>", K = "tensor<3x3x1x1xf32>", O = "tensor<1x2x2x1xf32>";
  const std::string CA = "%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>";
  const std::string fg = "feature_group_count = 1 : i64, batch_group_count = 1 : i64";
  std::vector<Case> c = {
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
  v.insert(v.end(), c.begin(), c.end());
  // ---- reductions and control flow
  const std::string red = "  %r = \"stablehlo.reduce\"(%a, %c) ";
  const std::string rw = "  %r = \"stablehlo.reduce_window\"(%a, %c) ";
  const std::string RA = "%a: tensor<2x3xf32>, %c: tensor<f32>";
  std::vector<Case> r = {
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
      {"while_cond", "%a: tensor<i64>",
       "  %r = stablehlo.while(%x = %a) : tensor<i64>\n   cond {\n    stablehlo.return %x : tensor<i64>\n  } do {\n"
       "    stablehlo.return %x : tensor<i64>\n  }",
       "stablehlo.while", "cond has type (tensor<i64>) -> (tensor<i64>), expected (tensor<i64>) -> tensor<i1> (C1)"},
      {"while_body", "%a: tensor<i64>, %p: tensor<i1>",
       "  %r = stablehlo.while(%x = %a) : tensor<i64>\n   cond {\n    stablehlo.return %p : tensor<i1>\n  } do {\n"
       "    stablehlo.return %p : tensor<i1>\n  }",
       "stablehlo.while", "body has type (tensor<i64>) -> (tensor<i1>), expected (tensor<i64>) -> (tensor<i64>) (C2)"},
      {"if_branches", "%p: tensor<i1>, %a: tensor<f32>, %b: tensor<i32>",
       "  %r = \"stablehlo.if\"(%p) ({\n    stablehlo.return %a : tensor<f32>\n  }, {\n"
       "    stablehlo.return %b : tensor<i32>\n  }) : (tensor<i1>) -> tensor<f32>",
       "stablehlo.if", "false_branch returns (tensor<i32>), but the first branch returns (tensor<f32>) (C2)"},
      {"if_results", "%p: tensor<i1>, %a: tensor<f32>",
       "  %r = \"stablehlo.if\"(%p) ({\n    stablehlo.return %a : tensor<f32>\n  }, {\n"
       "    stablehlo.return %a : tensor<f32>\n  }) : (tensor<i1>) -> tensor<i32>",
       "stablehlo.if", "(C3)"},
      {"if_pred", "%p: tensor<i32>, %a: tensor<f32>",
       "  %r = \"stablehlo.if\"(%p) ({\n    stablehlo.return %a : tensor<f32>\n  }, {\n"
       "    stablehlo.return %a : tensor<f32>\n  }) : (tensor<i32>) -> tensor<f32>",
       "stablehlo.if", "pred must be one tensor<i1>"},
      {"case_branches", "%i: tensor<i32>, %a: tensor<f32>, %b: tensor<2xf32>",
       "  %r = \"stablehlo.case\"(%i) ({\n    stablehlo.return %a : tensor<f32>\n  }, {\n"
       "    stablehlo.return %b : tensor<2xf32>\n  }) : (tensor<i32>) -> tensor<f32>",
       "stablehlo.case", "branch 1 returns (tensor<2xf32>), but the first branch returns (tensor<f32>) (C3)"},
      {"case_results", "%i: tensor<i32>, %a: tensor<f32>",
       "  %r = \"stablehlo.case\"(%i) ({\n    stablehlo.return %a : tensor<f32>\n  }) : (tensor<i32>) -> tensor<f64>",
       "stablehlo.case", "(C4)"},
      // ---- misc
      {"convert_shape", "%a: tensor<2xf32>", "  %r = \"stablehlo.convert\"(%a) : (tensor<2xf32>) -> tensor<3xi32>",
       "stablehlo.convert", "operand type tensor<2xf32> and result type tensor<3xi32> must have the same shape (C1)"},
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
      {"get_tuple_element_index", "%t: tuple<tensor<f32>, tensor<i32>>",
       "  %r = \"stablehlo.get_tuple_element\"(%t) {index = 2 : i32} : (tuple<tensor<f32>, tensor<i32>>) -> tensor<f32>",
       "stablehlo.get_tuple_element", "index 2 is out of range [0, 2) (C1)"},
      {"get_tuple_element_type", "%t: tuple<tensor<f32>, tensor<i32>>",
       "  %r = \"stablehlo.get_tuple_element\"(%t) {index = 1 : i32} : (tuple<tensor<f32>, tensor<i32>>) -> tensor<f32>",
       "stablehlo.get_tuple_element", "(C2)"},
      {"tuple_type", "%a: tensor<f32>",
       "  %r = \"stablehlo.tuple\"(%a) : (tensor<f32>) -> tuple<tensor<i32>>", "stablehlo.tuple", "(C1)"},
      {"all_gather_dim", "%a: tensor<2x2xf32>",
       "  %r = \"stablehlo.all_gather\"(%a) {all_gather_dim = 2 : i64, replica_groups = dense<[[0, 1]]> : "
       "tensor<1x2xi64>} : (tensor<2x2xf32>) -> tensor<2x4xf32>", "stablehlo.all_gather", "(C1)"},
      {"all_gather_groups", "%a: tensor<2x2xf32>",
       "  %r = \"stablehlo.all_gather\"(%a) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 0]]> : "
       "tensor<1x2xi64>} : (tensor<2x2xf32>) -> tensor<2x4xf32>", "stablehlo.all_gather",
       "replica_groups repeats id 0 (C2)"},
      {"all_gather_result", "%a: tensor<2x2xf32>",
       "  %r = \"stablehlo.all_gather\"(%a) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : "
       "tensor<1x2xi64>} : (tensor<2x2xf32>) -> tensor<2x2xf32>", "stablehlo.all_gather", "inferred shape [2, 4] (C6)"},
      {"all_to_all_split", "%a: tensor<3x2xf32>",
       "  %r = \"stablehlo.all_to_all\"(%a) {split_dimension = 0 : i64, concat_dimension = 1 : i64, split_count = 2 : "
       "i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<3x2xf32>) -> tensor<1x4xf32>",
       "stablehlo.all_to_all", "split dimension size 3 is not divisible by split_count 2 (C2)"},
      {"reduce_scatter_dim", "%a: tensor<4xf32>",
       "  %r = \"stablehlo.reduce_scatter\"(%a) " + kAddF32 +
           " {scatter_dimension = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> "
           "tensor<2xf32>",
       "stablehlo.reduce_scatter", "(C2)"},
      {"all_reduce_body", "%a: tensor<4xf32>",
       "  %r = \"stablehlo.all_reduce\"(%a) " + kAddI32 +
           " {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>",
       "stablehlo.all_reduce", "(C5)"},
      {"collective_permute_pairs", "%a: tensor<4xf32>",
       "  %r = \"stablehlo.collective_permute\"(%a) {source_target_pairs = dense<[[0, 1], [0, 2]]> : tensor<2x2xi64>} :"
       " (tensor<4xf32>) -> tensor<4xf32>", "stablehlo.collective_permute", "repeats source 0 (C2)"},
      {"call_arity", "%a: tensor<f32>", "  %r = func.call @f(%a, %a) : (tensor<f32>, tensor<f32>) -> tensor<f32>",
       "func.call", "func.call: passes 2 operands, but @f takes 1",
       "func.func private @f(%x: tensor<f32>) -> tensor<f32> {\n  func.return %x : tensor<f32>\n}\n"},
      {"call_types", "%a: tensor<f32>", "  %r = func.call @f(%a) : (tensor<f32>) -> tensor<i32>", "func.call",
       "result 0 has type tensor<i32>, but @f returns tensor<f32>",
       "func.func private @f(%x: tensor<f32>) -> tensor<f32> {\n  func.return %x : tensor<f32>\n}\n"},
      {"call_undefined", "%a: tensor<f32>", "  %r = func.call @g(%a) : (tensor<f32>) -> tensor<f32>", "func.call",
       "calls undefined function @g"},
      {"composite_types", "%a: tensor<f32>",
       "  %r = \"stablehlo.composite\"(%a) {name = \"my.op\", decomposition = @f} : (tensor<f32>) -> tensor<i32>",
       "stablehlo.composite", "(C4)",
       "func.func private @f(%x: tensor<f32>) -> tensor<f32> {\n  func.return %x : tensor<f32>\n}\n"},
      {"composite_name", "%a: tensor<f32>",
       "  %r = \"stablehlo.composite\"(%a) {name = \"myop\", decomposition = @f} : (tensor<f32>) -> tensor<f32>",
       "stablehlo.composite", "(C1)",
       "func.func private @f(%x: tensor<f32>) -> tensor<f32> {\n  func.return %x : tensor<f32>\n}\n"},
      {"constant_type", "", "  %r = \"stablehlo.constant\"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>",
       "stablehlo.constant", "(C1)"},
      {"optimization_barrier_types", "%a: tensor<f32>",
       "  %r = \"stablehlo.optimization_barrier\"(%a) : (tensor<f32>) -> tensor<i32>", "stablehlo.optimization_barrier",
       "(C1)"},
  };
  v.insert(v.end(), r.begin(), r.end());
  return v;
}

TEST(Verifier, RejectsMalformedPrograms) {
  auto cases = Cases();
  EXPECT_GE(cases.size(), 100u);
  for (const Case& c : cases) {
    std::string src = Program(c);
    Status s = ParseAndVerify(src);
    if (s.ok()) {
      ADD_FAILURE() << c.name << ": expected an error for\n" << src;
      continue;
    }
    if (s.message().rfind("PARSE", 0) == 0) {
      ADD_FAILURE() << c.name << ": " << s.message() << "\n" << src;
      continue;
    }
    ir::Location at = Where(src, c.op);
    std::string prefix = "t.mlir:" + std::to_string(at.line) + ":" + std::to_string(at.col) + ": error: ";
    EXPECT_EQ(s.message().rfind(prefix, 0), 0u) << c.name << ": want prefix " << prefix << "\ngot " << s.message();
    EXPECT_NE(s.message().find(c.msg), std::string::npos) << c.name << ": want '" << c.msg << "'\ngot " << s.message();
  }
}

TEST(Verifier, ReturnAgainstSignature) {
  Status s = ParseAndVerify("func.func @main(%a: tensor<2xf32>) -> tensor<2xi32> {\n  func.return %a : tensor<2xf32>\n}\n");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("t.mlir:2:3: error: func.return operand 0 has type tensor<2xf32>, but the function "
                             "returns tensor<2xi32>"),
            std::string::npos)
      << s.message();
}

// Valid programs: every family, with dynamic dimensions where the spec allows them.
TEST(Verifier, AcceptsValidPrograms) {
  const char* programs[] = {
      "func.func @main(%a: tensor<?x3xf32>, %b: tensor<2x?xf32>) -> tensor<2x3xf32> {\n"
      "  %r = \"stablehlo.add\"(%a, %b) : (tensor<?x3xf32>, tensor<2x?xf32>) -> tensor<2x3xf32>\n"
      "  func.return %r : tensor<2x3xf32>\n}\n",
      "func.func @main(%a: tensor<?x3xf32>) -> tensor<3x?xf32> {\n"
      "  %r = \"stablehlo.transpose\"(%a) {permutation = array<i64: 1, 0>} : (tensor<?x3xf32>) -> tensor<3x?xf32>\n"
      "  func.return %r : tensor<3x?xf32>\n}\n",
      "func.func @main(%a: tensor<1x?xf32>) -> tensor<4x2x5xf32> {\n"
      "  %r = \"stablehlo.broadcast_in_dim\"(%a) {broadcast_dimensions = array<i64: 1, 2>} : (tensor<1x?xf32>) -> "
      "tensor<4x2x5xf32>\n  func.return %r : tensor<4x2x5xf32>\n}\n",
      "func.func @main(%a: tensor<3x4xf32>, %b: tensor<4x?xf32>) -> tensor<3x?xf32> {\n"
      "  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<3x4xf32>, tensor<4x?xf32>) -> "
      "tensor<3x?xf32>\n  func.return %r : tensor<3x?xf32>\n}\n",
      "func.func @main(%a: tensor<?x3xf32>, %c: tensor<f32>) -> tensor<?xf32> {\n"
      "  %r = \"stablehlo.reduce\"(%a, %c) ({\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
      "    %s = stablehlo.add %x, %y : tensor<f32>\n    stablehlo.return %s : tensor<f32>\n"
      "  }) {dimensions = array<i64: 1>} : (tensor<?x3xf32>, tensor<f32>) -> tensor<?xf32>\n"
      "  func.return %r : tensor<?xf32>\n}\n",
      "func.func @main(%a: tensor<2xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {\n"
      "  %r = \"stablehlo.concatenate\"(%a, %b) {dimension = 0 : i64} : (tensor<2xf32>, tensor<?xf32>) -> "
      "tensor<?xf32>\n  func.return %r : tensor<?xf32>\n}\n",
      "func.func @main(%a: tensor<2x3xi8>) -> tensor<2x3xi1> {\n"
      "  %r = stablehlo.compare LT, %a, %a, SIGNED : (tensor<2x3xi8>, tensor<2x3xi8>) -> tensor<2x3xi1>\n"
      "  func.return %r : tensor<2x3xi1>\n}\n",
      "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  %r = func.call @f(%a) : (tensor<2xf32>) -> tensor<2xf32>\n  func.return %r : tensor<2xf32>\n}\n"
      "func.func private @f(%x: tensor<2xf32>) -> tensor<2xf32> {\n  func.return %x : tensor<2xf32>\n}\n",
      "func.func @main(%a: tensor<4xf32>) -> tensor<2xf32> {\n"
      "  %r = \"stablehlo.slice\"(%a) {start_indices = array<i64: 1>, limit_indices = array<i64: 4>, strides = "
      "array<i64: 2>} : (tensor<4xf32>) -> tensor<2xf32>\n  func.return %r : tensor<2xf32>\n}\n",
      "func.func @main(%a: tensor<2xf32>) -> tensor<2x4xi8> {\n"
      "  %r = \"stablehlo.bitcast_convert\"(%a) : (tensor<2xf32>) -> tensor<2x4xi8>\n"
      "  func.return %r : tensor<2x4xi8>\n}\n",
      "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  %r = \"check.something\"(%a) : (tensor<2xf32>) -> tensor<2xf32>\n  func.return %r : tensor<2xf32>\n}\n",
  };
  for (const char* p : programs) {
    Status s = ParseAndVerify(p);
    EXPECT_TRUE(s.ok()) << s.message() << "\n" << p;
  }
}

// Every chunk of the conformance suite (collectives' chunks included, which
// the runner defers) parses and verifies.
TEST(Verifier, AcceptsEveryConformanceChunk) {
  namespace fs = std::filesystem;
  fs::path root = fs::path(KILN_SHARED_DIR) / "conformance" / "stablehlo-interpret";
  if (!fs::exists(root)) GTEST_SKIP() << "no conformance suite at " << root;
  int verified = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.path().extension() != ".mlir") continue;
    std::ifstream in(e.path());
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const auto& chunk : ir::SplitChunks(text)) {
      auto m = ir::ParseModule(chunk.text, e.path().string(), chunk.first_line);
      if (!m.ok()) continue;  // the parser's tests own parse failures
      Status s = VerifyModule(*m.value(), [&](ir::Location l, const std::string& msg) {
        return e.path().string() + ":" + std::to_string(l.line) + ":" + std::to_string(l.col) + ": " + msg;
      });
      EXPECT_TRUE(s.ok()) << s.message();
      ++verified;
    }
  }
  EXPECT_GT(verified, 400);
}

}  // namespace
}  // namespace kiln::compiler
