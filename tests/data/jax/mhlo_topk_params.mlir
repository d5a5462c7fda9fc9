func.func @main(%w: tensor<2x5xf32> {jax.arg_info = "w"}, %x: tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>) {
  %s = stablehlo.add %w, %x : tensor<2x5xf32>
  %0:2 = stablehlo.custom_call @mhlo.topk(%s) {mhlo.attributes = {k = 3 : i64, largest = true}, mhlo.version = 1 : i64} : (tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
  return %0#0, %0#1 : tensor<2x3xf32>, tensor<2x3xi32>
}
