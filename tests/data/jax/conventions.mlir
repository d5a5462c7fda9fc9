// JAX's conventions, each function checking the values it computes (run by
// kiln-conformance --strict, tests/jax_exports.cmake): sharding and
// memory-placement custom calls are identities on one device,
// stablehlo.composite runs its decomposition, a shape assertion that holds
// lets the call go on (one that fails is tests/data/jax/shape_assertion.mlir's,
// run by vm-run).

func.func @sharding_custom_calls_are_identities() {
  %x = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %0 = stablehlo.custom_call @Sharding(%x) {mhlo.sharding = "{devices=[2,1]<=[2]}"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = "{manual}"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %2 = stablehlo.multiply %1, %1 : tensor<2x2xf32>
  %3 = stablehlo.custom_call @Sharding(%2) {mhlo.sharding = "{manual}"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {mhlo.sharding = "{devices=[2,1]<=[2]}"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  // Memory-kind annotations (jax.device_put(x, memory_kind) and offloading).
  %5 = stablehlo.custom_call @annotate_device_placement(%4) {has_side_effect = true, mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %6 = stablehlo.custom_call @MoveToHost(%5) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %7 = stablehlo.custom_call @MoveToDevice(%6) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_eq_const %7, dense<[[1.0, 4.0], [9.0, 16.0]]> : tensor<2x2xf32>
  func.return
}

// -----

func.func private @my_gelu_tanh(%x: tensor<3xf32>) -> tensor<3xf32> {
  %half = stablehlo.constant dense<0.5> : tensor<3xf32>
  %one = stablehlo.constant dense<1.0> : tensor<3xf32>
  %t = stablehlo.tanh %x : tensor<3xf32>
  %p = stablehlo.add %one, %t : tensor<3xf32>
  %h = stablehlo.multiply %half, %x : tensor<3xf32>
  %r = stablehlo.multiply %h, %p : tensor<3xf32>
  return %r : tensor<3xf32>
}
func.func @composite_runs_its_decomposition() {
  %x = stablehlo.constant dense<[0.0, 1.0, -2.0]> : tensor<3xf32>
  %0 = stablehlo.composite "my.gelu" %x {composite_attributes = {approximate = "tanh", n = 3 : i64}, decomposition = @my_gelu_tanh, version = 1 : i32} : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "stablehlo.composite"(%x) {name = "my.gelu", decomposition = @my_gelu_tanh} : (tensor<3xf32>) -> tensor<3xf32>
  check.expect_almost_eq_const %0, dense<[0.0, 0.880797, -0.0359724]> : tensor<3xf32>
  check.expect_eq %0, %1 : tensor<3xf32>
  func.return
}

// -----

// A shape assertion that holds (as JAX emits them: the dimension read with
// get_dimension_size, compared, the values for the message after it).
func.func @shape_assertion_that_holds() {
  %x = stablehlo.constant dense<1.0> : tensor<4x3xf32>
  %d = stablehlo.get_dimension_size %x, dim = 0 : (tensor<4x3xf32>) -> tensor<i32>
  %c = stablehlo.constant dense<2> : tensor<i32>
  %r = stablehlo.remainder %d, %c : tensor<i32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %ok = stablehlo.compare EQ, %r, %z, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  stablehlo.custom_call @shape_assertion(%ok, %d) {error_message = "Division of {0} by 2 is not exact", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
  %y = stablehlo.add %x, %x : tensor<4x3xf32>
  check.expect_eq_const %y, dense<2.0> : tensor<4x3xf32>
  func.return
}
