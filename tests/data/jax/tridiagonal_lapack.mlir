// lax.linalg.tridiagonal as JAX lowers it on the CPU: LAPACK's sytrd /
// hetrd through XLA's FFI (@lapack_{s,d}sytrd_ffi, @lapack_{c,z}hetrd_ffi):
// (a) -> (a', d, e, tau, info) with mhlo.backend_config = {uplo}
// (tests/jax_exports.cmake). Worked by hand with LAPACK's reflector
// conventions; the triangle not named comes back as given (99 here).
// Lower: column 0's reflector maps (4, 3) to beta = -5 (e0), tau 1.8, v =
// (1, 1/3); H [[1, 5], [5, 6]] H = [[7.6, -3.8], [-3.8, -0.6]].
func.func @sytrd_f64_lower_by_hand() {
  %a = stablehlo.constant dense<[[2.0, 99.0, 99.0], [4.0, 1.0, 99.0], [3.0, 5.0, 6.0]]> : tensor<3x3xf64>
  %0:5 = stablehlo.custom_call @lapack_dsytrd_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}, api_version = 4 : i32} : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xf64>, tensor<2xf64>, tensor<2xf64>, tensor<i32>)
  check.expect_almost_eq_const %0#0, dense<[[2.0, 99.0, 99.0], [-5.0, 7.6, 99.0], [0.33333333333333333, -3.8, -0.6]]> : tensor<3x3xf64>
  check.expect_almost_eq_const %0#1, dense<[2.0, 7.6, -0.6]> : tensor<3xf64>
  check.expect_almost_eq_const %0#2, dense<[-5.0, -3.8]> : tensor<2xf64>
  check.expect_almost_eq_const %0#3, dense<[1.8, 0.0]> : tensor<2xf64>
  check.expect_eq_const %0#4, dense<0> : tensor<i32>
  func.return
}

// -----

// Upper, the same matrix: column 2's reflector maps (5, 3) (alpha = a(1,
// 2), x = a(0, 2)) to beta = -sqrt(34), tau = 1 + 5 / sqrt(34), v = (3 /
// (5 + sqrt(34)), 1); the leading block becomes [[-61/34, -79/34], [-79/34,
// 163/34]], whose last reflector has nothing to annihilate.
func.func @sytrd_f32_upper_by_hand() {
  %a = stablehlo.constant dense<[[2.0, 4.0, 3.0], [99.0, 1.0, 5.0], [99.0, 99.0, 6.0]]> : tensor<3x3xf32>
  %0:5 = stablehlo.custom_call @lapack_ssytrd_ffi(%a) {mhlo.backend_config = {uplo = 85 : ui8}, api_version = 4 : i32} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<i32>)
  check.expect_almost_eq_const %0#0, dense<[[-1.79411765, -2.32352941, 0.276983965], [99.0, 4.79411765, -5.83095189], [99.0, 99.0, 6.0]]> : tensor<3x3xf32>
  check.expect_almost_eq_const %0#1, dense<[-1.79411765, 4.79411765, 6.0]> : tensor<3xf32>
  check.expect_almost_eq_const %0#2, dense<[-2.32352941, -5.83095189]> : tensor<2xf32>
  check.expect_almost_eq_const %0#3, dense<[0.0, 1.85749293]> : tensor<2xf32>
  func.return
}

// -----

// Hermitian, lower: a(1, 0) = 3 + 4i alone below the diagonal still gets a
// reflector, which makes e real: beta = -5, tau = ((-5 - 3) / -5, -4 / -5)
// = 1.6 + 0.8i; the diagonal's imaginary parts are ignored.
func.func @hetrd_c64_lower_by_hand() {
  %a = stablehlo.constant dense<[[(1.0, 7.0), (99.0, 99.0)], [(3.0, 4.0), (2.0, -7.0)]]> : tensor<2x2xcomplex<f32>>
  %0:5 = stablehlo.custom_call @lapack_chetrd_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}, api_version = 4 : i32} : (tensor<2x2xcomplex<f32>>) -> (tensor<2x2xcomplex<f32>>, tensor<2xf32>, tensor<1xf32>, tensor<1xcomplex<f32>>, tensor<i32>)
  check.expect_almost_eq_const %0#0, dense<[[(1.0, 0.0), (99.0, 99.0)], [(-5.0, 0.0), (2.0, 0.0)]]> : tensor<2x2xcomplex<f32>>
  check.expect_almost_eq_const %0#1, dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_almost_eq_const %0#2, dense<[-5.0]> : tensor<1xf32>
  check.expect_almost_eq_const %0#3, dense<[(1.6, 0.8)]> : tensor<1xcomplex<f32>>
  func.return
}

// -----

// The first function's matrix as a batch of one, symbolic (a
// shape-polymorphic export under vmap): kiln.sytrd takes the batch from its
// operand at run time.
func.func @sytrd_f64_lower_dynamic_batch() {
  %s = stablehlo.constant dense<[[[2.0, 99.0, 99.0], [4.0, 1.0, 99.0], [3.0, 5.0, 6.0]]]> : tensor<1x3x3xf64>
  %shape = stablehlo.constant dense<[1, 3, 3]> : tensor<3xi64>
  %a = stablehlo.dynamic_reshape %s, %shape : (tensor<1x3x3xf64>, tensor<3xi64>) -> tensor<?x3x3xf64>
  %0:5 = stablehlo.custom_call @lapack_dsytrd_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}, api_version = 4 : i32} : (tensor<?x3x3xf64>) -> (tensor<?x3x3xf64>, tensor<?x3xf64>, tensor<?x2xf64>, tensor<?x2xf64>, tensor<?xi32>)
  check.expect_almost_eq_const %0#0, dense<[[[2.0, 99.0, 99.0], [-5.0, 7.6, 99.0], [0.33333333333333333, -3.8, -0.6]]]> : tensor<1x3x3xf64>
  check.expect_almost_eq_const %0#1, dense<[[2.0, 7.6, -0.6]]> : tensor<1x3xf64>
  check.expect_almost_eq_const %0#2, dense<[[-5.0, -3.8]]> : tensor<1x2xf64>
  check.expect_almost_eq_const %0#3, dense<[[1.8, 0.0]]> : tensor<1x2xf64>
  check.expect_eq_const %0#4, dense<0> : tensor<1xi32>
  func.return
}
