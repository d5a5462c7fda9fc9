func.func @main(%a: tensor<2x2xf32>) -> tensor<2xf32> {
  %n = stablehlo.constant dense<2> : tensor<i32>
  %0 = stablehlo.custom_call @lapack_sgeev(%n, %n, %a) {api_version = 2 : i32} : (tensor<i32>, tensor<i32>, tensor<2x2xf32>) -> tuple<tensor<2xf32>, tensor<2xf32>, tensor<i32>>
  %1 = stablehlo.get_tuple_element %0[0] : (tuple<tensor<2xf32>, tensor<2xf32>, tensor<i32>>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}
