// vm-check's command-line behaviour: one passing and one failing test
// function, and one function with arguments that vm-check must not run.
func.func @passes() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %1 = stablehlo.add %0, %0 : tensor<2xi32>
  check.expect_eq_const %1, dense<[2, 4]> : tensor<2xi32>
  %2 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  stablehlo.custom_call @check.expect_almost_eq(%2, %2) : (tensor<2xf32>, tensor<2xf32>) -> ()
  func.return
}

func.func @fails() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  check.expect_eq_const %0, dense<[1, 3]> : tensor<2xi32>
  func.return
}

func.func @takes_args(%x: tensor<i32>) -> tensor<i32> {
  func.return %x : tensor<i32>
}
