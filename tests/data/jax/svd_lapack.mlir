// jnp.linalg.svd as JAX lowers it on the CPU: LAPACK's gesdd through XLA's
// FFI (@lapack_{s,d}gesdd_ffi): (a) -> (a', s, u, vt, info) with mode 'A'
// (65, full_matrices), 'S' (83) or 'N' (78, compute_uv=False)
// (tests/jax_exports.cmake). Singular values descending; singular vectors'
// signs are free, so the checks use u diag(s) vt = a and orthonormality.
func.func @gesdd_f32_thin_reconstructs() {
  %a = stablehlo.constant dense<[[3.0, 1.0], [-1.0, 4.0], [2.0, 0.5]]> : tensor<3x2xf32>
  %0:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%a) {mhlo.backend_config = {mode = 83 : ui8}, api_version = 4 : i32} : (tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<2xf32>, tensor<3x2xf32>, tensor<2x2xf32>, tensor<i32>)
  %s = stablehlo.broadcast_in_dim %0#1, dims = [1] : (tensor<2xf32>) -> tensor<3x2xf32>
  %us = stablehlo.multiply %0#2, %s : tensor<3x2xf32>
  %r = stablehlo.dot_general %us, %0#3, contracting_dims = [1] x [0] : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  check.expect_almost_eq %r, %a : tensor<3x2xf32>
  check.expect_eq_const %0#4, dense<0> : tensor<i32>
  func.return
}

// -----

func.func @gesdd_f64_wide_full_orthonormal() {
  %a = stablehlo.constant dense<[[1.0, 2.0, 0.0, -1.0], [0.5, -1.0, 3.0, 2.0]]> : tensor<2x4xf64>
  %0:5 = stablehlo.custom_call @lapack_dgesdd_ffi(%a) {mhlo.backend_config = {mode = 65 : ui8}, api_version = 4 : i32} : (tensor<2x4xf64>) -> (tensor<2x4xf64>, tensor<2xf64>, tensor<2x2xf64>, tensor<4x4xf64>, tensor<i32>)
  %vt2 = stablehlo.slice %0#3 [0:2, 0:4] : (tensor<4x4xf64>) -> tensor<2x4xf64>
  %s = stablehlo.broadcast_in_dim %0#1, dims = [1] : (tensor<2xf64>) -> tensor<2x2xf64>
  %us = stablehlo.multiply %0#2, %s : tensor<2x2xf64>
  %r = stablehlo.dot_general %us, %vt2, contracting_dims = [1] x [0] : (tensor<2x2xf64>, tensor<2x4xf64>) -> tensor<2x4xf64>
  check.expect_almost_eq %r, %a : tensor<2x4xf64>
  %vv = stablehlo.dot_general %0#3, %0#3, contracting_dims = [1] x [1] : (tensor<4x4xf64>, tensor<4x4xf64>) -> tensor<4x4xf64>
  %id = stablehlo.constant dense<[[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]> : tensor<4x4xf64>
  check.expect_almost_eq %vv, %id : tensor<4x4xf64>
  func.return
}

// -----

func.func @gesdd_values_only_batched() {
  %a = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[0.0, 2.0], [0.0, 0.0]]]> : tensor<2x2x2xf32>
  %0:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%a) {mhlo.backend_config = {mode = 78 : ui8}, api_version = 4 : i32} : (tensor<2x2x2xf32>) -> (tensor<2x2x2xf32>, tensor<2x2xf32>, tensor<2x2x2xf32>, tensor<2x2x2xf32>, tensor<2xi32>)
  check.expect_almost_eq_const %0#1, dense<[[5.46498585, 0.365966201], [2.0, 0.0]]> : tensor<2x2xf32>
  func.return
}

// -----

func.func @gesdd_rank_deficient_orthonormal_u() {
  %a = stablehlo.constant dense<[[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]> : tensor<3x2xf32>
  %0:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%a) {mhlo.backend_config = {mode = 83 : ui8}, api_version = 4 : i32} : (tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<2xf32>, tensor<3x2xf32>, tensor<2x2xf32>, tensor<i32>)
  check.expect_almost_eq_const %0#1, dense<[2.44948983, 0.0]> : tensor<2xf32>
  %uu = stablehlo.dot_general %0#2, %0#2, contracting_dims = [0] x [0] : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  check.expect_almost_eq_const %uu, dense<[[1.0, 0.0], [0.0, 1.0]]> : tensor<2x2xf32>
  func.return
}

// -----

// A dynamic batch (jnp.linalg.svd under vmap in a shape-polymorphic
// export): the same factors as the static batch gives, bit for bit.
func.func @gesdd_dynamic_batch() {
  %s = stablehlo.constant dense<[[[3.0, 1.0], [1.0, 3.0], [0.0, 2.0]], [[1.0, 0.0], [0.0, -2.0], [0.0, 0.0]]]> : tensor<2x3x2xf32>
  %shape = stablehlo.constant dense<[2, 3, 2]> : tensor<3xi64>
  %a = stablehlo.dynamic_reshape %s, %shape : (tensor<2x3x2xf32>, tensor<3xi64>) -> tensor<?x3x2xf32>
  %0:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%a) {mhlo.backend_config = {mode = 83 : ui8}, api_version = 4 : i32} : (tensor<?x3x2xf32>) -> (tensor<?x3x2xf32>, tensor<?x2xf32>, tensor<?x3x2xf32>, tensor<?x2x2xf32>, tensor<?xi32>)
  %1:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%s) {mhlo.backend_config = {mode = 83 : ui8}, api_version = 4 : i32} : (tensor<2x3x2xf32>) -> (tensor<2x3x2xf32>, tensor<2x2xf32>, tensor<2x3x2xf32>, tensor<2x2x2xf32>, tensor<2xi32>)
  %sshape = stablehlo.constant dense<[2, 2]> : tensor<2xi64>
  %vshape = stablehlo.constant dense<[2, 2, 2]> : tensor<3xi64>
  %sv = stablehlo.dynamic_reshape %1#1, %sshape : (tensor<2x2xf32>, tensor<2xi64>) -> tensor<?x2xf32>
  %u = stablehlo.dynamic_reshape %1#2, %shape : (tensor<2x3x2xf32>, tensor<3xi64>) -> tensor<?x3x2xf32>
  %vt = stablehlo.dynamic_reshape %1#3, %vshape : (tensor<2x2x2xf32>, tensor<3xi64>) -> tensor<?x2x2xf32>
  check.expect_eq %0#1, %sv : tensor<?x2xf32>
  check.expect_eq %0#2, %u : tensor<?x3x2xf32>
  check.expect_eq %0#3, %vt : tensor<?x2x2xf32>
  check.expect_almost_eq_const %0#1, dense<[[4.280719, 2.3823192], [2.0, 1.0]]> : tensor<2x2xf32>
  check.expect_eq_const %0#4, dense<0> : tensor<2xi32>
  func.return
}
