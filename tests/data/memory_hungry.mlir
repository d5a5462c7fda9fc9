// Two 1 MiB transients alive together (vm-run --max-memory's tests,
// tests/cli_tools.cmake): planned, the function declares an arena of about
// 2 MiB; compiled with --no-arena, they come from the device's pool at run time.
func.func public @main(%x: tensor<512x512xf32>) -> tensor<f32> {
  %a = stablehlo.exponential %x : tensor<512x512xf32>
  %b = stablehlo.transpose %x, dims = [1, 0] : (tensor<512x512xf32>) -> tensor<512x512xf32>
  %c = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%c init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<512x512xf32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
