// A program with one 64-byte constant, for the --externalize/--parameters
// command-line tests (tests/cli_tools.cmake).
func.func @main(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %w = stablehlo.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0], [13.0, 14.0, 15.0, 16.0]]> : tensor<4x4xf32>
  %y = stablehlo.add %x, %w : tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}
