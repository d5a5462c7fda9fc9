// A dense layer as JAX prints it when jitted with Shardy shardings over a
// 2-device mesh and its weights held as dense_resource blobs: the mesh,
// the #sdy.sharding attributes and the sdy.sharding_constraint / sdy.reshard
// annotations are accepted and ignored (the program runs unpartitioned), and
// the constants' data comes from the dialect_resources section at the end.
// y = x @ [[1, 2, 3], [4, 5, 6]] + [0.5, -1, 2]
module @jit_dense attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2]>
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<4x3xf32> {jax.result_info = "", sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) {
    %cst = stablehlo.constant dense_resource<dense_kernel> : tensor<2x3xf32>
    %cst_0 = stablehlo.constant dense_resource<dense_bias> : tensor<3xf32>
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"data", ?}, {?}]> : tensor<4x2xf32>
    %1 = stablehlo.dot_general %0, %cst, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>
    %3 = stablehlo.add %1, %2 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"data"}, {}]>]>} : tensor<4x3xf32>
    %4 = sdy.reshard %3 <@mesh, [{}, {}]> : tensor<4x3xf32>
    return %4 : tensor<4x3xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      dense_kernel: "0x040000000000803F0000004000004040000080400000A0400000C040",
      dense_bias: "0x040000000000003F000080BF00000040"
    }
  }
#-}
