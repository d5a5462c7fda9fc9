// A 2-replica program for the vm-run / vm-check grid tests.
module @grid attributes {mhlo.num_replicas = 2 : i64, mhlo.num_partitions = 1 : i64} {
  func.func public @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
    return %r : tensor<2xf32>
  }
  // Every replica sees the sum of all replica ids (0 + 1).
  func.func public @sum_of_replica_ids() {
    %id = stablehlo.replica_id : tensor<ui32>
    %r = "stablehlo.all_reduce"(%id) ({
      ^bb0(%a: tensor<ui32>, %b: tensor<ui32>):
        %s = stablehlo.add %a, %b : tensor<ui32>
        stablehlo.return %s : tensor<ui32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<ui32>) -> tensor<ui32>
    check.expect_eq_const %r, dense<1> : tensor<ui32>
    func.return
  }
}
