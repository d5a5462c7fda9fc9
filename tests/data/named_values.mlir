// Argument and result names as exporters write them (compiler/lower/value_names.h):
// JAX's jax.arg_info / jax.result_info beside its other attributes, TF's
// tf_saved_model.index_path and tf.entry_function, and values with none.
module @named_values attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32> {jax.arg_info = "params['w']", mhlo.sharding = "{replicated}"}, %arg1: tensor<3xf32> {jax.arg_info = "x", mhlo.layout_mode = "default"}, %arg2: tensor<i32>) -> (tensor<2xf32> {jax.result_info = "[0]", mhlo.sharding = "{replicated}"}, tensor<i32> {jax.result_info = "['count']"}, tensor<3xf32>) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
    return %0, %arg2, %arg1 : tensor<2xf32>, tensor<i32>, tensor<3xf32>
  }
  func.func public @tf_names(%a: tensor<f32> {tf_saved_model.index_path = ["inputs", 0]}, %b: tensor<f32>) -> (tensor<f32> {tf_saved_model.index_path = ["sum"]}) attributes {tf.entry_function = {inputs = "a,b", outputs = "out"}} {
    %0 = stablehlo.add %a, %b : tensor<f32>
    return %0 : tensor<f32>
  }
  func.func public @lone(%a: tensor<4xf32> {jax.arg_info = "x"}) -> (tensor<4xf32> {jax.result_info = ""}) {
    return %a : tensor<4xf32>
  }
}
