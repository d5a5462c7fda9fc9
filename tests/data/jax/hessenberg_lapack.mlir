// jax.scipy.linalg.hessenberg as JAX lowers it on the CPU: LAPACK's gehrd
// through XLA's FFI (@lapack_?gehrd_ffi): (a) -> (h, tau, info) with
// mhlo.backend_config = {low, high} (LAPACK's ilo and ihi)
// (tests/jax_exports.cmake). Worked by hand with LAPACK's reflector
// conventions: column 0's reflector maps (4, 3) to beta = -5, tau = (-5 -
// 4) / -5 = 1.8, v = (1, 3 / 9); H = [[-0.8, -0.6], [-0.6, 0.8]] on rows
// and columns 1 and 2; h = H a H; the last reflector has nothing to
// annihilate (tau 0).
func.func @gehrd_f64_by_hand() {
  %a = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [3.0, 8.0, 9.0]]> : tensor<3x3xf64>
  %0:3 = stablehlo.custom_call @lapack_dgehrd_ffi(%a) {mhlo.backend_config = {high = 3 : i32, low = 1 : i32}, api_version = 4 : i32} : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<2xf64>, tensor<i32>)
  check.expect_almost_eq_const %0#0, dense<[[1.0, -3.4, 1.2], [-5.0, 13.16, -2.88], [0.33333333333333333, -4.88, 0.84]]> : tensor<3x3xf64>
  check.expect_almost_eq_const %0#1, dense<[1.8, 0.0]> : tensor<2xf64>
  check.expect_eq_const %0#2, dense<0> : tensor<i32>
  func.return
}

// -----

// Batched f32, the second matrix already upper Hessenberg below row 1:
// its reflector for column 0 has x = 0 and a real alpha, so tau = 0 and
// the matrix comes back as it was.
func.func @gehrd_f32_batch_with_identity_step() {
  %a = stablehlo.constant dense<[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [3.0, 8.0, 9.0]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [0.0, 8.0, 9.0]]]> : tensor<2x3x3xf32>
  %0:3 = stablehlo.custom_call @lapack_sgehrd_ffi(%a) {mhlo.backend_config = {high = 3 : i32, low = 1 : i32}, api_version = 4 : i32} : (tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2x2xf32>, tensor<2xi32>)
  check.expect_almost_eq_const %0#0, dense<[[[1.0, -3.4, 1.2], [-5.0, 13.16, -2.88], [0.33333333, -4.88, 0.84]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [0.0, 8.0, 9.0]]]> : tensor<2x3x3xf32>
  check.expect_almost_eq_const %0#1, dense<[[1.8, 0.0], [0.0, 0.0]]> : tensor<2x2xf32>
  check.expect_eq_const %0#2, dense<0> : tensor<2xi32>
  func.return
}

// -----

// The same batch, symbolic (a shape-polymorphic export under vmap):
// kiln.gehrd takes it from its operand at run time.
func.func @gehrd_f32_batch_with_identity_step_dynamic_batch() {
  %a = stablehlo.constant dense<[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [3.0, 8.0, 9.0]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [0.0, 8.0, 9.0]]]> : tensor<2x3x3xf32>
  %a_shape = stablehlo.constant dense<[2, 3, 3]> : tensor<3xi64>
  %a_dyn = stablehlo.dynamic_reshape %a, %a_shape : (tensor<2x3x3xf32>, tensor<3xi64>) -> tensor<?x3x3xf32>
  %0:3 = stablehlo.custom_call @lapack_sgehrd_ffi(%a_dyn) {mhlo.backend_config = {high = 3 : i32, low = 1 : i32}, api_version = 4 : i32} : (tensor<?x3x3xf32>) -> (tensor<?x3x3xf32>, tensor<?x2xf32>, tensor<?xi32>)
  check.expect_almost_eq_const %0#0, dense<[[[1.0, -3.4, 1.2], [-5.0, 13.16, -2.88], [0.33333333, -4.88, 0.84]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [0.0, 8.0, 9.0]]]> : tensor<2x3x3xf32>
  check.expect_almost_eq_const %0#1, dense<[[1.8, 0.0], [0.0, 0.0]]> : tensor<2x2xf32>
  check.expect_eq_const %0#2, dense<0> : tensor<2xi32>
  func.return
}
