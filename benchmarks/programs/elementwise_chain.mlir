// An elementwise chain over 1M f32 elements: logistic(a * b) + tanh(a)
// (docs/performance.md).
func.func @main(%a: tensor<1048576xf32>, %b: tensor<1048576xf32>) -> tensor<1048576xf32> {
  %0 = stablehlo.multiply %a, %b : tensor<1048576xf32>
  %1 = stablehlo.logistic %0 : tensor<1048576xf32>
  %2 = stablehlo.tanh %a : tensor<1048576xf32>
  %3 = stablehlo.add %1, %2 : tensor<1048576xf32>
  return %3 : tensor<1048576xf32>
}
