// jnp.linalg.svd of complex matrices as JAX lowers it on the CPU:
// @lapack_{c,z}gesdd_ffi, (a) -> (a', s, u, vt, info) with s real and vt
// = V^H (tests/jax_exports.cmake). Singular vectors' phases are free, so
// the checks use u diag(s) vt = a and u^H u = I.
func.func @gesdd_c64_tall_full_reconstructs() {
  %a = stablehlo.constant dense<[[(1.0, 2.0), (-1.0, 0.0)], [(0.0, 0.5), (3.0, -1.0)], [(2.0, 0.0), (1.0, 1.0)]]> : tensor<3x2xcomplex<f32>>
  %0:5 = stablehlo.custom_call @lapack_cgesdd_ffi(%a) {mhlo.backend_config = {mode = 65 : ui8}, api_version = 4 : i32} : (tensor<3x2xcomplex<f32>>) -> (tensor<3x2xcomplex<f32>>, tensor<2xf32>, tensor<3x3xcomplex<f32>>, tensor<2x2xcomplex<f32>>, tensor<i32>)
  check.expect_almost_eq_const %0#1, dense<[3.7801782, 2.82139199]> : tensor<2xf32>
  %u2 = stablehlo.slice %0#2 [0:3, 0:2] : (tensor<3x3xcomplex<f32>>) -> tensor<3x2xcomplex<f32>>
  %sc = stablehlo.convert %0#1 : (tensor<2xf32>) -> tensor<2xcomplex<f32>>
  %s = stablehlo.broadcast_in_dim %sc, dims = [1] : (tensor<2xcomplex<f32>>) -> tensor<3x2xcomplex<f32>>
  %us = stablehlo.multiply %u2, %s : tensor<3x2xcomplex<f32>>
  %r = stablehlo.dot_general %us, %0#3, contracting_dims = [1] x [0] : (tensor<3x2xcomplex<f32>>, tensor<2x2xcomplex<f32>>) -> tensor<3x2xcomplex<f32>>
  check.expect_almost_eq %r, %a : tensor<3x2xcomplex<f32>>
  %re = stablehlo.real %0#2 : (tensor<3x3xcomplex<f32>>) -> tensor<3x3xf32>
  %im = stablehlo.imag %0#2 : (tensor<3x3xcomplex<f32>>) -> tensor<3x3xf32>
  %nim = stablehlo.negate %im : tensor<3x3xf32>
  %uc = stablehlo.complex %re, %nim : tensor<3x3xcomplex<f32>>
  %uu = stablehlo.dot_general %uc, %0#2, contracting_dims = [0] x [0] : (tensor<3x3xcomplex<f32>>, tensor<3x3xcomplex<f32>>) -> tensor<3x3xcomplex<f32>>
  %id = stablehlo.constant dense<[[(1.0, 0.0), (0.0, 0.0), (0.0, 0.0)], [(0.0, 0.0), (1.0, 0.0), (0.0, 0.0)], [(0.0, 0.0), (0.0, 0.0), (1.0, 0.0)]]> : tensor<3x3xcomplex<f32>>
  check.expect_almost_eq %uu, %id : tensor<3x3xcomplex<f32>>
  check.expect_eq_const %0#4, dense<0> : tensor<i32>
  func.return
}

// -----

func.func @gesdd_c128_wide_thin_reconstructs() {
  %a = stablehlo.constant dense<[[(1.0, 0.0), (0.0, 2.0), (-1.0, 0.5)], [(0.5, -1.0), (3.0, 0.0), (0.0, 1.0)]]> : tensor<2x3xcomplex<f64>>
  %0:5 = stablehlo.custom_call @lapack_zgesdd_ffi(%a) {mhlo.backend_config = {mode = 83 : ui8}, api_version = 4 : i32} : (tensor<2x3xcomplex<f64>>) -> (tensor<2x3xcomplex<f64>>, tensor<2xf64>, tensor<2x2xcomplex<f64>>, tensor<2x3xcomplex<f64>>, tensor<i32>)
  check.expect_almost_eq_const %0#1, dense<[4.14619965, 0.55590331]> : tensor<2xf64>
  %sc = stablehlo.convert %0#1 : (tensor<2xf64>) -> tensor<2xcomplex<f64>>
  %s = stablehlo.broadcast_in_dim %sc, dims = [1] : (tensor<2xcomplex<f64>>) -> tensor<2x2xcomplex<f64>>
  %us = stablehlo.multiply %0#2, %s : tensor<2x2xcomplex<f64>>
  %r = stablehlo.dot_general %us, %0#3, contracting_dims = [1] x [0] : (tensor<2x2xcomplex<f64>>, tensor<2x3xcomplex<f64>>) -> tensor<2x3xcomplex<f64>>
  check.expect_almost_eq %r, %a : tensor<2x3xcomplex<f64>>
  check.expect_eq_const %0#4, dense<0> : tensor<i32>
  func.return
}
