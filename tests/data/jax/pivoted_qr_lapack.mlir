func.func @main(%a: tensor<3x3xf32>, %p: tensor<3xi32>) -> tensor<3x3xf32> {
  %0:4 = stablehlo.custom_call @lapack_sgeqp3_ffi(%a, %p) {mhlo.backend_config = {}, api_version = 4 : i32} : (tensor<3x3xf32>, tensor<3xi32>) -> (tensor<3x3xf32>, tensor<3xi32>, tensor<3xf32>, tensor<i32>)
  return %0#0 : tensor<3x3xf32>
}
