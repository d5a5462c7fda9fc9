// vm-run --compare-with=reference (tests/cli_tools.cmake, cli.compare_*):
// a small program of several dispatches (a matrix product, a fused
// elementwise chain, a reduction, a transpose) whose kernels a test breaks
// one at a time through KILN_TEST_BREAK_KERNEL.
func.func public @main(%x: tensor<5x7xf32>, %w: tensor<7x3xf32>, %b: tensor<3xf32>) -> (tensor<3x5xf32>, tensor<5xf32>) {
  %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<5x7xf32>, tensor<7x3xf32>) -> tensor<5x3xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<3xf32>) -> tensor<5x3xf32>
  %s = stablehlo.add %y, %bb : tensor<5x3xf32>
  %t = stablehlo.tanh %s : tensor<5x3xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%t init: %z) applies stablehlo.add across dimensions = [1] : (tensor<5x3xf32>, tensor<f32>) -> tensor<5xf32>
  %tt = stablehlo.transpose %t, dims = [1, 0] : (tensor<5x3xf32>) -> tensor<3x5xf32>
  return %tt, %r : tensor<3x5xf32>, tensor<5xf32>
}
// A matrix product with a bias and a relu: one dispatch whose epilogue
// holds the add and the maximum, at the maximum's line.
func.func public @affine(%x: tensor<3x9xf32>, %w: tensor<9x4xf32>, %b: tensor<4xf32>) -> tensor<3x4xf32> {
  %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<3x9xf32>, tensor<9x4xf32>) -> tensor<3x4xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<4xf32>) -> tensor<3x4xf32>
  %s = stablehlo.add %y, %bb : tensor<3x4xf32>
  %z = stablehlo.constant dense<0.0> : tensor<3x4xf32>
  %r = stablehlo.maximum %s, %z : tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}
// Integers: compared exactly.
func.func public @ints(%a: tensor<11xi32>, %b: tensor<11xi32>) -> tensor<i32> {
  %m = stablehlo.multiply %a, %b : tensor<11xi32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %r = stablehlo.reduce(%m init: %z) applies stablehlo.add across dimensions = [0] : (tensor<11xi32>, tensor<i32>) -> tensor<i32>
  return %r : tensor<i32>
}
// Softmax over rows: one kiln.row_block dispatch (two reduces and the
// elementwise ops between them), at the divide's line.
func.func public @softmax(%x: tensor<6x13xf32>) -> tensor<6x13xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<6x13xf32>, tensor<f32>) -> tensor<6xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<6xf32>) -> tensor<6x13xf32>
  %e0 = stablehlo.subtract %x, %mb : tensor<6x13xf32>
  %e = stablehlo.exponential %e0 : tensor<6x13xf32>
  %z = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<6x13xf32>, tensor<f32>) -> tensor<6xf32>
  %zb = stablehlo.broadcast_in_dim %z, dims = [0] : (tensor<6xf32>) -> tensor<6x13xf32>
  %p = stablehlo.divide %e, %zb : tensor<6x13xf32>
  return %p : tensor<6x13xf32>
}
