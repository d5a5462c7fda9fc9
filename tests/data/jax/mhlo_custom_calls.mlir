// MHLO's ops as StableHLO carries them (compiler/passes/legalize_mhlo_calls.cc):
// CHLO's legalization leaves chlo.top_k in a portable artifact as
// @mhlo.topk, MHLO's round trip erf as @mhlo.erf, and JAX's top_k under
// shape polymorphism is @stablehlo.dynamic_top_k (tests/jax_exports.cmake).
func.func @mhlo_topk_rows() {
  %x = stablehlo.constant dense<[[1.0, 5.0, 2.0, 5.0, 3.0], [-9.0, 8.0, 7.5, 0.0, -1.0]]> : tensor<2x5xf32>
  %0:2 = stablehlo.custom_call @mhlo.topk(%x) {mhlo.attributes = {k = 3 : i64, largest = true}, mhlo.version = 1 : i64} : (tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
  check.expect_eq_const %0#0, dense<[[5.0, 5.0, 3.0], [8.0, 7.5, 0.0]]> : tensor<2x3xf32>
  check.expect_eq_const %0#1, dense<[[1, 3, 4], [1, 2, 3]]> : tensor<2x3xi32>
  func.return
}

// -----

func.func @mhlo_topk_integers_batched() {
  %x = stablehlo.constant dense<[[[4, -2, 7, 0]], [[3, 3, -5, 10]]]> : tensor<2x1x4xi32>
  %0:2 = stablehlo.custom_call @mhlo.topk(%x) {mhlo.attributes = {k = 2 : i64}, mhlo.version = 1 : i64} : (tensor<2x1x4xi32>) -> (tensor<2x1x2xi32>, tensor<2x1x2xi32>)
  check.expect_eq_const %0#0, dense<[[[7, 4]], [[10, 3]]]> : tensor<2x1x2xi32>
  check.expect_eq_const %0#1, dense<[[[2, 0]], [[3, 0]]]> : tensor<2x1x2xi32>
  func.return
}

// -----

func.func @dynamic_top_k_constant_k() {
  %x = stablehlo.constant dense<[0.5, -1.0, 2.5, 2.0]> : tensor<4xf64>
  %k = stablehlo.constant dense<2> : tensor<i64>
  %0:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%x, %k) : (tensor<4xf64>, tensor<i64>) -> (tensor<2xf64>, tensor<2xi32>)
  check.expect_eq_const %0#0, dense<[2.5, 2.0]> : tensor<2xf64>
  check.expect_eq_const %0#1, dense<[2, 3]> : tensor<2xi32>
  func.return
}

// -----

func.func @mhlo_erf() {
  %x = stablehlo.constant dense<[0.0, 0.5, -1.0, 3.0]> : tensor<4xf32>
  %0 = stablehlo.custom_call @mhlo.erf(%x) {mhlo.attributes = {}, mhlo.version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  check.expect_almost_eq_const %0, dense<[0.0, 0.520499877, -0.842700793, 0.999977910]> : tensor<4xf32>
  func.return
}
