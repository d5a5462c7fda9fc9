func.func @main(%x: tensor<1x56x56x64xbf16>, %w: tensor<3x3x64x64xbf16>) -> tensor<1x56x56x64xbf16> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x56x56x64xbf16>, tensor<3x3x64x64xbf16>) -> tensor<1x56x56x64xbf16>
  return %0 : tensor<1x56x56x64xbf16>
}
