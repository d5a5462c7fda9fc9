// The tools' value handling (tests/CMakeLists.txt, cli.values_*): identities
// per element type, to read --input values and .npy files and print them
// back; a function without arguments; 0/0 for NaN's sign; a large result.
func.func public @f32(%a: tensor<3xf32>) -> tensor<3xf32> {
  return %a : tensor<3xf32>
}
func.func public @f64(%a: tensor<3xf64>) -> tensor<3xf64> {
  return %a : tensor<3xf64>
}
func.func public @f16(%a: tensor<3xf16>) -> tensor<3xf16> {
  return %a : tensor<3xf16>
}
func.func public @bf16(%a: tensor<3xbf16>) -> tensor<3xbf16> {
  return %a : tensor<3xbf16>
}
func.func public @f8(%a: tensor<3xf8E4M3FN>) -> tensor<3xf8E4M3FN> {
  return %a : tensor<3xf8E4M3FN>
}
func.func public @i4(%a: tensor<3xi4>) -> tensor<3xi4> {
  return %a : tensor<3xi4>
}
func.func public @c64(%a: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
  return %a : tensor<2xcomplex<f32>>
}
func.func public @m2x3(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  return %a : tensor<2x3xf32>
}
func.func public @three(%a: tensor<2xf32>, %b: tensor<3xi32>, %c: tensor<f64>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
func.func public @none() -> tensor<f32> {
  %0 = stablehlo.constant dense<1.0> : tensor<f32>
  return %0 : tensor<f32>
}
func.func public @div(%a: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.divide %a, %a : tensor<f32>
  return %0 : tensor<f32>
}
func.func public @big(%a: tensor<f32>) -> tensor<1000x1000xf32> {
  %0 = stablehlo.broadcast_in_dim %a, dims = [] : (tensor<f32>) -> tensor<1000x1000xf32>
  return %0 : tensor<1000x1000xf32>
}
