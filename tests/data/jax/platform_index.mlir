// A multi-platform JAX export (jax.export(f, platforms=[...]) of three
// platforms) as JAX lowers it: @main takes the platform index first and
// passes it to the wrapped function, whose stablehlo.case picks each
// platform's lowering (here x + 2 on the first platform, x + 3 on the second,
// x + 4 on the third). With --platforms the index is bound to cpu's
// (tests/jax_exports.cmake).
module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i32> {jax.global_constant = "_platform_index", mhlo.sharding = "{replicated}"}, %arg1: tensor<3xf32> {jax.arg_info = "x", mhlo.sharding = "{replicated}"}) -> (tensor<3xf32> {jax.result_info = ""}) {
    %0 = call @_wrapped_jax_export_main(%arg0, %arg1) : (tensor<i32>, tensor<3xf32>) -> tensor<3xf32>
    return %0 : tensor<3xf32>
  }
  func.func private @_wrapped_jax_export_main(%arg0: tensor<i32> {jax.global_constant = "_platform_index"}, %arg1: tensor<3xf32> {jax.arg_info = "x", mhlo.sharding = "{replicated}"}) -> (tensor<3xf32> {jax.result_info = ""}) {
    %0 = "stablehlo.case"(%arg0) ({
      %c = stablehlo.constant dense<2.0> : tensor<f32>
      stablehlo.return %c : tensor<f32>
    }, {
      %c = stablehlo.constant dense<3.0> : tensor<f32>
      stablehlo.return %c : tensor<f32>
    }, {
      %c = stablehlo.constant dense<4.0> : tensor<f32>
      stablehlo.return %c : tensor<f32>
    }) : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %2 = stablehlo.add %arg1, %1 : tensor<3xf32>
    return %2 : tensor<3xf32>
  }
}
