// The tools' input and output handling (tests/CMakeLists.txt, cli.io_*):
// identities to echo --input values, a tuple result that cannot become a
// .npy file, and a test function for vm-check.
func.func public @main(%a: tensor<3xf32>) -> tensor<3xf32> {
  return %a : tensor<3xf32>
}
func.func public @i64(%a: tensor<3xi64>) -> tensor<3xi64> {
  return %a : tensor<3xi64>
}
func.func public @i8(%a: tensor<3xi8>) -> tensor<3xi8> {
  return %a : tensor<3xi8>
}
func.func public @ten(%a: tensor<10xf32>) -> tensor<10xf32> {
  return %a : tensor<10xf32>
}
func.func public @tup(%a: tensor<f32>, %b: tensor<2xi32>) -> tuple<tensor<f32>, tuple<tensor<2xi32>>> {
  %t0 = stablehlo.tuple %b : tuple<tensor<2xi32>>
  %t = stablehlo.tuple %a, %t0 : tuple<tensor<f32>, tuple<tensor<2xi32>>>
  return %t : tuple<tensor<f32>, tuple<tensor<2xi32>>>
}
func.func @passes() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  check.expect_eq_const %0, dense<[1, 2]> : tensor<2xi32>
  func.return
}
