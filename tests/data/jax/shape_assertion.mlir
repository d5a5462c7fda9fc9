// A shape-polymorphic JAX export (jax.export with polymorphic_shapes="(b, 3)"
// and the constraint b >= 2): its shape assertion passes for a batch of 2 and
// fails the call with JAX's message, the placeholders formatted with the
// value, for a batch of 1 (tests/jax_exports.cmake).
module @jit_f attributes {jax.uses_shape_polymorphism = true, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<?x3xf32> {jax.arg_info = "x"}) -> (tensor<?x3xf32> {jax.result_info = ""}) {
    %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
    %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
    %c = stablehlo.constant dense<2> : tensor<i64>
    %2 = stablehlo.compare GE, %1, %c, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.custom_call @shape_assertion(%2, %1) {error_message = "Input shapes do not match the polymorphic shapes specification. Expected value >= 2 for dimension variable 'b'. Using the following polymorphic shapes specifications: args[0].shape = (b, 3). Obtained dimension variables: 'b' = {0} from specification 'b' for dimension args[0].shape[0] (= {0}), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details.", has_side_effect = true} : (tensor<i1>, tensor<i64>) -> ()
    %3 = stablehlo.add %arg0, %arg0 : tensor<?x3xf32>
    return %3 : tensor<?x3xf32>
  }
}
