func.func @main(%a: tensor<3x3xf32>) -> tensor<3xf32> {
  %0 = "stablehlo.unary_einsum"(%a) {einsum_config = "ii->i"} : (tensor<3x3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
