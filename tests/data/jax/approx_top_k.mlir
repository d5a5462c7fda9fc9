// jax.lax.approx_max_k / approx_min_k as JAX lowers them on the CPU: XLA's
// @ApproxTopK with is_fallback, run as XLA's fallback (a sort by the
// comparator along reduction_dim, then the leading entries;
// compiler/passes/legalize_mhlo_calls.cc, tests/jax_exports.cmake).
func.func private @top_k_gt_f32_comparator(%arg0: tensor<f32>, %arg1: tensor<f32>, %arg2: tensor<i32>, %arg3: tensor<i32>) -> tensor<i1> {
  %0 = stablehlo.compare  GT, %arg0, %arg1 : (tensor<f32>, tensor<f32>) -> tensor<i1>
  return %0 : tensor<i1>
}
func.func @approx_max_k_rows() {
  %x = stablehlo.constant dense<[[0.5, 3.0, -1.0, 2.0, 7.0], [1.0, 1.0, 4.0, -2.0, 0.0]]> : tensor<2x5xf32>
  %iota = stablehlo.iota dim = 1 : tensor<2x5xi32>
  %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %arg = stablehlo.constant dense<-1> : tensor<i32>
  %0:2 = stablehlo.custom_call @ApproxTopK(%x, %iota, %init, %arg) {api_version = 4 : i32, called_computations = [@top_k_gt_f32_comparator], mhlo.backend_config = {aggregate_to_topk = true, is_fallback = true, recall_target = 0.949999988 : f32, reduction_dim = 1 : i64, reduction_input_size_override = -1 : i64, top_k = 2 : i64}} : (tensor<2x5xf32>, tensor<2x5xi32>, tensor<f32>, tensor<i32>) -> (tensor<2x2xf32>, tensor<2x2xi32>)
  check.expect_eq_const %0#0, dense<[[7.0, 3.0], [4.0, 1.0]]> : tensor<2x2xf32>
  check.expect_eq_const %0#1, dense<[[4, 1], [2, 0]]> : tensor<2x2xi32>
  func.return
}

// -----

func.func private @top_k_lt_f64_comparator(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<i32>, %arg3: tensor<i32>) -> tensor<i1> {
  %0 = stablehlo.compare  LT, %arg0, %arg1 : (tensor<f64>, tensor<f64>) -> tensor<i1>
  return %0 : tensor<i1>
}
func.func @approx_min_k_first_dimension() {
  %x = stablehlo.constant dense<[[3.0, -1.0], [0.5, 2.0], [-4.0, 8.0]]> : tensor<3x2xf64>
  %iota = stablehlo.iota dim = 0 : tensor<3x2xi32>
  %init = stablehlo.constant dense<0x7FF0000000000000> : tensor<f64>
  %arg = stablehlo.constant dense<-1> : tensor<i32>
  %0:2 = stablehlo.custom_call @ApproxTopK(%x, %iota, %init, %arg) {api_version = 4 : i32, called_computations = [@top_k_lt_f64_comparator], mhlo.backend_config = {aggregate_to_topk = true, is_fallback = true, recall_target = 0.949999988 : f32, reduction_dim = 0 : i64, reduction_input_size_override = -1 : i64, top_k = 2 : i64}} : (tensor<3x2xf64>, tensor<3x2xi32>, tensor<f64>, tensor<i32>) -> (tensor<2x2xf64>, tensor<2x2xi32>)
  check.expect_eq_const %0#0, dense<[[-4.0, -1.0], [0.5, 2.0]]> : tensor<2x2xf64>
  check.expect_eq_const %0#1, dense<[[2, 0], [1, 1]]> : tensor<2x2xi32>
  func.return
}

// -----

func.func private @top_k_gt_f32_comparator(%arg0: tensor<f32>, %arg1: tensor<f32>, %arg2: tensor<i32>, %arg3: tensor<i32>) -> tensor<i1> {
  %0 = stablehlo.compare  GT, %arg0, %arg1 : (tensor<f32>, tensor<f32>) -> tensor<i1>
  return %0 : tensor<i1>
}
func.func @approx_max_k_whole_dimension_unsorted() {
  %x = stablehlo.constant dense<[2.0, 9.0, -3.0]> : tensor<3xf32>
  %iota = stablehlo.iota dim = 0 : tensor<3xi32>
  %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %arg = stablehlo.constant dense<-1> : tensor<i32>
  %0:2 = stablehlo.custom_call @ApproxTopK(%x, %iota, %init, %arg) {api_version = 4 : i32, called_computations = [@top_k_gt_f32_comparator], mhlo.backend_config = {aggregate_to_topk = false, is_fallback = true, recall_target = 0.949999988 : f32, reduction_dim = 0 : i64, reduction_input_size_override = -1 : i64, top_k = 1 : i64}} : (tensor<3xf32>, tensor<3xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)
  check.expect_eq_const %0#0, dense<[2.0, 9.0, -3.0]> : tensor<3xf32>
  check.expect_eq_const %0#1, dense<[0, 1, 2]> : tensor<3xi32>
  func.return
}
