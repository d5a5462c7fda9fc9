func.func @main(%a: tensor<3x3xf32>) -> tensor<3xf32> {
  %0:5 = stablehlo.custom_call @lapack_sgesvd_ffi(%a) {mhlo.backend_config = {mode = 65 : ui8}, api_version = 4 : i32} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xf32>, tensor<3x3xf32>, tensor<3x3xf32>, tensor<i32>)
  return %0#1 : tensor<3xf32>
}
