func.func @main(%x: tensor<5xf32>, %k: tensor<i64>) -> tensor<?xf32> {
  %0:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%x, %k) : (tensor<5xf32>, tensor<i64>) -> (tensor<?xf32>, tensor<?xi32>)
  return %0#0 : tensor<?xf32>
}
