// Ops that exports carry as custom calls (compiler/passes/legalize_mhlo_calls.cc):
// CHLO's legalization leaves chlo.top_k in a portable artifact as
// @mhlo.topk, MHLO's round trip erf as @mhlo.erf, and JAX under shape
// polymorphism writes top_k as @stablehlo.dynamic_top_k, a reduce_window
// with a symbolic result dimension as @stablehlo.dynamic_reduce_window and
// rng_bit_generator as @stablehlo.dynamic_rng_bit_generator
// (tests/jax_exports.cmake).
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

// -----

func.func private @max_body(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.maximum %a, %b : tensor<f32>
  return %0 : tensor<f32>
}
func.func @dynamic_reduce_window_max_pool_padded() {
  %c = stablehlo.constant dense<[[1.0, 5.0, 2.0, 0.0, 3.0], [-1.0, -2.0, 9.0, 4.0, 7.0]]> : tensor<2x5xf32>
  %s = stablehlo.constant dense<[2, 5]> : tensor<2xi64>
  %x = stablehlo.dynamic_reshape %c, %s : (tensor<2x5xf32>, tensor<2xi64>) -> tensor<?x5xf32>
  %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %wd = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %ws = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %bd = stablehlo.constant dense<1> : tensor<2xi64>
  %wdil = stablehlo.constant dense<1> : tensor<2xi64>
  %pad = stablehlo.constant dense<[[0, 0], [0, 1]]> : tensor<2x2xi64>
  %0 = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%x, %init, %wd, %ws, %bd, %wdil, %pad) {called_computations = [@max_body]} : (tensor<?x5xf32>, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2x2xi64>) -> tensor<?x3xf32>
  %o = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
  %r = stablehlo.dynamic_reshape %0, %o : (tensor<?x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  check.expect_eq_const %r, dense<[[5.0, 2.0, 3.0], [-1.0, 9.0, 7.0]]> : tensor<2x3xf32>
  func.return
}

// -----

func.func private @argmax_body(%a: tensor<f32>, %ai: tensor<i32>, %b: tensor<f32>, %bi: tensor<i32>) -> (tensor<f32>, tensor<i32>) {
  %gt = stablehlo.compare GE, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %v = stablehlo.select %gt, %a, %b : tensor<i1>, tensor<f32>
  %i = stablehlo.select %gt, %ai, %bi : tensor<i1>, tensor<i32>
  return %v, %i : tensor<f32>, tensor<i32>
}
func.func @dynamic_reduce_window_variadic() {
  %c = stablehlo.constant dense<[3.0, 8.0, 1.0, 6.0]> : tensor<4xf32>
  %s = stablehlo.constant dense<[4]> : tensor<1xi64>
  %x = stablehlo.dynamic_reshape %c, %s : (tensor<4xf32>, tensor<1xi64>) -> tensor<?xf32>
  %ii = stablehlo.constant dense<[0, 1, 2, 3]> : tensor<4xi32>
  %i = stablehlo.dynamic_reshape %ii, %s : (tensor<4xi32>, tensor<1xi64>) -> tensor<?xi32>
  %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %initi = stablehlo.constant dense<-1> : tensor<i32>
  %wd = stablehlo.constant dense<[2]> : tensor<1xi64>
  %ws = stablehlo.constant dense<[1]> : tensor<1xi64>
  %bd = stablehlo.constant dense<[1]> : tensor<1xi64>
  %wdil = stablehlo.constant dense<[1]> : tensor<1xi64>
  %pad = stablehlo.constant dense<[[0, 0]]> : tensor<1x2xi64>
  %0:2 = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%x, %i, %init, %initi, %wd, %ws, %bd, %wdil, %pad) {called_computations = [@argmax_body]} : (tensor<?xf32>, tensor<?xi32>, tensor<f32>, tensor<i32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1x2xi64>) -> (tensor<?xf32>, tensor<?xi32>)
  %o = stablehlo.constant dense<[3]> : tensor<1xi64>
  %v = stablehlo.dynamic_reshape %0#0, %o : (tensor<?xf32>, tensor<1xi64>) -> tensor<3xf32>
  %k = stablehlo.dynamic_reshape %0#1, %o : (tensor<?xi32>, tensor<1xi64>) -> tensor<3xi32>
  check.expect_eq_const %v, dense<[8.0, 8.0, 6.0]> : tensor<3xf32>
  check.expect_eq_const %k, dense<[1, 1, 3]> : tensor<3xi32>
  func.return
}

// -----

// rng_bit_generator with a symbolic output dimension (JAX's rbg PRNGs
// under shape polymorphism), the shape refined to a constant: the bits of
// stablehlo.rng_bit_generator itself, for a dynamic and a static result.
func.func @dynamic_rng_bit_generator_constant_shape() {
  %s = stablehlo.constant dense<[42, 7]> : tensor<2xui64>
  %shape = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
  %0:2 = stablehlo.custom_call @stablehlo.dynamic_rng_bit_generator(%s, %shape) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>, tensor<2xi64>) -> (tensor<2xui64>, tensor<?x4xui32>)
  %1:2 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3x4xui32>)
  %c = stablehlo.convert %0#1 : (tensor<?x4xui32>) -> tensor<3x4xui32>
  check.expect_eq %c, %1#1 : tensor<3x4xui32>
  check.expect_eq %0#0, %1#0 : tensor<2xui64>
  %p = stablehlo.constant dense<[5]> : tensor<1xi32>
  %2:2 = stablehlo.custom_call @stablehlo.dynamic_rng_bit_generator(%s, %p) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<2xui64>, tensor<1xi32>) -> (tensor<2xui64>, tensor<5xui64>)
  %3:2 = stablehlo.rng_bit_generator %s, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<5xui64>)
  check.expect_eq %2#1, %3#1 : tensor<5xui64>
  func.return
}
