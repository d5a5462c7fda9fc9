// jnp.linalg.eigh as JAX lowers it on the CPU: LAPACK's syevd through XLA's
// FFI (@lapack_{s,d}syevd_ffi): (a) -> (v, w, info, workspaces) with
// mode 'V' (86) or 'N' (78) and uplo 'L' (76) or 'U' (85)
// (tests/jax_exports.cmake). Eigenvalues in ascending order; eigenvectors'
// signs are free, so the checks use v diag(w) v^T = a and v^T v = I.
func.func @syevd_f32_values() {
  %a = stablehlo.constant dense<[[2.0, 1.0, 0.0], [1.0, 2.0, 1.0], [0.0, 1.0, 2.0]]> : tensor<3x3xf32>
  %0:5 = stablehlo.custom_call @lapack_ssyevd_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, api_version = 4 : i32} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xf32>, tensor<i32>, tensor<64xf32>, tensor<32xi32>)
  // 2 - sqrt(2), 2, 2 + sqrt(2)
  check.expect_almost_eq_const %0#1, dense<[0.585786462, 2.0, 3.41421366]> : tensor<3xf32>
  check.expect_eq_const %0#2, dense<0> : tensor<i32>
  func.return
}

// -----

func.func @syevd_f64_upper_reconstructs() {
  // The lower triangle holds values the call must not read (uplo 'U').
  %a = stablehlo.constant dense<[[4.0, 1.0, -2.0, 0.5], [99.0, 3.0, 0.25, 1.0], [99.0, 99.0, -1.0, 2.0], [99.0, 99.0, 99.0, 5.0]]> : tensor<4x4xf64>
  %s = stablehlo.constant dense<[[4.0, 1.0, -2.0, 0.5], [1.0, 3.0, 0.25, 1.0], [-2.0, 0.25, -1.0, 2.0], [0.5, 1.0, 2.0, 5.0]]> : tensor<4x4xf64>
  %0:3 = stablehlo.custom_call @lapack_dsyevd_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = 85 : ui8}, api_version = 4 : i32} : (tensor<4x4xf64>) -> (tensor<4x4xf64>, tensor<4xf64>, tensor<i32>)
  %w = stablehlo.broadcast_in_dim %0#1, dims = [1] : (tensor<4xf64>) -> tensor<4x4xf64>
  %vw = stablehlo.multiply %0#0, %w : tensor<4x4xf64>
  %r = stablehlo.dot_general %vw, %0#0, contracting_dims = [1] x [1] : (tensor<4x4xf64>, tensor<4x4xf64>) -> tensor<4x4xf64>
  check.expect_almost_eq %r, %s : tensor<4x4xf64>
  %i = stablehlo.dot_general %0#0, %0#0, contracting_dims = [0] x [0] : (tensor<4x4xf64>, tensor<4x4xf64>) -> tensor<4x4xf64>
  %id = stablehlo.constant dense<[[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]> : tensor<4x4xf64>
  check.expect_almost_eq %i, %id : tensor<4x4xf64>
  func.return
}

// -----

func.func @syevd_batched_values_only() {
  %a = stablehlo.constant dense<[[[1.0, 0.0], [0.0, 3.0]], [[0.0, 2.0], [2.0, 0.0]]]> : tensor<2x2x2xf32>
  %0:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%a) {mhlo.backend_config = {mode = 78 : ui8, uplo = 76 : ui8}, api_version = 4 : i32} : (tensor<2x2x2xf32>) -> (tensor<2x2x2xf32>, tensor<2x2xf32>, tensor<2xi32>)
  check.expect_almost_eq_const %0#1, dense<[[1.0, 3.0], [-2.0, 2.0]]> : tensor<2x2xf32>
  check.expect_eq_const %0#2, dense<0> : tensor<2xi32>
  func.return
}

// -----

// jnp.linalg.eigh of complex matrices: @lapack_{c,z}heevd_ffi, the
// eigenvalues real. The upper triangle holds values the call must not read
// (uplo 'L'), the diagonal's imaginary parts too; v diag(w) v^H = a.
func.func @heevd_c64_lower_reconstructs() {
  %a = stablehlo.constant dense<[[(2.0, 5.0), (9.0, 9.0), (9.0, 9.0)], [(1.0, 1.0), (3.0, -7.0), (9.0, 9.0)], [(0.0, -2.0), (0.5, 0.5), (1.0, 0.0)]]> : tensor<3x3xcomplex<f32>>
  %h = stablehlo.constant dense<[[(2.0, 0.0), (1.0, -1.0), (0.0, 2.0)], [(1.0, 1.0), (3.0, 0.0), (0.5, -0.5)], [(0.0, -2.0), (0.5, 0.5), (1.0, 0.0)]]> : tensor<3x3xcomplex<f32>>
  %0:3 = stablehlo.custom_call @lapack_cheevd_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, api_version = 4 : i32} : (tensor<3x3xcomplex<f32>>) -> (tensor<3x3xcomplex<f32>>, tensor<3xf32>, tensor<i32>)
  check.expect_almost_eq_const %0#1, dense<[-1.07435061, 2.89586707, 4.17848354]> : tensor<3xf32>
  %wc = stablehlo.convert %0#1 : (tensor<3xf32>) -> tensor<3xcomplex<f32>>
  %w = stablehlo.broadcast_in_dim %wc, dims = [1] : (tensor<3xcomplex<f32>>) -> tensor<3x3xcomplex<f32>>
  %vw = stablehlo.multiply %0#0, %w : tensor<3x3xcomplex<f32>>
  %re = stablehlo.real %0#0 : (tensor<3x3xcomplex<f32>>) -> tensor<3x3xf32>
  %im = stablehlo.imag %0#0 : (tensor<3x3xcomplex<f32>>) -> tensor<3x3xf32>
  %nim = stablehlo.negate %im : tensor<3x3xf32>
  %vc = stablehlo.complex %re, %nim : tensor<3x3xcomplex<f32>>
  %r = stablehlo.dot_general %vw, %vc, contracting_dims = [1] x [1] : (tensor<3x3xcomplex<f32>>, tensor<3x3xcomplex<f32>>) -> tensor<3x3xcomplex<f32>>
  check.expect_almost_eq %r, %h : tensor<3x3xcomplex<f32>>
  check.expect_eq_const %0#2, dense<0> : tensor<i32>
  func.return
}

// -----

// A dynamic batch (jnp.linalg.eigh under vmap in a shape-polymorphic
// export): the same vectors and values as the static batch gives, bit for bit.
func.func @syevd_dynamic_batch() {
  %s = stablehlo.constant dense<[[[1.0, 0.0], [0.0, 3.0]], [[0.0, 2.0], [2.0, 0.0]]]> : tensor<2x2x2xf32>
  %shape = stablehlo.constant dense<[2, 2, 2]> : tensor<3xi64>
  %a = stablehlo.dynamic_reshape %s, %shape : (tensor<2x2x2xf32>, tensor<3xi64>) -> tensor<?x2x2xf32>
  %0:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, api_version = 4 : i32} : (tensor<?x2x2xf32>) -> (tensor<?x2x2xf32>, tensor<?x2xf32>, tensor<?xi32>)
  %1:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%s) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, api_version = 4 : i32} : (tensor<2x2x2xf32>) -> (tensor<2x2x2xf32>, tensor<2x2xf32>, tensor<2xi32>)
  %v = stablehlo.dynamic_reshape %1#0, %shape : (tensor<2x2x2xf32>, tensor<3xi64>) -> tensor<?x2x2xf32>
  %wshape = stablehlo.constant dense<[2, 2]> : tensor<2xi64>
  %w = stablehlo.dynamic_reshape %1#1, %wshape : (tensor<2x2xf32>, tensor<2xi64>) -> tensor<?x2xf32>
  check.expect_eq %0#0, %v : tensor<?x2x2xf32>
  check.expect_eq %0#1, %w : tensor<?x2xf32>
  check.expect_almost_eq_const %0#1, dense<[[1.0, 3.0], [-2.0, 2.0]]> : tensor<2x2xf32>
  check.expect_eq_const %0#2, dense<0> : tensor<2xi32>
  func.return
}
