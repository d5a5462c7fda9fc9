func.func @main(%s: tensor<2xui64>, %shape: tensor<1xi64>) -> tensor<?xui32> {
  %0:2 = stablehlo.custom_call @stablehlo.dynamic_rng_bit_generator(%s, %shape) {rng_algorithm = #stablehlo<rng_algorithm DEFAULT>} : (tensor<2xui64>, tensor<1xi64>) -> (tensor<2xui64>, tensor<?xui32>)
  return %0#1 : tensor<?xui32>
}
