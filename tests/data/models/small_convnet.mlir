// A small convolutional net: two 3x3 convolutions (3 -> 16 -> 16 channels,
// bias and ReLU) on a 1x32x32x3 image, a 2x2 max pool, a third convolution
// (16 -> 32), global average pooling and a dense layer to 10 classes.
// Weights are arguments. Used by tests/e2e/memory_plan_test.cc.
func.func public @main(%img: tensor<1x32x32x3xf32>, %k1: tensor<3x3x3x16xf32>, %b1: tensor<16xf32>,
                       %k2: tensor<3x3x16x16xf32>, %b2: tensor<16xf32>, %k3: tensor<3x3x16x32xf32>,
                       %wd: tensor<32x10xf32>) -> tensor<1x10xf32> {
  %c1 = stablehlo.convolution(%img, %k1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x32x32x3xf32>, tensor<3x3x3x16xf32>) -> tensor<1x32x32x16xf32>
  %bb1 = stablehlo.broadcast_in_dim %b1, dims = [3] : (tensor<16xf32>) -> tensor<1x32x32x16xf32>
  %a1 = stablehlo.add %c1, %bb1 : tensor<1x32x32x16xf32>
  %z1 = stablehlo.constant dense<0.000000e+00> : tensor<1x32x32x16xf32>
  %r1 = stablehlo.maximum %a1, %z1 : tensor<1x32x32x16xf32>
  %c2 = stablehlo.convolution(%r1, %k2) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x32x32x16xf32>, tensor<3x3x16x16xf32>) -> tensor<1x32x32x16xf32>
  %bb2 = stablehlo.broadcast_in_dim %b2, dims = [3] : (tensor<16xf32>) -> tensor<1x32x32x16xf32>
  %a2 = stablehlo.add %c2, %bb2 : tensor<1x32x32x16xf32>
  %r2 = stablehlo.maximum %a2, %z1 : tensor<1x32x32x16xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %pool = "stablehlo.reduce_window"(%r2, %ninf) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %mx = stablehlo.maximum %p, %q : tensor<f32>
      stablehlo.return %mx : tensor<f32>
  }) {window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>} : (tensor<1x32x32x16xf32>, tensor<f32>) -> tensor<1x16x16x16xf32>
  %c3 = stablehlo.convolution(%pool, %k3) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x16x16x16xf32>, tensor<3x3x16x32xf32>) -> tensor<1x16x16x32xf32>
  %z3 = stablehlo.constant dense<0.000000e+00> : tensor<1x16x16x32xf32>
  %r3 = stablehlo.maximum %c3, %z3 : tensor<1x16x16x32xf32>
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %gs = stablehlo.reduce(%r3 init: %zero) applies stablehlo.add across dimensions = [1, 2] : (tensor<1x16x16x32xf32>, tensor<f32>) -> tensor<1x32xf32>
  %inv = stablehlo.constant dense<3.906250e-03> : tensor<1x32xf32>
  %g = stablehlo.multiply %gs, %inv : tensor<1x32xf32>
  %logits = stablehlo.dot_general %g, %wd, contracting_dims = [1] x [0] : (tensor<1x32xf32>, tensor<32x10xf32>) -> tensor<1x10xf32>
  return %logits : tensor<1x10xf32>
}
