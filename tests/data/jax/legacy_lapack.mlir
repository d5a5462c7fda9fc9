// JAX's LAPACK and BLAS calls as jaxlib emitted them before XLA's typed FFI
// (the StableHLO repository's testdata and jax.export artifacts of jaxlib
// 0.4.31 and earlier): targets without the _ffi suffix, api_version 2, the
// dims, workspace sizes and flags as leading rank-0 integer operands, the
// results as one tuple or as several (compiler/passes/legacy_linalg_calls.cc,
// tests/jax_exports.cmake). Values worked by hand or, where noted, from
// numpy (LAPACK).

// potrf (lower, batch, n, a) -> tuple<a, info>; the upper triangle keeps a's.
func.func @potrf_tuple() {
  %a = stablehlo.constant dense<[[4.0, 2.0], [2.0, 3.0]]> : tensor<2x2xf32>
  %lower = stablehlo.constant dense<1> : tensor<i32>
  %b = stablehlo.constant dense<1> : tensor<i32>
  %n = stablehlo.constant dense<2> : tensor<i32>
  %0 = stablehlo.custom_call @lapack_spotrf(%lower, %b, %n, %a) {api_version = 2 : i32, operand_layouts = [dense<> : tensor<0xindex>, dense<> : tensor<0xindex>, dense<> : tensor<0xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 3, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<2x2xf32>) -> tuple<tensor<2x2xf32>, tensor<i32>>
  %l = stablehlo.get_tuple_element %0[0] : (tuple<tensor<2x2xf32>, tensor<i32>>) -> tensor<2x2xf32>
  %info = stablehlo.get_tuple_element %0[1] : (tuple<tensor<2x2xf32>, tensor<i32>>) -> tensor<i32>
  check.expect_almost_eq_const %l, dense<[[2.0, 2.0], [1.0, 1.41421356]]> : tensor<2x2xf32>
  check.expect_eq_const %info, dense<0> : tensor<i32>
  func.return
}

// -----

// getrf (batch, m, n, a) with an i64 batch, several results; then the form
// jaxlib emitted between the two (the FFI's operands under the old name).
func.func @getrf_results_and_ffi_operands_under_the_old_name() {
  %a = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf64>
  %b = stablehlo.constant dense<1> : tensor<i64>
  %m = stablehlo.constant dense<2> : tensor<i32>
  %n = stablehlo.constant dense<2> : tensor<i32>
  %0:3 = stablehlo.custom_call @lapack_dgetrf(%b, %m, %n, %a) {api_version = 2 : i32} : (tensor<i64>, tensor<i32>, tensor<i32>, tensor<2x2xf64>) -> (tensor<2x2xf64>, tensor<2xi32>, tensor<i32>)
  check.expect_almost_eq_const %0#0, dense<[[3.0, 4.0], [0.33333333333333333, 0.66666666666666667]]> : tensor<2x2xf64>
  check.expect_eq_const %0#1, dense<[2, 2]> : tensor<2xi32>
  check.expect_eq_const %0#2, dense<0> : tensor<i32>
  %1:3 = stablehlo.custom_call @lapack_dgetrf(%a) {mhlo.backend_config = {}, api_version = 4 : i32} : (tensor<2x2xf64>) -> (tensor<2x2xf64>, tensor<2xi32>, tensor<i32>)
  check.expect_almost_eq_const %1#0, dense<[[3.0, 4.0], [0.33333333333333333, 0.66666666666666667]]> : tensor<2x2xf64>
  check.expect_eq_const %1#1, dense<[2, 2]> : tensor<2xi32>
  func.return
}

// -----

// geqrf (batch, m, n, lwork, a) -> tuple<a, tau, info, work>, then orgqr
// (batch, m, n, k, lwork, a, tau) -> tuple<q, info, work>.
func.func @geqrf_orgqr_tuples() {
  %a = stablehlo.constant dense<[[3.0, 1.0], [4.0, 2.0]]> : tensor<2x2xf32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %two = stablehlo.constant dense<2> : tensor<i32>
  %lwork = stablehlo.constant dense<64> : tensor<i32>
  %0 = stablehlo.custom_call @lapack_sgeqrf(%one, %two, %two, %lwork, %a) {api_version = 2 : i32} : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<2x2xf32>) -> tuple<tensor<2x2xf32>, tensor<2xf32>, tensor<i32>, tensor<64xf32>>
  %r = stablehlo.get_tuple_element %0[0] : (tuple<tensor<2x2xf32>, tensor<2xf32>, tensor<i32>, tensor<64xf32>>) -> tensor<2x2xf32>
  %tau = stablehlo.get_tuple_element %0[1] : (tuple<tensor<2x2xf32>, tensor<2xf32>, tensor<i32>, tensor<64xf32>>) -> tensor<2xf32>
  check.expect_almost_eq_const %r, dense<[[-5.0, -2.2], [0.5, 0.4]]> : tensor<2x2xf32>
  check.expect_almost_eq_const %tau, dense<[1.6, 0.0]> : tensor<2xf32>
  %1 = stablehlo.custom_call @lapack_sorgqr(%one, %two, %two, %two, %lwork, %r, %tau) {api_version = 2 : i32} : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<2x2xf32>, tensor<2xf32>) -> tuple<tensor<2x2xf32>, tensor<i32>, tensor<64xf32>>
  %q = stablehlo.get_tuple_element %1[0] : (tuple<tensor<2x2xf32>, tensor<i32>, tensor<64xf32>>) -> tensor<2x2xf32>
  check.expect_almost_eq_const %q, dense<[[-0.6, -0.8], [-0.8, 0.6]]> : tensor<2x2xf32>
  func.return
}

// -----

// syevd (lower, batch, n, a) -> tuple<v, w, info, work, iwork>: the legacy
// form always computes the vectors.
func.func @syevd_tuple() {
  %a = stablehlo.constant dense<[[2.0, 99.0, 99.0], [1.0, 2.0, 99.0], [0.0, 1.0, 2.0]]> : tensor<3x3xf32>
  %lower = stablehlo.constant dense<1> : tensor<i32>
  %b = stablehlo.constant dense<1> : tensor<i32>
  %n = stablehlo.constant dense<3> : tensor<i32>
  %0 = stablehlo.custom_call @lapack_ssyevd(%lower, %b, %n, %a) {api_version = 2 : i32} : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<3x3xf32>) -> tuple<tensor<3x3xf32>, tensor<3xf32>, tensor<i32>, tensor<34xf32>, tensor<18xi32>>
  %v = stablehlo.get_tuple_element %0[0] : (tuple<tensor<3x3xf32>, tensor<3xf32>, tensor<i32>, tensor<34xf32>, tensor<18xi32>>) -> tensor<3x3xf32>
  %w = stablehlo.get_tuple_element %0[1] : (tuple<tensor<3x3xf32>, tensor<3xf32>, tensor<i32>, tensor<34xf32>, tensor<18xi32>>) -> tensor<3xf32>
  // 2 - sqrt(2), 2, 2 + sqrt(2); v diag(w) v^T rebuilds the matrix.
  check.expect_almost_eq_const %w, dense<[0.585786462, 2.0, 3.41421366]> : tensor<3xf32>
  %wb = stablehlo.broadcast_in_dim %w, dims = [1] : (tensor<3xf32>) -> tensor<3x3xf32>
  %vw = stablehlo.multiply %v, %wb : tensor<3x3xf32>
  %r = stablehlo.dot_general %vw, %v, contracting_dims = [1] x [1] : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  check.expect_almost_eq_const %r, dense<[[2.0, 1.0, 0.0], [1.0, 2.0, 1.0], [0.0, 1.0, 2.0]]> : tensor<3x3xf32>
  func.return
}

// -----

// heevd (lower, batch, n, a) -> (v, w, info, work, rwork, iwork), w real;
// eigenvalues from numpy.linalg.eigvalsh.
func.func @heevd_results() {
  %a = stablehlo.constant dense<[[(2.0, 0.0), (9.0, 9.0), (9.0, 9.0)], [(1.0, 1.0), (3.0, 0.0), (9.0, 9.0)], [(0.0, -2.0), (0.5, 0.5), (1.0, 0.0)]]> : tensor<3x3xcomplex<f32>>
  %lower = stablehlo.constant dense<1> : tensor<i32>
  %b = stablehlo.constant dense<1> : tensor<i32>
  %n = stablehlo.constant dense<3> : tensor<i32>
  %0:6 = stablehlo.custom_call @lapack_cheevd(%lower, %b, %n, %a) {api_version = 2 : i32} : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<3x3xcomplex<f32>>) -> (tensor<3x3xcomplex<f32>>, tensor<3xf32>, tensor<i32>, tensor<27xcomplex<f32>>, tensor<40xf32>, tensor<18xi32>)
  check.expect_almost_eq_const %0#1, dense<[-1.07435061, 2.89586707, 4.17848354]> : tensor<3xf32>
  check.expect_eq_const %0#2, dense<0> : tensor<i32>
  func.return
}

// -----

// gesdd (full_matrices, compute_uv, batch, m, n, lwork, a) -> (a, s, u,
// vt, info, iwork, work): full_matrices 0 asks for the thin factors;
// singular values from numpy.linalg.svd.
func.func @gesdd_results_thin() {
  %a = stablehlo.constant dense<[[3.0, 1.0], [-1.0, 4.0], [2.0, 0.5]]> : tensor<3x2xf64>
  %full = stablehlo.constant dense<0> : tensor<i32>
  %uv = stablehlo.constant dense<1> : tensor<i32>
  %b = stablehlo.constant dense<1> : tensor<i32>
  %m = stablehlo.constant dense<3> : tensor<i32>
  %n = stablehlo.constant dense<2> : tensor<i32>
  %lwork = stablehlo.constant dense<100> : tensor<i32>
  %0:7 = stablehlo.custom_call @lapack_dgesdd(%full, %uv, %b, %m, %n, %lwork, %a) {api_version = 2 : i32} : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<3x2xf64>) -> (tensor<3x2xf64>, tensor<2xf64>, tensor<3x2xf64>, tensor<2x2xf64>, tensor<i32>, tensor<16xi32>, tensor<100xf64>)
  check.expect_almost_eq_const %0#1, dense<[4.15331193, 3.74165739]> : tensor<2xf64>
  %s = stablehlo.broadcast_in_dim %0#1, dims = [1] : (tensor<2xf64>) -> tensor<3x2xf64>
  %us = stablehlo.multiply %0#2, %s : tensor<3x2xf64>
  %r = stablehlo.dot_general %us, %0#3, contracting_dims = [1] x [0] : (tensor<3x2xf64>, tensor<2x2xf64>) -> tensor<3x2xf64>
  check.expect_almost_eq %r, %a : tensor<3x2xf64>
  check.expect_eq_const %0#4, dense<0> : tensor<i32>
  func.return
}

// -----

// trsm (left_side, lower, trans, unit_diagonal, m, n, batch, alpha, a, b)
// -> b: solves L x = alpha b, L = [[2, 0], [1, 4]], alpha 2, b = (1, 4.5),
// x = (1, 2); then x^T L^T ... as x L^T = alpha b (right side, trans 1).
func.func @trsm_left_and_right() {
  %l = stablehlo.constant dense<[[2.0, 99.0], [1.0, 4.0]]> : tensor<2x2xf32>
  %bl = stablehlo.constant dense<[[1.0], [4.5]]> : tensor<2x1xf32>
  %alpha = stablehlo.constant dense<2.0> : tensor<f32>
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %c2 = stablehlo.constant dense<2> : tensor<i32>
  %0 = stablehlo.custom_call @blas_strsm(%c1, %c1, %c0, %c0, %c2, %c1, %c1, %alpha, %l, %bl) {api_version = 2 : i32} : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  check.expect_almost_eq_const %0, dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  // x L^T = alpha b with x = (1, 2): x L^T = (2, 9), so b = (1, 4.5).
  %br = stablehlo.constant dense<[[1.0, 4.5]]> : tensor<1x2xf32>
  %1 = stablehlo.custom_call @blas_strsm(%c0, %c1, %c1, %c0, %c1, %c2, %c1, %alpha, %l, %br) {api_version = 2 : i32} : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<2x2xf32>, tensor<1x2xf32>) -> tensor<1x2xf32>
  check.expect_almost_eq_const %1, dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  func.return
}
