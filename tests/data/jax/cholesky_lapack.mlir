// jnp.linalg.cholesky as JAX lowers it on the CPU: LAPACK's potrf through
// XLA's FFI (@lapack_spotrf_ffi), then the factor selected with NaN where
// info != 0. Checks: the factor (the input stays in the other triangle, as
// LAPACK leaves it), info = 0 for a positive definite matrix and info = k
// for one whose leading minor of order k is not (tests/jax_exports.cmake).
func.func @potrf_lower_f32() {
  %a = stablehlo.constant dense<[[4.0, 12.0, -16.0], [12.0, 37.0, -43.0], [-16.0, -43.0, 98.0]]> : tensor<3x3xf32>
  %0:2 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], api_version = 4 : i32} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i32>)
  check.expect_almost_eq_const %0#0, dense<[[2.0, 12.0, -16.0], [6.0, 1.0, -43.0], [-8.0, 5.0, 3.0]]> : tensor<3x3xf32>
  check.expect_eq_const %0#1, dense<0> : tensor<i32>
  func.return
}

// -----

func.func @potrf_upper_batched_f64_with_a_failure() {
  %a = stablehlo.constant dense<[[[4.0, 2.0], [2.0, 5.0]], [[1.0, 2.0], [2.0, 1.0]], [[-1.0, 0.0], [0.0, 1.0]]]> : tensor<3x2x2xf64>
  %0:2 = stablehlo.custom_call @lapack_dpotrf_ffi(%a) {mhlo.backend_config = {uplo = 85 : ui8}, api_version = 4 : i32} : (tensor<3x2x2xf64>) -> (tensor<3x2x2xf64>, tensor<3xi32>)
  // Matrix 0: U = [[2, 1], [0, 2]] (the lower triangle keeps a's 2).
  // Matrix 1: 1 - 4 < 0 at order 2; matrix 2: -1 at order 1.
  %f = "stablehlo.slice"(%0#0) {start_indices = array<i64: 0, 0, 0>, limit_indices = array<i64: 1, 2, 2>, strides = array<i64: 1, 1, 1>} : (tensor<3x2x2xf64>) -> tensor<1x2x2xf64>
  check.expect_almost_eq_const %f, dense<[[[2.0, 1.0], [2.0, 2.0]]]> : tensor<1x2x2xf64>
  check.expect_eq_const %0#1, dense<[0, 2, 1]> : tensor<3xi32>
  func.return
}

// -----

func.func @potrf_complex() {
  %a = stablehlo.constant dense<[[(4.0, 0.0), (2.0, 2.0)], [(2.0, -2.0), (6.0, 0.0)]]> : tensor<2x2xcomplex<f32>>
  %0:2 = stablehlo.custom_call @lapack_cpotrf_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}, api_version = 4 : i32} : (tensor<2x2xcomplex<f32>>) -> (tensor<2x2xcomplex<f32>>, tensor<i32>)
  // L = [[2, .], [1 - i, 2]]: (1 - i)(1 + i) + 4 = 6.
  check.expect_almost_eq_const %0#0, dense<[[(2.0, 0.0), (2.0, 2.0)], [(1.0, -1.0), (2.0, 0.0)]]> : tensor<2x2xcomplex<f32>>
  check.expect_eq_const %0#1, dense<0> : tensor<i32>
  func.return
}

// -----

// Under vmap in a shape-polymorphic export the batch is symbolic: the
// masks that keep a's other triangle and count the positive pivots
// broadcast to the batch the operand has when it runs.
func.func @potrf_upper_dynamic_batch_with_a_failure() {
  %s = stablehlo.constant dense<[[[4.0, 2.0], [2.0, 5.0]], [[1.0, 2.0], [2.0, 1.0]], [[9.0, 3.0], [3.0, 5.0]]]> : tensor<3x2x2xf64>
  %shape = stablehlo.constant dense<[3, 2, 2]> : tensor<3xi64>
  %a = stablehlo.dynamic_reshape %s, %shape : (tensor<3x2x2xf64>, tensor<3xi64>) -> tensor<?x2x2xf64>
  %0:2 = stablehlo.custom_call @lapack_dpotrf_ffi(%a) {mhlo.backend_config = {uplo = 85 : ui8}, api_version = 4 : i32} : (tensor<?x2x2xf64>) -> (tensor<?x2x2xf64>, tensor<?xi32>)
  // Matrix 0: U = [[2, 1], [0, 2]]; matrix 1 fails at order 2; matrix 2:
  // U = [[3, 1], [0, 2]]. The lower triangles keep a's values.
  %f = "stablehlo.slice"(%0#0) {start_indices = array<i64: 0, 0, 0>, limit_indices = array<i64: 1, 2, 2>, strides = array<i64: 1, 1, 1>} : (tensor<?x2x2xf64>) -> tensor<1x2x2xf64>
  check.expect_almost_eq_const %f, dense<[[[2.0, 1.0], [2.0, 2.0]]]> : tensor<1x2x2xf64>
  %g = "stablehlo.slice"(%0#0) {start_indices = array<i64: 2, 0, 0>, limit_indices = array<i64: 3, 2, 2>, strides = array<i64: 1, 1, 1>} : (tensor<?x2x2xf64>) -> tensor<1x2x2xf64>
  check.expect_almost_eq_const %g, dense<[[[3.0, 1.0], [3.0, 2.0]]]> : tensor<1x2x2xf64>
  check.expect_eq_const %0#1, dense<[0, 2, 0]> : tensor<3xi32>
  func.return
}
