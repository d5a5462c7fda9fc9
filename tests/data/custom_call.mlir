// A user op (vm/kiln.h, "User ops"): the test registers a host function
// under @kiln_test_scale that multiplies by its backend_config.
func.func @main(%x: tensor<5xf32>) -> tensor<5xf32> {
  %y = stablehlo.custom_call @kiln_test_scale(%x) {backend_config = "2.5"} : (tensor<5xf32>) -> tensor<5xf32>
  %z = stablehlo.add %y, %x : tensor<5xf32>
  return %z : tensor<5xf32>
}
