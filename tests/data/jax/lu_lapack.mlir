// jnp.linalg.lu_factor / solve / inv / det as JAX lowers them on the CPU:
// LAPACK's getrf through XLA's FFI (@lapack_?getrf_ffi): (a) -> (lu, ipiv,
// info) with partial pivoting, ipiv 1-based, info 0 or the first step whose
// pivot is exactly zero (tests/jax_exports.cmake). Values worked by hand.
func.func @getrf_f32_pivots() {
  %a = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %0:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%a) {mhlo.backend_config = {}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>], api_version = 4 : i32} : (tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2xi32>, tensor<i32>)
  // Row 2 has the larger first entry: U = [[3, 4], [0, 2 - 4/3]], L21 = 1/3.
  check.expect_almost_eq_const %0#0, dense<[[3.0, 4.0], [0.333333343, 0.666666627]]> : tensor<2x2xf32>
  check.expect_eq_const %0#1, dense<[2, 2]> : tensor<2xi32>
  check.expect_eq_const %0#2, dense<0> : tensor<i32>
  func.return
}

// -----

func.func @getrf_f64_batched_rectangular_and_singular() {
  %a = stablehlo.constant dense<[[[2.0, 1.0, 1.0], [4.0, -6.0, 0.0]], [[0.0, 0.0, 1.0], [0.0, 0.0, 2.0]]]> : tensor<2x2x3xf64>
  %0:3 = stablehlo.custom_call @lapack_dgetrf_ffi(%a) {mhlo.backend_config = {}, api_version = 4 : i32} : (tensor<2x2x3xf64>) -> (tensor<2x2x3xf64>, tensor<2x2xi32>, tensor<2xi32>)
  // Matrix 0: pivot 4 (row 2), L21 = 0.5, U row 2 = [1, 1] - 0.5 [-6, 0] = [4, 1].
  // Matrix 1: a zero first column: info 1, no swap; the second pivot is zero too.
  check.expect_almost_eq_const %0#0, dense<[[[4.0, -6.0, 0.0], [0.5, 4.0, 1.0]], [[0.0, 0.0, 1.0], [0.0, 0.0, 2.0]]]> : tensor<2x2x3xf64>
  check.expect_eq_const %0#1, dense<[[2, 2], [1, 2]]> : tensor<2x2xi32>
  check.expect_eq_const %0#2, dense<[0, 1]> : tensor<2xi32>
  func.return
}

// -----

func.func @getrf_tall_f32() {
  %a = stablehlo.constant dense<[[1.0, 1.0], [2.0, 4.0], [-4.0, 2.0]]> : tensor<3x2xf32>
  %0:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%a) {mhlo.backend_config = {}, api_version = 4 : i32} : (tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<2xi32>, tensor<i32>)
  // Step 1: pivot -4 (row 3), rows 1 and 3 swap: [[-4, 2], [2, 4], [1, 1]];
  // column below scaled by -1/4: [-0.5, -0.25]; trailing: 4 + 0.5 * 2 = 5,
  // 1 + 0.25 * 2 = 1.5. Step 2: pivot 5 (row 2), 1.5 / 5 = 0.3.
  check.expect_almost_eq_const %0#0, dense<[[-4.0, 2.0], [-0.5, 5.0], [-0.25, 0.3]]> : tensor<3x2xf32>
  check.expect_eq_const %0#1, dense<[3, 2]> : tensor<2xi32>
  check.expect_eq_const %0#2, dense<0> : tensor<i32>
  func.return
}

// -----

func.func @getrf_complex() {
  %a = stablehlo.constant dense<[[(1.0, 1.0), (2.0, 0.0)], [(0.0, 4.0), (1.0, -1.0)]]> : tensor<2x2xcomplex<f32>>
  %0:3 = stablehlo.custom_call @lapack_cgetrf_ffi(%a) {mhlo.backend_config = {}, api_version = 4 : i32} : (tensor<2x2xcomplex<f32>>) -> (tensor<2x2xcomplex<f32>>, tensor<2xi32>, tensor<i32>)
  // |re| + |im|: 2 against 4, so row 2 pivots. L21 = (1 + i) / 4i = (1 - i) / 4 = (0.25, -0.25);
  // U22 = 2 - (0.25 - 0.25i)(1 - i) = 2 - (0.25 - 0.5i - 0.25) = 2 + 0.5i.
  check.expect_almost_eq_const %0#0, dense<[[(0.0, 4.0), (1.0, -1.0)], [(0.25, -0.25), (2.0, 0.5)]]> : tensor<2x2xcomplex<f32>>
  check.expect_eq_const %0#1, dense<[2, 2]> : tensor<2xi32>
  check.expect_eq_const %0#2, dense<0> : tensor<i32>
  func.return
}

// -----

// Under vmap in a shape-polymorphic export the batch is symbolic: kiln.lu
// takes its batch from the operand at run time (each matrix static).
func.func @getrf_dynamic_batch() {
  %s = stablehlo.constant dense<[[[2.0, 1.0, 1.0], [4.0, -6.0, 0.0]], [[0.0, 0.0, 1.0], [0.0, 0.0, 2.0]]]> : tensor<2x2x3xf64>
  %shape = stablehlo.constant dense<[2, 2, 3]> : tensor<3xi64>
  %a = stablehlo.dynamic_reshape %s, %shape : (tensor<2x2x3xf64>, tensor<3xi64>) -> tensor<?x2x3xf64>
  %0:3 = stablehlo.custom_call @lapack_dgetrf_ffi(%a) {mhlo.backend_config = {}, api_version = 4 : i32} : (tensor<?x2x3xf64>) -> (tensor<?x2x3xf64>, tensor<?x2xi32>, tensor<?xi32>)
  check.expect_almost_eq_const %0#0, dense<[[[4.0, -6.0, 0.0], [0.5, 4.0, 1.0]], [[0.0, 0.0, 1.0], [0.0, 0.0, 2.0]]]> : tensor<2x2x3xf64>
  check.expect_eq_const %0#1, dense<[[2, 2], [1, 2]]> : tensor<2x2xi32>
  check.expect_eq_const %0#2, dense<[0, 1]> : tensor<2xi32>
  func.return
}
