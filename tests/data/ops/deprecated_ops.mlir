// Ops that VHLO still carries but the spec dropped, run by the definitions
// they are legalized to (compiler/passes/legalize_deprecated.cc), with their
// results as checks (tests/e2e/spec_ops_test.cc).

// XLA's Broadcast: output[i0, ..., iN, j0, ..., jM] = operand[j0, ..., jM].
func.func @broadcast_matrix() {
  %operand = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %result = "stablehlo.broadcast"(%operand) {broadcast_sizes = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2x2x3xf32>
  check.expect_eq_const %result, dense<[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]]> : tensor<2x2x3xf32>
  func.return
}

// -----

func.func @broadcast_scalar_to_two_dims() {
  %operand = stablehlo.constant dense<7> : tensor<i8>
  %result = "stablehlo.broadcast"(%operand) {broadcast_sizes = array<i64: 2, 3>} : (tensor<i8>) -> tensor<2x3xi8>
  check.expect_eq_const %result, dense<7> : tensor<2x3xi8>
  func.return
}

// -----

func.func @broadcast_no_new_dims() {
  %operand = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %result = "stablehlo.broadcast"(%operand) {broadcast_sizes = array<i64>} : (tensor<2xi1>) -> tensor<2xi1>
  check.expect_eq_const %result, dense<[true, false]> : tensor<2xi1>
  func.return
}

// -----

func.func @broadcast_zero_size() {
  %operand = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %result = "stablehlo.broadcast"(%operand) {broadcast_sizes = array<i64: 0>} : (tensor<2xi64>) -> tensor<0x2xi64>
  check.expect_eq_const %result, dense<> : tensor<0x2xi64>
  func.return
}

// -----

func.func @broadcast_pretty_form() {
  %operand = stablehlo.constant dense<[1.5, -2.5]> : tensor<2xf64>
  %result = stablehlo.broadcast %operand, sizes = [3] : (tensor<2xf64>) -> tensor<3x2xf64>
  check.expect_eq_const %result, dense<[[1.5, -2.5], [1.5, -2.5], [1.5, -2.5]]> : tensor<3x2xf64>
  func.return
}
