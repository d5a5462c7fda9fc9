// An op the vulkan target has no shader for (scatter) between shader work:
// under the Vulkan device it runs on the host (docs/vulkan.md).
func.func @scatter_between_shaders() {
  %a = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %0 = stablehlo.multiply %a, %a : tensor<4xi32>
  %i = stablehlo.constant dense<[[1], [3], [1]]> : tensor<3x1xi32>
  %u = stablehlo.constant dense<[10, 20, 30]> : tensor<3xi32>
  %1 = "stablehlo.scatter"(%0, %i, %u) ({
    ^bb0(%x: tensor<i32>, %y: tensor<i32>):
      %s = stablehlo.add %x, %y : tensor<i32>
      stablehlo.return %s : tensor<i32>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0],
                                                   scatter_dims_to_operand_dims = [0], index_vector_dim = 1>
  } : (tensor<4xi32>, tensor<3x1xi32>, tensor<3xi32>) -> tensor<4xi32>
  %2 = stablehlo.add %1, %a : tensor<4xi32>
  check.expect_eq_const %2, dense<[2, 46, 12, 40]> : tensor<4xi32>
  func.return
}
