func.func @main(%a: tensor<3x3xf32>, %b: tensor<3x1xf32>) -> tensor<3x1xf32> {
  %0:3 = stablehlo.custom_call @lapack_ssysv_ffi(%a, %b) {mhlo.backend_config = {uplo = 76 : ui8}, api_version = 4 : i32} : (tensor<3x3xf32>, tensor<3x1xf32>) -> (tensor<3x3xf32>, tensor<3x1xf32>, tensor<i32>)
  return %0#1 : tensor<3x1xf32>
}
