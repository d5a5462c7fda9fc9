// Integer ops over run-time inputs, for comparing devices and machines bit
// for bit (scripts/arm64_conformance.sh runs it on x86-64 and arm64).
func.func @main(%a: tensor<64xi32>, %b: tensor<64xi32>, %c: tensor<64xi64>, %d: tensor<64xui8>)
    -> (tensor<64xi32>, tensor<64xi32>, tensor<64xi32>, tensor<64xi32>, tensor<64xi32>,
        tensor<64xi32>, tensor<64xi32>, tensor<64xi32>, tensor<64xi32>, tensor<64xi32>,
        tensor<64xi1>, tensor<64xi64>, tensor<64xi64>, tensor<64xui8>, tensor<64xui8>,
        tensor<64xi8>, tensor<64xi16>, tensor<8x8xi32>, tensor<8xi32>, tensor<64xui32>, tensor<64xi32>) {
  %0 = stablehlo.add %a, %b : tensor<64xi32>
  %1 = stablehlo.multiply %a, %b : tensor<64xi32>
  %2 = stablehlo.divide %a, %b : tensor<64xi32>
  %3 = stablehlo.remainder %a, %b : tensor<64xi32>
  %4 = stablehlo.shift_left %a, %b : tensor<64xi32>
  %5 = stablehlo.shift_right_arithmetic %a, %b : tensor<64xi32>
  %6 = stablehlo.shift_right_logical %a, %b : tensor<64xi32>
  %7 = stablehlo.popcnt %a : tensor<64xi32>
  %8 = stablehlo.count_leading_zeros %a : tensor<64xi32>
  %s = stablehlo.subtract %a, %b : tensor<64xi32>
  %x = stablehlo.xor %a, %b : tensor<64xi32>
  %9 = stablehlo.and %s, %x : tensor<64xi32>
  %10 = stablehlo.compare LT, %a, %b, SIGNED : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi1>
  %c2 = stablehlo.multiply %c, %c : tensor<64xi64>
  %11 = stablehlo.subtract %c2, %c : tensor<64xi64>
  %12 = stablehlo.convert %a : (tensor<64xi32>) -> tensor<64xi64>
  %13 = stablehlo.add %d, %d : tensor<64xui8>
  %dd = stablehlo.multiply %d, %d : tensor<64xui8>
  %14 = stablehlo.maximum %dd, %d : tensor<64xui8>
  %15 = stablehlo.convert %a : (tensor<64xi32>) -> tensor<64xi8>
  %16 = stablehlo.convert %b : (tensor<64xi32>) -> tensor<64xi16>
  %ra = stablehlo.reshape %a : (tensor<64xi32>) -> tensor<8x8xi32>
  %rb = stablehlo.reshape %b : (tensor<64xi32>) -> tensor<8x8xi32>
  %17 = stablehlo.dot_general %ra, %rb, contracting_dims = [1] x [0] : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %18 = stablehlo.reduce(%17 init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<8x8xi32>, tensor<i32>) -> tensor<8xi32>
  %19 = stablehlo.bitcast_convert %a : (tensor<64xi32>) -> tensor<64xui32>
  %lo = stablehlo.constant dense<-1000> : tensor<64xi32>
  %hi = stablehlo.constant dense<1000> : tensor<64xi32>
  %20 = stablehlo.clamp %lo, %a, %hi : tensor<64xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20
    : tensor<64xi32>, tensor<64xi32>, tensor<64xi32>, tensor<64xi32>, tensor<64xi32>,
      tensor<64xi32>, tensor<64xi32>, tensor<64xi32>, tensor<64xi32>, tensor<64xi32>,
      tensor<64xi1>, tensor<64xi64>, tensor<64xi64>, tensor<64xui8>, tensor<64xui8>,
      tensor<64xi8>, tensor<64xi16>, tensor<8x8xi32>, tensor<8xi32>, tensor<64xui32>, tensor<64xi32>
}
