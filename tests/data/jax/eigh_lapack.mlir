func.func @main(%a: tensor<3x3xf32>) -> tensor<3xf32> {
  %0:5 = stablehlo.custom_call @lapack_ssyevd_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, api_version = 4 : i32} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xf32>, tensor<i32>, tensor<64xf32>, tensor<32xi32>)
  return %0#1 : tensor<3xf32>
}
