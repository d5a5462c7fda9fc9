func.func private @max_body(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.maximum %a, %b : tensor<f32>
  return %0 : tensor<f32>
}
func.func @main(%x: tensor<?xf32>, %wd: tensor<1xi64>) -> tensor<?xf32> {
  %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %one = stablehlo.constant dense<[1]> : tensor<1xi64>
  %pad = stablehlo.constant dense<[[0, 0]]> : tensor<1x2xi64>
  %0 = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%x, %init, %wd, %one, %one, %one, %pad) {called_computations = [@max_body]} : (tensor<?xf32>, tensor<f32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1x2xi64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
