// jnp.linalg.qr as JAX lowers it on the CPU: LAPACK's geqrf, then orgqr /
// ungqr for Q, through XLA's FFI (tests/jax_exports.cmake). Values worked by
// hand with LAPACK's reflector conventions (beta = -sign(alpha) ||(alpha, x)||).
func.func @geqrf_orgqr_f32() {
  %a = stablehlo.constant dense<[[3.0, 1.0], [4.0, 2.0]]> : tensor<2x2xf32>
  %0:4 = stablehlo.custom_call @lapack_sgeqrf_ffi(%a) {mhlo.backend_config = {}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>, dense<0> : tensor<1xindex>], api_version = 4 : i32} : (tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<i32>, tensor<64xf32>)
  // v = (1, 4 / 8), tau = (-5 - 3) / -5 = 1.6; column 2: (1, 2) - 1.6 * 2 * v.
  check.expect_almost_eq_const %0#0, dense<[[-5.0, -2.2], [0.5, 0.4]]> : tensor<2x2xf32>
  check.expect_almost_eq_const %0#1, dense<[1.6, 0.0]> : tensor<2xf32>
  check.expect_eq_const %0#2, dense<0> : tensor<i32>
  %1:3 = stablehlo.custom_call @lapack_sorgqr_ffi(%0#0, %0#1) {mhlo.backend_config = {}, api_version = 4 : i32} : (tensor<2x2xf32>, tensor<2xf32>) -> (tensor<2x2xf32>, tensor<i32>, tensor<64xf32>)
  check.expect_almost_eq_const %1#0, dense<[[-0.6, -0.8], [-0.8, 0.6]]> : tensor<2x2xf32>
  check.expect_eq_const %1#1, dense<0> : tensor<i32>
  func.return
}

// -----

func.func @geqrf_orgqr_tall_f64() {
  %a = stablehlo.constant dense<[[2.0, 1.0], [0.0, 1.0], [0.0, 1.0]]> : tensor<3x2xf64>
  %0:4 = stablehlo.custom_call @lapack_dgeqrf_ffi(%a) {mhlo.backend_config = {}, api_version = 4 : i32} : (tensor<3x2xf64>) -> (tensor<3x2xf64>, tensor<2xf64>, tensor<i32>, tensor<64xf64>)
  // Column 1 is already reduced (tau 0); column 2: beta = -sqrt(2), tau = 1 + 1/sqrt(2).
  check.expect_almost_eq_const %0#0, dense<[[2.0, 1.0], [0.0, -1.4142135623730951], [0.0, 0.41421356237309503]]> : tensor<3x2xf64>
  check.expect_almost_eq_const %0#1, dense<[0.0, 1.7071067811865475]> : tensor<2xf64>
  %q = stablehlo.custom_call @ProductOfElementaryHouseholderReflectors(%0#0, %0#1) : (tensor<3x2xf64>, tensor<2xf64>) -> tensor<3x2xf64>
  check.expect_almost_eq_const %q, dense<[[1.0, 0.0], [0.0, -0.70710678118654746], [0.0, -0.70710678118654746]]> : tensor<3x2xf64>
  func.return
}

// -----

func.func @geqrf_ungqr_complex() {
  %a = stablehlo.constant dense<[[(0.0, 1.0)], [(1.0, 0.0)]]> : tensor<2x1xcomplex<f32>>
  %0:4 = stablehlo.custom_call @lapack_cgeqrf_ffi(%a) {mhlo.backend_config = {}, api_version = 4 : i32} : (tensor<2x1xcomplex<f32>>) -> (tensor<2x1xcomplex<f32>>, tensor<1xcomplex<f32>>, tensor<i32>, tensor<8xcomplex<f32>>)
  // beta = -sqrt(2), tau = (1, 1/sqrt(2)), v(2) = 1 / (i + sqrt(2)) = (sqrt(2) - i) / 3.
  check.expect_almost_eq_const %0#0, dense<[[(-1.41421356, 0.0)], [(0.47140452, -0.33333333)]]> : tensor<2x1xcomplex<f32>>
  check.expect_almost_eq_const %0#1, dense<[(1.0, 0.70710678)]> : tensor<1xcomplex<f32>>
  %1:3 = stablehlo.custom_call @lapack_cungqr_ffi(%0#0, %0#1) {mhlo.backend_config = {}, api_version = 4 : i32} : (tensor<2x1xcomplex<f32>>, tensor<1xcomplex<f32>>) -> (tensor<2x1xcomplex<f32>>, tensor<i32>, tensor<8xcomplex<f32>>)
  // Q R = a with R = -sqrt(2): Q = a / -sqrt(2).
  check.expect_almost_eq_const %1#0, dense<[[(0.0, -0.70710678)], [(-0.70710678, 0.0)]]> : tensor<2x1xcomplex<f32>>
  func.return
}

// -----

// Complex: LAPACK's zgeqrf leaves every diagonal entry of R real, the last
// one too (larfg with nothing below the diagonal still rotates a complex
// alpha onto the real axis: tau(3) is not zero). Expected values from
// numpy.linalg.qr(a, mode='raw') (LAPACK's zgeqrf).
func.func @geqrf_complex_real_diagonal() {
  %a = stablehlo.constant dense<[[(1.0, 1.0), (2.0, -1.0), (0.5, 0.0)], [(0.0, 0.5), (3.0, 2.0), (0.0, -1.0)], [(2.0, 0.0), (0.0, 1.0), (1.0, 1.0)]]> : tensor<3x3xcomplex<f64>>
  %0:4 = stablehlo.custom_call @lapack_zgeqrf_ffi(%a) {mhlo.backend_config = {}, api_version = 4 : i32} : (tensor<3x3xcomplex<f64>>) -> (tensor<3x3xcomplex<f64>>, tensor<3xcomplex<f64>>, tensor<i32>, tensor<1xcomplex<f64>>)
  check.expect_almost_eq_const %0#0, dense<[[(-2.5, 0.0), (-0.8, 1.0), (-0.8, -0.6)], [(0.03773584905660377, 0.1320754716981132), (-4.166533331199932, 0.0), (0.00960030721474657, 1.147236712162193)], [(0.5283018867924528, -0.1509433962264151), (-0.07684452511849596, 0.38405512844557665), (0.966310385108565, 0.0)]]> : tensor<3x3xcomplex<f64>>
  check.expect_almost_eq_const %0#1, dense<[(1.4, 0.4), (1.631265483837569, 0.40937159066654405), (1.6986065733389617, -0.7155060137326551)]> : tensor<3xcomplex<f64>>
  func.return
}

// -----

// A dynamic batch (jnp.linalg.qr under vmap in a shape-polymorphic export):
// the same factors as the static batch gives, bit for bit.
func.func @geqrf_orgqr_dynamic_batch() {
  %s = stablehlo.constant dense<[[[3.0, 1.0], [4.0, 2.0]], [[1.0, 2.0], [0.0, 5.0]]]> : tensor<2x2x2xf32>
  %shape = stablehlo.constant dense<[2, 2, 2]> : tensor<3xi64>
  %a = stablehlo.dynamic_reshape %s, %shape : (tensor<2x2x2xf32>, tensor<3xi64>) -> tensor<?x2x2xf32>
  %0:4 = stablehlo.custom_call @lapack_sgeqrf_ffi(%a) {mhlo.backend_config = {}, api_version = 4 : i32} : (tensor<?x2x2xf32>) -> (tensor<?x2x2xf32>, tensor<?x2xf32>, tensor<?xi32>, tensor<64xf32>)
  %1:3 = stablehlo.custom_call @lapack_sorgqr_ffi(%0#0, %0#1) {mhlo.backend_config = {}, api_version = 4 : i32} : (tensor<?x2x2xf32>, tensor<?x2xf32>) -> (tensor<?x2x2xf32>, tensor<?xi32>, tensor<64xf32>)
  %2:4 = stablehlo.custom_call @lapack_sgeqrf_ffi(%s) {mhlo.backend_config = {}, api_version = 4 : i32} : (tensor<2x2x2xf32>) -> (tensor<2x2x2xf32>, tensor<2x2xf32>, tensor<2xi32>, tensor<64xf32>)
  %3:3 = stablehlo.custom_call @lapack_sorgqr_ffi(%2#0, %2#1) {mhlo.backend_config = {}, api_version = 4 : i32} : (tensor<2x2x2xf32>, tensor<2x2xf32>) -> (tensor<2x2x2xf32>, tensor<2xi32>, tensor<64xf32>)
  %q = stablehlo.dynamic_reshape %3#0, %shape : (tensor<2x2x2xf32>, tensor<3xi64>) -> tensor<?x2x2xf32>
  check.expect_eq %1#0, %q : tensor<?x2x2xf32>
  check.expect_almost_eq_const %1#0, dense<[[[-0.6, -0.8], [-0.8, 0.6]], [[1.0, 0.0], [0.0, 1.0]]]> : tensor<2x2x2xf32>
  check.expect_eq_const %1#1, dense<0> : tensor<2xi32>
  func.return
}
