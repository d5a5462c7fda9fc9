// A JAX export's shape (weights as arguments named by jax.arg_info) for the
// --params-from-args command-line test (tests/cli_tools.cmake).
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32> {jax.arg_info = "params['dense']['kernel']", mhlo.sharding = "{replicated}"}, %arg1: tensor<3xf32> {jax.arg_info = "params['dense']['bias']"}, %arg2: tensor<4x2xf32> {jax.arg_info = "x"}) -> (tensor<4x3xf32> {jax.result_info = ""}) {
    %0 = stablehlo.dot_general %arg2, %arg0, contracting_dims = [1] x [0] : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>
    %2 = stablehlo.add %0, %1 : tensor<4x3xf32>
    return %2 : tensor<4x3xf32>
  }
}
