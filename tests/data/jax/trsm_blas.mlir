// lax.linalg.triangular_solve as JAX lowers it on the CPU: BLAS's trsm
// through XLA's FFI (@blas_?trsm_ffi): (a, b, alpha) solving op(a) x =
// alpha b (side 'L') or x op(a) = alpha b (tests/jax_exports.cmake).
func.func @trsm_left_lower() {
  %a = stablehlo.constant dense<[[2.0, 99.0], [1.0, 4.0]]> : tensor<2x2xf32>
  %b = stablehlo.constant dense<[[2.0], [9.0]]> : tensor<2x1xf32>
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %x = stablehlo.custom_call @blas_strsm_ffi(%a, %b, %one) {mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], api_version = 4 : i32} : (tensor<2x2xf32>, tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  check.expect_almost_eq_const %x, dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  func.return
}

// -----

func.func @trsm_right_upper_transposed_alpha_batched() {
  %a = stablehlo.constant dense<[[[2.0, 1.0], [-5.0, 4.0]], [[1.0, 0.0], [-5.0, 1.0]]]> : tensor<2x2x2xf64>
  %b = stablehlo.constant dense<[[[2.0, 4.0]], [[1.0, 2.0]]]> : tensor<2x1x2xf64>
  %alpha = stablehlo.constant dense<2.0> : tensor<f64>
  // x a^T = 2 b: x = [1, 2] for a = [[2, 1], [., 4]]; x = [2, 4] for the identity.
  %x = stablehlo.custom_call @blas_dtrsm_ffi(%a, %b, %alpha) {mhlo.backend_config = {diag = 78 : ui8, side = 82 : ui8, trans_x = 84 : ui8, uplo = 85 : ui8}, api_version = 4 : i32} : (tensor<2x2x2xf64>, tensor<2x1x2xf64>, tensor<f64>) -> tensor<2x1x2xf64>
  check.expect_almost_eq_const %x, dense<[[[1.0, 2.0]], [[2.0, 4.0]]]> : tensor<2x1x2xf64>
  func.return
}

// -----

func.func @trsm_complex_adjoint_unit_diagonal() {
  %a = stablehlo.constant dense<[[(7.0, 7.0), (0.0, 0.0)], [(1.0, 1.0), (7.0, 7.0)]]> : tensor<2x2xcomplex<f32>>
  %b = stablehlo.constant dense<[[(2.0, 1.0)], [(0.0, 1.0)]]> : tensor<2x1xcomplex<f32>>
  %one = stablehlo.constant dense<(1.0, 0.0)> : tensor<complex<f32>>
  // a^H with a unit diagonal = [[1, 1 - i], [0, 1]]; x = [1, i]: (1 - i) i + 1 = 2 + i.
  %x = stablehlo.custom_call @blas_ctrsm_ffi(%a, %b, %one) {mhlo.backend_config = {diag = 85 : ui8, side = 76 : ui8, trans_x = 67 : ui8, uplo = 76 : ui8}, api_version = 4 : i32} : (tensor<2x2xcomplex<f32>>, tensor<2x1xcomplex<f32>>, tensor<complex<f32>>) -> tensor<2x1xcomplex<f32>>
  check.expect_almost_eq_const %x, dense<[[(1.0, 0.0)], [(0.0, 1.0)]]> : tensor<2x1xcomplex<f32>>
  func.return
}

// -----

// Under vmap in a shape-polymorphic export the batch is symbolic: the
// scaling by alpha broadcasts to b's run-time shape.
func.func @trsm_right_upper_transposed_alpha_batched_dynamic_batch() {
  %a = stablehlo.constant dense<[[[2.0, 1.0], [-5.0, 4.0]], [[1.0, 0.0], [-5.0, 1.0]]]> : tensor<2x2x2xf64>
  %b = stablehlo.constant dense<[[[2.0, 4.0]], [[1.0, 2.0]]]> : tensor<2x1x2xf64>
  %alpha = stablehlo.constant dense<2.0> : tensor<f64>
  // x a^T = 2 b: x = [1, 2] for a = [[2, 1], [., 4]]; x = [2, 4] for the identity.
  %a_shape = stablehlo.constant dense<[2, 2, 2]> : tensor<3xi64>
  %a_dyn = stablehlo.dynamic_reshape %a, %a_shape : (tensor<2x2x2xf64>, tensor<3xi64>) -> tensor<?x2x2xf64>
  %b_shape = stablehlo.constant dense<[2, 1, 2]> : tensor<3xi64>
  %b_dyn = stablehlo.dynamic_reshape %b, %b_shape : (tensor<2x1x2xf64>, tensor<3xi64>) -> tensor<?x1x2xf64>
  %x = stablehlo.custom_call @blas_dtrsm_ffi(%a_dyn, %b_dyn, %alpha) {mhlo.backend_config = {diag = 78 : ui8, side = 82 : ui8, trans_x = 84 : ui8, uplo = 85 : ui8}, api_version = 4 : i32} : (tensor<?x2x2xf64>, tensor<?x1x2xf64>, tensor<f64>) -> tensor<?x1x2xf64>
  check.expect_almost_eq_const %x, dense<[[[1.0, 2.0]], [[2.0, 4.0]]]> : tensor<2x1x2xf64>
  func.return
}
