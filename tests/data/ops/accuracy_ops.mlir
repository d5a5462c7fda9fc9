// Accuracy that exporters check (issue 17): sort moves values bit for bit
// (NaN sign and payload, signalling NaNs, -0 kept), chlo.cosh/sinh stay
// finite where exp(|x|) alone would overflow the element type, and the
// optional window attributes take the spec's defaults when absent.
// Inputs and results of the sorts are bit patterns (bitcast_convert from and
// to integers), so a kernel that canonicalizes or quiets a NaN fails.

// -----

func.func @sort_f32_nan_bits() {
  // +NaN p1, 1.0, -NaN, -0, +NaN, -NaN p5, -inf, +0, +sNaN p1
  %i = stablehlo.constant dense<[2143289345, 1065353216, -4194304, -2147483648, 2143289344, -4194299, -8388608, 0, 2139095041]> : tensor<9xi32>
  %x = stablehlo.bitcast_convert %i : (tensor<9xi32>) -> tensor<9xf32>
  %s = "stablehlo.sort"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<9xf32>) -> tensor<9xf32>
  %r = stablehlo.bitcast_convert %s : (tensor<9xf32>) -> tensor<9xi32>
  check.expect_eq_const %r, dense<[-4194299, -4194304, -8388608, -2147483648, 0, 1065353216, 2139095041, 2143289344, 2143289345]> : tensor<9xi32>
  func.return
}

// -----

func.func @sort_f16_nan_bits() {
  // +NaN p1, 1.0, -NaN, -0, -NaN p5, -inf, +sNaN p1, +0
  %i = stablehlo.constant dense<[32257, 15360, -512, -32768, -507, -1024, 31745, 0]> : tensor<8xi16>
  %x = stablehlo.bitcast_convert %i : (tensor<8xi16>) -> tensor<8xf16>
  %s = "stablehlo.sort"(%x) ({
  ^bb0(%a: tensor<f16>, %b: tensor<f16>):
    %c = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f16>, tensor<f16>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<8xf16>) -> tensor<8xf16>
  %r = stablehlo.bitcast_convert %s : (tensor<8xf16>) -> tensor<8xi16>
  check.expect_eq_const %r, dense<[-507, -512, -1024, -32768, 0, 15360, 31745, 32257]> : tensor<8xi16>
  func.return
}

// -----

func.func @sort_bf16_nan_bits() {
  // +NaN p1, 1.0, -NaN, -0, -NaN p5, -inf, +sNaN p1, +0
  %i = stablehlo.constant dense<[32705, 16256, -64, -32768, -59, -128, 32641, 0]> : tensor<8xi16>
  %x = stablehlo.bitcast_convert %i : (tensor<8xi16>) -> tensor<8xbf16>
  %s = "stablehlo.sort"(%x) ({
  ^bb0(%a: tensor<bf16>, %b: tensor<bf16>):
    %c = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<bf16>, tensor<bf16>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<8xbf16>) -> tensor<8xbf16>
  %r = stablehlo.bitcast_convert %s : (tensor<8xbf16>) -> tensor<8xi16>
  check.expect_eq_const %r, dense<[-59, -64, -128, -32768, 0, 16256, 32641, 32705]> : tensor<8xi16>
  func.return
}

// -----

func.func @sort_f64_nan_bits() {
  // +NaN p1, 1.0, -NaN, -denorm_min, -NaN p5, -inf, +sNaN p1, +0
  %i = stablehlo.constant dense<[9221120237041090561, 4607182418800017408, -2251799813685248, -9223372036854775807, -2251799813685243, -4503599627370496, 9218868437227405313, 0]> : tensor<8xi64>
  %x = stablehlo.bitcast_convert %i : (tensor<8xi64>) -> tensor<8xf64>
  %s = "stablehlo.sort"(%x) ({
  ^bb0(%a: tensor<f64>, %b: tensor<f64>):
    %c = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f64>, tensor<f64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<8xf64>) -> tensor<8xf64>
  %r = stablehlo.bitcast_convert %s : (tensor<8xf64>) -> tensor<8xi64>
  check.expect_eq_const %r, dense<[-2251799813685243, -2251799813685248, -4503599627370496, -9223372036854775807, 0, 4607182418800017408, 9218868437227405313, 9221120237041090561]> : tensor<8xi64>
  func.return
}

// -----

func.func @sort_keys_move_nan_values() {
  // Sorting by i32 keys moves f32 NaN values with their payloads.
  %k = stablehlo.constant dense<[3, 1, 2, 0]> : tensor<4xi32>
  %i = stablehlo.constant dense<[2143289345, -4194299, 2139095041, -4194304]> : tensor<4xi32>
  %x = stablehlo.bitcast_convert %i : (tensor<4xi32>) -> tensor<4xf32>
  %s:2 = "stablehlo.sort"(%k, %x) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<f32>, %d: tensor<f32>):
    %lt = stablehlo.compare LT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) {dimension = 0 : i64} : (tensor<4xi32>, tensor<4xf32>) -> (tensor<4xi32>, tensor<4xf32>)
  %r = stablehlo.bitcast_convert %s#1 : (tensor<4xf32>) -> tensor<4xi32>
  check.expect_eq_const %r, dense<[-4194304, -4194299, 2139095041, 2143289345]> : tensor<4xi32>
  func.return
}

// -----

func.func @cosh_sinh_f32_large() {
  // exp(89) overflows f32; cosh(89) = sinh(89) ~ 2.2448064e38 does not.
  %x = stablehlo.constant dense<[89.0, -89.0, 88.7, 0.5]> : tensor<4xf32>
  %c = "chlo.cosh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %s = "chlo.sinh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  check.expect_almost_eq_const %c, dense<[2.2448064e+38, 2.2448064e+38, 1.6629884e+38, 1.127626]> : tensor<4xf32>
  check.expect_almost_eq_const %s, dense<[2.2448064e+38, -2.2448064e+38, 1.6629884e+38, 0.5210953]> : tensor<4xf32>
  func.return
}

// -----

func.func @cosh_sinh_f64_large() {
  // exp(710) overflows f64; cosh(710) ~ 1.1169973830808557e308 does not.
  %x = stablehlo.constant dense<[710.0, -710.0, 709.9]> : tensor<3xf64>
  %c = "chlo.cosh"(%x) : (tensor<3xf64>) -> tensor<3xf64>
  %s = "chlo.sinh"(%x) : (tensor<3xf64>) -> tensor<3xf64>
  // within 3 ulp (the transcendental functions' bound on every device)
  %wc = stablehlo.constant dense<[1.1169973830808557e+308, 1.1169973830808557e+308, 1.0107010280597818e+308]> : tensor<3xf64>
  %ws = stablehlo.constant dense<[1.1169973830808557e+308, -1.1169973830808557e+308, 1.0107010280597818e+308]> : tensor<3xf64>
  check.expect_close %c, %wc, max_ulp_difference = 3 : tensor<3xf64>, tensor<3xf64>
  check.expect_close %s, %ws, max_ulp_difference = 3 : tensor<3xf64>, tensor<3xf64>
  func.return
}

// -----

func.func @cosh_sinh_f16_large() {
  // exp(11.5) ~ 98716 overflows f16 (max 65504); cosh(11.5) ~ 49340 does not.
  %x = stablehlo.constant dense<[11.5, -11.5, 11.0]> : tensor<3xf16>
  %c = "chlo.cosh"(%x) : (tensor<3xf16>) -> tensor<3xf16>
  %s = "chlo.sinh"(%x) : (tensor<3xf16>) -> tensor<3xf16>
  check.expect_almost_eq_const %c, dense<[49340.0, 49340.0, 29940.0]> : tensor<3xf16>
  check.expect_almost_eq_const %s, dense<[49340.0, -49340.0, 29940.0]> : tensor<3xf16>
  func.return
}

// -----

func.func @select_and_scatter_defaults() {
  // No window_strides (spec default: 1s) and no padding (spec default: 0s).
  %operand = stablehlo.constant dense<[[1.0, 5.0, 2.0], [3.0, 4.0, 0.0]]> : tensor<2x3xf32>
  %source = stablehlo.constant dense<[[10.0, 20.0]]> : tensor<1x2xf32>
  %init = stablehlo.constant dense<0.0> : tensor<f32>
  %r = "stablehlo.select_and_scatter"(%operand, %source, %init) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare GE, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 2, 2>} : (tensor<2x3xf32>, tensor<1x2xf32>, tensor<f32>) -> tensor<2x3xf32>
  check.expect_almost_eq_const %r, dense<[[0.0, 30.0, 0.0], [0.0, 0.0, 0.0]]> : tensor<2x3xf32>
  func.return
}

// -----

func.func @reduce_window_defaults() {
  // Only window_dimensions: strides, base/window dilations 1, padding 0.
  %x = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %init = stablehlo.constant dense<0.0> : tensor<f32>
  %r = "stablehlo.reduce_window"(%x, %init) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 2, 2>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<1x2xf32>
  check.expect_almost_eq_const %r, dense<[[12.0, 16.0]]> : tensor<1x2xf32>
  func.return
}

// -----

func.func @convolution_defaults() {
  // No window_strides, padding, lhs/rhs dilation, window_reversal.
  %x = stablehlo.constant dense<[[[1.0], [2.0], [3.0], [4.0]]]> : tensor<1x4x1xf32>
  %w = stablehlo.constant dense<[[[1.0]], [[10.0]]]> : tensor<2x1x1xf32>
  %r = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x1xf32>, tensor<2x1x1xf32>) -> tensor<1x3x1xf32>
  check.expect_almost_eq_const %r, dense<[[[21.0], [32.0], [43.0]]]> : tensor<1x3x1xf32>
  func.return
}

// -----

func.func @cosh_sinh_complex_large() {
  // cosh(x + iy) = cosh x cos y + i sinh x sin y: finite where exp(|x|) is not.
  %x = stablehlo.constant dense<[(89.0, 0.5), (-89.0, 1.0)]> : tensor<2xcomplex<f32>>
  %c = "chlo.cosh"(%x) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  %s = "chlo.sinh"(%x) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  check.expect_almost_eq_const %c, dense<[(1.9700029e+38, 1.0762175e+38), (1.2128741e+38, -1.8889395e+38)]> : tensor<2xcomplex<f32>>
  check.expect_almost_eq_const %s, dense<[(1.9700029e+38, 1.0762175e+38), (-1.2128741e+38, 1.8889395e+38)]> : tensor<2xcomplex<f32>>
  %y = stablehlo.constant dense<[(710.0, 0.5), (-710.0, 1.0)]> : tensor<2xcomplex<f64>>
  %cy = "chlo.cosh"(%y) : (tensor<2xcomplex<f64>>) -> tensor<2xcomplex<f64>>
  %sy = "chlo.sinh"(%y) : (tensor<2xcomplex<f64>>) -> tensor<2xcomplex<f64>>
  // (within 3 ulp: an absolute tolerance at 1e307 is no tolerance at all)
  %wcy = stablehlo.constant dense<[(9.802574250689392e+307, 5.355170720030244e+307), (6.035162617272641e+307, -9.399208879688905e+307)]> : tensor<2xcomplex<f64>>
  %wsy = stablehlo.constant dense<[(9.802574250689392e+307, 5.355170720030244e+307), (-6.035162617272641e+307, 9.399208879688905e+307)]> : tensor<2xcomplex<f64>>
  check.expect_close %cy, %wcy, max_ulp_difference = 3 : tensor<2xcomplex<f64>>, tensor<2xcomplex<f64>>
  check.expect_close %sy, %wsy, max_ulp_difference = 3 : tensor<2xcomplex<f64>>, tensor<2xcomplex<f64>>
  func.return
}

// -----

// dot_general's algorithm: operands rounded to the precision types (bf16:
// 1.001 -> 1.0; tf32, 10 mantissa bits: 1 + 2^-12 -> 1.0), left whole for
// f32 and for operands in several components (BF16_BF16_F32_X3), and the
// product of bf16 operands accumulated in f32 (1 + 4 * 2^-8 = 1.015625; a
// bf16 running sum would stay at 1).
func.func @dot_general_algorithm() {
  %a = stablehlo.constant dense<[[1.001, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %0 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_eq_const %0, dense<[[7.0, 10.0], [15.0, 22.0]]> : tensor<2x2xf32>
  %1 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 3, rhs_component_count = 3, num_primitive_operations = 6, allow_imprecise_accumulation = false> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %2 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0] : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_eq %1, %2 : tensor<2x2xf32>
  %x = stablehlo.constant dense<[1.000244140625, 2.0]> : tensor<2xf32>
  %y = stablehlo.constant dense<[1.0, 0.5]> : tensor<2xf32>
  %3 = stablehlo.dot_general %x, %y, contracting_dims = [0] x [0], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>
  check.expect_eq_const %3, dense<2.0> : tensor<f32>
  %4 = stablehlo.dot_general %x, %y, contracting_dims = [0] x [0], algorithm = <lhs_precision_type = f32, rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>
  check.expect_eq_const %4, dense<2.000244140625> : tensor<f32>
  %b = stablehlo.constant dense<[1.0, 0.00390625, 0.00390625, 0.00390625, 0.00390625]> : tensor<5xbf16>
  %o = stablehlo.constant dense<1.0> : tensor<5xbf16>
  %5 = stablehlo.dot_general %b, %o, contracting_dims = [0] x [0], algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<5xbf16>, tensor<5xbf16>) -> tensor<bf16>
  check.expect_eq_const %5, dense<1.015625> : tensor<bf16>
  func.return
}
