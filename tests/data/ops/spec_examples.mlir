// The spec's examples of ops that the shared conformance suite does not
// exercise, with the spec's results as checks (tests/e2e/spec_ops_test.cc).

func.func @batch_norm_grad() {
  %operand = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[3.0, 4.0], [1.0, 2.0]]]> : tensor<2x2x2xf64>
  %scale = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf64>
  %mean = stablehlo.constant dense<[2.0, 3.0]> : tensor<2xf64>
  %variance = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf64>
  %grad_output = stablehlo.constant dense<0.1> : tensor<2x2x2xf64>
  %grad_operand, %grad_scale, %grad_offset = "stablehlo.batch_norm_grad"(%operand, %scale, %mean, %variance, %grad_output) {
    epsilon = 0.0 : f32, feature_index = 2 : i64
  } : (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2x2x2xf64>) -> (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>)
  check.expect_almost_eq_const %grad_operand, dense<0.0> : tensor<2x2x2xf64>
  check.expect_almost_eq_const %grad_scale, dense<[0.0, 0.0]> : tensor<2xf64>
  check.expect_almost_eq_const %grad_offset, dense<[0.4, 0.4]> : tensor<2xf64>
  func.return
}

// -----

func.func @batch_norm_inference() {
  %operand = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[3.0, 4.0], [1.0, 2.0]]]> : tensor<2x2x2xf64>
  %scale = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf64>
  %offset = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf64>
  %mean = stablehlo.constant dense<[2.0, 3.0]> : tensor<2xf64>
  %variance = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf64>
  %result = "stablehlo.batch_norm_inference"(%operand, %scale, %offset, %mean, %variance) {
    epsilon = 0.0 : f32, feature_index = 2 : i64
  } : (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) -> tensor<2x2x2xf64>
  check.expect_almost_eq_const %result, dense<[[[0.0, 0.0], [2.0, 2.0]], [[2.0, 2.0], [0.0, 0.0]]]> : tensor<2x2x2xf64>
  func.return
}

// -----

func.func @batch_norm_training() {
  %operand = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[3.0, 4.0], [1.0, 2.0]]]> : tensor<2x2x2xf64>
  %scale = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf64>
  %offset = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf64>
  %output, %batch_mean, %batch_var = "stablehlo.batch_norm_training"(%operand, %scale, %offset) {
    epsilon = 0.0 : f32, feature_index = 2 : i64
  } : (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>) -> (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>)
  check.expect_almost_eq_const %output, dense<[[[0.0, 0.0], [2.0, 2.0]], [[2.0, 2.0], [0.0, 0.0]]]> : tensor<2x2x2xf64>
  check.expect_almost_eq_const %batch_mean, dense<[2.0, 3.0]> : tensor<2xf64>
  check.expect_almost_eq_const %batch_var, dense<[1.0, 1.0]> : tensor<2xf64>
  func.return
}

// -----

func.func @cholesky() {
  %a = stablehlo.constant dense<[[1.0, 2.0, 3.0], [2.0, 20.0, 26.0], [3.0, 26.0, 70.0]]> : tensor<3x3xf32>
  %result = "stablehlo.cholesky"(%a) {lower = true} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  // Only the lower triangle is specified: mask the rest before comparing.
  %row = stablehlo.iota dim = 0 : tensor<3x3xi32>
  %col = stablehlo.iota dim = 1 : tensor<3x3xi32>
  %lower = stablehlo.compare GE, %row, %col, SIGNED : (tensor<3x3xi32>, tensor<3x3xi32>) -> tensor<3x3xi1>
  %zero = stablehlo.constant dense<0.0> : tensor<3x3xf32>
  %masked = stablehlo.select %lower, %result, %zero : tensor<3x3xi1>, tensor<3x3xf32>
  check.expect_almost_eq_const %masked, dense<[[1.0, 0.0, 0.0], [2.0, 4.0, 0.0], [3.0, 5.0, 6.0]]> : tensor<3x3xf32>
  func.return
}

// -----

func.func @rng_uniform_in_range() {
  %a = stablehlo.constant dense<0> : tensor<i32>
  %b = stablehlo.constant dense<2> : tensor<i32>
  %shape = stablehlo.constant dense<[3, 3]> : tensor<2xi64>
  %result = "stablehlo.rng"(%a, %b, %shape) {
    rng_distribution = #stablehlo<rng_distribution UNIFORM>
  } : (tensor<i32>, tensor<i32>, tensor<2xi64>) -> tensor<3x3xi32>
  // The values are implementation-defined; the range [a, b) is not.
  %lo = stablehlo.constant dense<0> : tensor<3x3xi32>
  %hi = stablehlo.constant dense<1> : tensor<3x3xi32>
  %clamped = stablehlo.clamp %lo, %result, %hi : tensor<3x3xi32>
  check.expect_eq %clamped, %result : tensor<3x3xi32>
  func.return
}

// -----

func.func @rng_bit_generator_three_fry() {
  %initial_state = stablehlo.constant dense<[1, 2]> : tensor<2xui64>
  %output_state, %output = "stablehlo.rng_bit_generator"(%initial_state) {
    rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>
  } : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui64>)
  check.expect_eq_const %output_state, dense<[1, 6]> : tensor<2xui64>
  check.expect_eq_const %output, dense<[[9236835810183407956, 16087790271692313299], [18212823393184779219, 2658481902456610144]]> : tensor<2x2xui64>
  func.return
}

// -----

func.func @async_slice() {
  %x = stablehlo.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>
  %f = "stablehlo.async_start"(%x) ({
    %s = "stablehlo.slice"(%x) {start_indices = array<i64: 1>, limit_indices = array<i64: 5>, strides = array<i64: 2>} : (tensor<6xi32>) -> tensor<2xi32>
    "stablehlo.return"(%s) : (tensor<2xi32>) -> ()
  }) : (tensor<6xi32>) -> !stablehlo.future<tensor<2xi32>>
  %r = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<2xi32>>) -> tensor<2xi32>
  check.expect_eq_const %r, dense<[2, 4]> : tensor<2xi32>
  func.return
}

// -----

func.func @custom_call_checks() {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = stablehlo.constant dense<[1.0, 2.0000001]> : tensor<2xf32>
  stablehlo.custom_call @check.expect_eq(%a, %a) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
  stablehlo.custom_call @check.expect_almost_eq(%a, %b) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
  stablehlo.custom_call @check.expect_close(%a, %b) {has_side_effect = true, max_ulp_difference = 3 : i64} : (tensor<2xf32>, tensor<2xf32>) -> ()
  %eq = stablehlo.custom_call @check.eq(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<i1>
  check.expect_eq_const %eq, dense<true> : tensor<i1>
  func.return
}
