// Syntax that JAX and the StableHLO tools print, each function checking the
// values it computes (run by kiln-conformance --strict, tests/CMakeLists.txt):
// CHLO's pretty forms, trailing commas inside #stablehlo attributes, bodies
// that call functions (inlined at compile time, compiler/passes/
// inline_body_calls.cc) and discardable attributes (ignored).

func.func @chlo_top_k_pretty() {
  %x = stablehlo.constant dense<[[3.0, 1.0, 4.0, 1.5], [9.0, 2.0, 6.0, 5.0]]> : tensor<2x4xf32>
  %v, %i = chlo.top_k(%x, k = 2) : tensor<2x4xf32> -> (tensor<2x2xf32>, tensor<2x2xi32>)
  check.expect_eq_const %v, dense<[[4.0, 3.0], [9.0, 6.0]]> : tensor<2x2xf32>
  check.expect_eq_const %i, dense<[[2, 0], [0, 2]]> : tensor<2x2xi32>
  func.return
}

// -----

func.func @chlo_unary_and_broadcast_pretty() {
  %x = stablehlo.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %y = stablehlo.constant dense<[[10.0, 20.0], [30.0, 40.0]]> : tensor<2x2xf32>
  %e = chlo.erf %x : tensor<2xf32> -> tensor<2xf32>
  %b = chlo.broadcast_add %x, %y {broadcast_dimensions = array<i64: 1>} : (tensor<2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %c = chlo.broadcast_multiply %x, %y {broadcast_dimensions = array<i64: 0>} : (tensor<2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_almost_eq_const %e, dense<[0.0, 0.842700779]> : tensor<2xf32>
  check.expect_eq_const %b, dense<[[10.0, 21.0], [30.0, 41.0]]> : tensor<2x2xf32>
  check.expect_eq_const %c, dense<[[0.0, 0.0], [30.0, 40.0]]> : tensor<2x2xf32>
  func.return
}

// -----

// CHLO's other assembly formats: `%x, %y : T, T -> T`, `chlo.constant
// dense<...> : T`, broadcast_select; chlo.constant_like (generic only) is a
// splat in its operand's shape.
func.func @chlo_binary_constant_and_select_forms() {
  %x = stablehlo.constant dense<[1.0, 2.0, 0x7F800000]> : tensor<3xf32>
  %y = stablehlo.constant dense<2.0> : tensor<3xf32>
  %inf = chlo.is_inf %x : tensor<3xf32> -> tensor<3xi1>
  %lt = chlo.broadcast_compare %x, %y {comparison_direction = #chlo<comparison_direction LT>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %next = chlo.next_after %x, %y : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %c = chlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %sel = chlo.broadcast_select %lt, %c, %y : (tensor<3xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %like = "chlo.constant_like"(%x) {value = 7 : i32} : (tensor<3xf32>) -> tensor<3xf32>
  check.expect_eq_const %inf, dense<[false, false, true]> : tensor<3xi1>
  check.expect_eq_const %next, dense<[1.00000012, 2.0, 3.40282347E+38]> : tensor<3xf32>
  check.expect_eq_const %sel, dense<[1.0, 2.0, 2.0]> : tensor<3xf32>
  check.expect_eq_const %like, dense<7.0> : tensor<3xf32>
  func.return
}

// -----

func.func @trailing_commas_in_attributes() {
  %a = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = stablehlo.constant dense<[[1.0], [0.0], [2.0]]> : tensor<3x1xf32>
  %d = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0],>} : (tensor<2x3xf32>, tensor<3x1xf32>) -> tensor<2x1xf32>
  %i = stablehlo.constant dense<[[1], [0]]> : tensor<2x1xi32>
  %g = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1,>, slice_sizes = array<i64: 1, 3>} : (tensor<2x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  check.expect_eq_const %d, dense<[[7.0], [16.0]]> : tensor<2x1xf32>
  check.expect_eq_const %g, dense<[[4.0, 5.0, 6.0], [1.0, 2.0, 3.0]]> : tensor<2x3xf32>
  func.return
}

// -----

func.func private @add_f32(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %a, %b : tensor<f32>
  return %0 : tensor<f32>
}
// A callee that calls another: inlined recursively.
func.func private @max_via_call(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.maximum %a, %b : tensor<f32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %1 = func.call @add_f32(%0, %z) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}
func.func @reduce_body_calls_a_function() {
  %x = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %s = stablehlo.reduce(%x init: %z) across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
   reducer(%a: tensor<f32>, %b: tensor<f32>)  {
    %1 = func.call @add_f32(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }
  %m = "stablehlo.reduce_window"(%x, %ninf) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = func.call @max_via_call(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) {window_dimensions = array<i64: 1, 2>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x2xf32>
  check.expect_eq_const %s, dense<[6.0, 15.0]> : tensor<2xf32>
  check.expect_eq_const %m, dense<[[2.0, 3.0], [5.0, 6.0]]> : tensor<2x2xf32>
  func.return
}

// -----

func.func private @greater(%a: tensor<f32>, %b: tensor<f32>) -> tensor<i1> {
  %0 = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
  return %0 : tensor<i1>
}
func.func private @mul(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.multiply %a, %b : tensor<f32>
  return %0 : tensor<f32>
}
func.func private @add(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %a, %b : tensor<f32>
  return %0 : tensor<f32>
}
func.func private @ge(%a: tensor<f32>, %b: tensor<f32>) -> tensor<i1> {
  %0 = stablehlo.compare GE, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
  return %0 : tensor<i1>
}
func.func @sort_scatter_map_select_and_scatter_bodies_call_functions() {
  %x = stablehlo.constant dense<[3.0, 1.0, 4.0, 2.0]> : tensor<4xf32>
  %sorted = "stablehlo.sort"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = func.call @greater(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<4xf32>) -> tensor<4xf32>
  %squares = "stablehlo.map"(%x, %x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = func.call @mul(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %idx = stablehlo.constant dense<[[1], [1]]> : tensor<2x1xi32>
  %upd = stablehlo.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %scattered = "stablehlo.scatter"(%x, %idx, %upd) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = func.call @add(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<4xf32>
  %src = stablehlo.constant dense<[5.0, 7.0]> : tensor<2xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %sas = "stablehlo.select_and_scatter"(%x, %src, %zero) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = func.call @ge(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = func.call @add(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) {window_dimensions = array<i64: 2>, window_strides = array<i64: 2>} : (tensor<4xf32>, tensor<2xf32>, tensor<f32>) -> tensor<4xf32>
  check.expect_eq_const %sorted, dense<[4.0, 3.0, 2.0, 1.0]> : tensor<4xf32>
  check.expect_eq_const %squares, dense<[9.0, 1.0, 16.0, 4.0]> : tensor<4xf32>
  check.expect_eq_const %scattered, dense<[3.0, 31.0, 4.0, 2.0]> : tensor<4xf32>
  check.expect_eq_const %sas, dense<[5.0, 0.0, 7.0, 0.0]> : tensor<4xf32>
  func.return
}

// -----

// Discardable attributes of a JAX export on the module, the functions, their
// arguments and results and the ops: all ignored.
module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32, mhlo.frontend_attributes = {xla.sdy.meshes = "{}"}, mhlo.use_auto_spmd_partitioning = false, tf.versions = {producer = 1 : i32}} {
  func.func private @scaled(%arg0: tensor<4xf32> {jax.arg_info = "x", mhlo.layout_mode = "default", mhlo.sharding = "{replicated}", tf.aliasing_output = 0 : i32, jax.buffer_donor = true, mhlo.frontend_attributes = {a = "b"}, sdy.sharding = #sdy.sharding<@mesh, [{}]>}) -> (tensor<4xf32> {jax.result_info = "result", mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"}) attributes {jax.private = true, mhlo.frontend_attributes = {k = "v"}} {
    %0 = stablehlo.add %arg0, %arg0 {mhlo.frontend_attributes = {_xla_compute_type = "host"}, mhlo.sharding = "{replicated}", result_layout = dense<0> : tensor<1xindex>} : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func @discardable_attributes_are_ignored() attributes {jax.uses_shape_polymorphism = false} {
    %x = stablehlo.constant {mhlo.sharding = "{replicated}"} dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
    %0 = func.call @scaled(%x) {mhlo.frontend_attributes = {a = "b"}} : (tensor<4xf32>) -> tensor<4xf32>
    check.expect_eq_const %0, dense<[2.0, 4.0, 6.0, 8.0]> : tensor<4xf32>
    func.return
  }
}
