func.func @main(%a: tensor<3x3xf32>) -> tensor<3xf32> {
  %n = stablehlo.constant dense<3> : tensor<i32>
  %0 = stablehlo.custom_call @lapack_ssysv(%n, %n, %n, %a) {api_version = 2 : i32} : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<3x3xf32>) -> tuple<tensor<3x3xf32>, tensor<3xf32>, tensor<i32>>
  %1 = stablehlo.get_tuple_element %0[1] : (tuple<tensor<3x3xf32>, tensor<3xf32>, tensor<i32>>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}
