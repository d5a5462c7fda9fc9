// Two processes run different collectives at the same point: both must end
// with a "mismatched collectives" error naming each side.
module @m {
  func.func @ar(%x: tensor<2xi32>) -> tensor<2xi32> {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<i32>, %b: tensor<i32>):
        %s = stablehlo.add %a, %b : tensor<i32>
        stablehlo.return %s : tensor<i32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xi32>) -> tensor<2xi32>
    return %r : tensor<2xi32>
  }
  func.func @ag(%x: tensor<2xi32>) -> tensor<2xi32> {
    %g = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xi32>) -> tensor<4xi32>
    %s = "stablehlo.slice"(%g) {start_indices = array<i64: 0>, limit_indices = array<i64: 2>, strides = array<i64: 1>} : (tensor<4xi32>) -> tensor<2xi32>
    return %s : tensor<2xi32>
  }
  func.func @main() {
    %c = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
    %r:2 = "interpreter.run_parallel"(%c, %c) {programs = [[@ar], [@ag]]} : (tensor<2xi32>, tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>)
    func.return
  }
}
