// Loops that never end, for --timeout (tests/cli_tools.cmake, cli.*timeout*):
// on the scalar path (an i64 counter), with device work in each iteration,
// and as vm-check test functions beside one that passes; a function that
// finishes; and a private function, which the tools refuse to run.
func.func public @spin(%n: tensor<i64>) -> tensor<i64> {
  %r = stablehlo.while(%i = %n) : tensor<i64>
    cond {
      %t = stablehlo.constant dense<true> : tensor<i1>
      stablehlo.return %t : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i64>
      %j = stablehlo.add %i, %one : tensor<i64>
      stablehlo.return %j : tensor<i64>
    }
  return %r : tensor<i64>
}
func.func public @spin_tensor(%x: tensor<64xf32>) -> tensor<64xf32> {
  %r = stablehlo.while(%v = %x) : tensor<64xf32>
    cond {
      %t = stablehlo.constant dense<true> : tensor<i1>
      stablehlo.return %t : tensor<i1>
    } do {
      %w = stablehlo.tanh %v : tensor<64xf32>
      stablehlo.return %w : tensor<64xf32>
    }
  return %r : tensor<64xf32>
}
func.func public @finishes(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = stablehlo.add %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @endless() {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %r = func.call @spin(%zero) : (tensor<i64>) -> tensor<i64>
  func.return
}
func.func @passes() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  check.expect_eq_const %0, dense<[1, 2]> : tensor<2xi32>
  func.return
}
func.func private @hidden(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
