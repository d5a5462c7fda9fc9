func.func @main(%a: tensor<3x3xf32>) -> tensor<3xf32> {
  %0:6 = stablehlo.custom_call @lapack_sgees_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}, api_version = 4 : i32} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i32>, tensor<i32>)
  return %0#2 : tensor<3xf32>
}
