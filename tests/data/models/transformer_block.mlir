// A pre-norm-free transformer encoder block (one attention head, then a
// ReLU feed-forward layer, each with a residual connection and a layer
// norm without scale), sequence 16, width 64, feed-forward 256. Weights are
// arguments. Used by tests/e2e/memory_plan_test.cc for the planned peak.
func.func public @main(%x: tensor<16x64xf32>, %wq: tensor<64x64xf32>, %wk: tensor<64x64xf32>, %wv: tensor<64x64xf32>,
                       %wo: tensor<64x64xf32>, %w1: tensor<64x256xf32>, %w2: tensor<256x64xf32>) -> tensor<16x64xf32> {
  %q = stablehlo.dot_general %x, %wq, contracting_dims = [1] x [0] : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
  %k = stablehlo.dot_general %x, %wk, contracting_dims = [1] x [0] : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
  %v = stablehlo.dot_general %x, %wv, contracting_dims = [1] x [0] : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
  %s = stablehlo.dot_general %q, %k, contracting_dims = [1] x [1] : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x16xf32>
  %scale = stablehlo.constant dense<1.250000e-01> : tensor<16x16xf32>
  %s1 = stablehlo.multiply %s, %scale : tensor<16x16xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %m = stablehlo.reduce(%s1 init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<16x16xf32>, tensor<f32>) -> tensor<16xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<16xf32>) -> tensor<16x16xf32>
  %e0 = stablehlo.subtract %s1, %mb : tensor<16x16xf32>
  %e = stablehlo.exponential %e0 : tensor<16x16xf32>
  %z = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<16x16xf32>, tensor<f32>) -> tensor<16xf32>
  %zb = stablehlo.broadcast_in_dim %z, dims = [0] : (tensor<16xf32>) -> tensor<16x16xf32>
  %p = stablehlo.divide %e, %zb : tensor<16x16xf32>
  %a = stablehlo.dot_general %p, %v, contracting_dims = [1] x [0] : (tensor<16x16xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %o = stablehlo.dot_general %a, %wo, contracting_dims = [1] x [0] : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
  %h = stablehlo.add %x, %o : tensor<16x64xf32>
  %n = func.call @layer_norm(%h) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %f1 = stablehlo.dot_general %n, %w1, contracting_dims = [1] x [0] : (tensor<16x64xf32>, tensor<64x256xf32>) -> tensor<16x256xf32>
  %zf = stablehlo.constant dense<0.000000e+00> : tensor<16x256xf32>
  %r = stablehlo.maximum %f1, %zf : tensor<16x256xf32>
  %f2 = stablehlo.dot_general %r, %w2, contracting_dims = [1] x [0] : (tensor<16x256xf32>, tensor<256x64xf32>) -> tensor<16x64xf32>
  %h2 = stablehlo.add %n, %f2 : tensor<16x64xf32>
  %out = func.call @layer_norm(%h2) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  return %out : tensor<16x64xf32>
}

func.func private @layer_norm(%h: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %inv = stablehlo.constant dense<1.562500e-02> : tensor<16xf32>
  %eps = stablehlo.constant dense<9.99999974E-6> : tensor<16xf32>
  %sum = stablehlo.reduce(%h init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<16x64xf32>, tensor<f32>) -> tensor<16xf32>
  %mean = stablehlo.multiply %sum, %inv : tensor<16xf32>
  %mb = stablehlo.broadcast_in_dim %mean, dims = [0] : (tensor<16xf32>) -> tensor<16x64xf32>
  %c = stablehlo.subtract %h, %mb : tensor<16x64xf32>
  %c2 = stablehlo.multiply %c, %c : tensor<16x64xf32>
  %ss = stablehlo.reduce(%c2 init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<16x64xf32>, tensor<f32>) -> tensor<16xf32>
  %var = stablehlo.multiply %ss, %inv : tensor<16xf32>
  %ve = stablehlo.add %var, %eps : tensor<16xf32>
  %rs = stablehlo.rsqrt %ve : tensor<16xf32>
  %rb = stablehlo.broadcast_in_dim %rs, dims = [0] : (tensor<16xf32>) -> tensor<16x64xf32>
  %y = stablehlo.multiply %c, %rb : tensor<16x64xf32>
  return %y : tensor<16x64xf32>
}
