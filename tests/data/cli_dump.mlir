// vm-dump's listing of executables (tests/CMakeLists.txt, cli.vm_dump_*):
// kernels whose attributes hold integers and a scalar program.
func.func public @main(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%t init: %zero) applies stablehlo.maximum across dimensions = [0] : (tensor<3x2xf32>, tensor<f32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
