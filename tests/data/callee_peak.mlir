// vm-dump's "with callees" figures (docs/memory.md, "The figures"): @main
// calls @helper, whose transients are alive only while the call runs; @loop
// calls itself, so its total has no bound. tests/data/check_callee_peak.sh.
func.func private @helper(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %a = stablehlo.exponential %x : tensor<64x64xf32>
  %b = stablehlo.dot %a, %a : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %c = stablehlo.dot %b, %a : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %c : tensor<64x64xf32>
}
func.func public @main(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %a = stablehlo.dot %x, %x : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %b = func.call @helper(%a) : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %c = stablehlo.dot %b, %a : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %c : tensor<64x64xf32>
}
func.func public @loop(%n: tensor<i64>, %x: tensor<16xf32>) -> tensor<16xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %done = stablehlo.compare LE, %n, %zero : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %r = "stablehlo.if"(%done) ({
    stablehlo.return %x : tensor<16xf32>
  }, {
    %one = stablehlo.constant dense<1> : tensor<i64>
    %m = stablehlo.subtract %n, %one : tensor<i64>
    %y = stablehlo.exponential %x : tensor<16xf32>
    %z = func.call @loop(%m, %y) : (tensor<i64>, tensor<16xf32>) -> tensor<16xf32>
    stablehlo.return %z : tensor<16xf32>
  }) : (tensor<i1>) -> tensor<16xf32>
  return %r : tensor<16xf32>
}
