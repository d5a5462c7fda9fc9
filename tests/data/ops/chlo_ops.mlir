// chlo ops that JAX emits and the CPU runs, with expected values from
// Python's math module (and series for digamma, polygamma, zeta and
// bessel_i1e). The vulkan target refuses them (docs/vulkan.md, Not yet):
// scripts/gen_ops_doc.sh lists them in docs/ops.md from this file, and
// ctest's docs.vulkan_refusals_documented checks both docs name each one.

// -----

func.func @erf() {
  %x = stablehlo.constant dense<[-1.5, -0.5, 0.0, 0.5, 2.0]> : tensor<5xf32>
  %r = "chlo.erf"(%x) : (tensor<5xf32>) -> tensor<5xf32>
  check.expect_almost_eq_const %r, dense<[-0.966105146, -0.520499878, 0.0, 0.520499878, 0.995322265]> : tensor<5xf32>
  func.return
}

// -----

func.func @erfc() {
  %x = stablehlo.constant dense<[-1.5, -0.5, 0.0, 0.5, 2.0]> : tensor<5xf32>
  %r = "chlo.erfc"(%x) : (tensor<5xf32>) -> tensor<5xf32>
  check.expect_almost_eq_const %r, dense<[1.96610515, 1.52049988, 1.0, 0.479500122, 0.00467773498]> : tensor<5xf32>
  func.return
}

// -----

func.func @erf_inv() {
  %x = stablehlo.constant dense<[-0.9, -0.3, 0.0, 0.5, 0.99]> : tensor<5xf32>
  %r = "chlo.erf_inv"(%x) : (tensor<5xf32>) -> tensor<5xf32>
  check.expect_almost_eq_const %r, dense<[-1.16308715, -0.272462715, 0.0, 0.476936276, 1.82138637]> : tensor<5xf32>
  func.return
}

// -----

func.func @lgamma() {
  %x = stablehlo.constant dense<[0.5, 1.0, 2.5, 5.0, 10.0]> : tensor<5xf32>
  %r = "chlo.lgamma"(%x) : (tensor<5xf32>) -> tensor<5xf32>
  check.expect_almost_eq_const %r, dense<[0.572364943, 0.0, 0.28468287, 3.17805383, 12.8018275]> : tensor<5xf32>
  func.return
}

// -----

func.func @digamma() {
  %x = stablehlo.constant dense<[0.5, 1.0, 2.5, 5.0, 10.0]> : tensor<5xf32>
  %r = "chlo.digamma"(%x) : (tensor<5xf32>) -> tensor<5xf32>
  check.expect_almost_eq_const %r, dense<[-1.96351003, -0.577215665, 0.703156641, 1.50611767, 2.25175259]> : tensor<5xf32>
  func.return
}

// -----

func.func @asin() {
  %x = stablehlo.constant dense<[-1.0, -0.5, 0.0, 0.5, 0.9]> : tensor<5xf32>
  %r = "chlo.asin"(%x) : (tensor<5xf32>) -> tensor<5xf32>
  check.expect_almost_eq_const %r, dense<[-1.57079633, -0.523598776, 0.0, 0.523598776, 1.11976951]> : tensor<5xf32>
  func.return
}

// -----

func.func @acos() {
  %x = stablehlo.constant dense<[-1.0, -0.5, 0.0, 0.5, 0.9]> : tensor<5xf32>
  %r = "chlo.acos"(%x) : (tensor<5xf32>) -> tensor<5xf32>
  check.expect_almost_eq_const %r, dense<[3.14159265, 2.0943951, 1.57079633, 1.04719755, 0.451026812]> : tensor<5xf32>
  func.return
}

// -----

func.func @atan() {
  %x = stablehlo.constant dense<[-3.0, -0.5, 0.0, 0.5, 10.0]> : tensor<5xf32>
  %r = "chlo.atan"(%x) : (tensor<5xf32>) -> tensor<5xf32>
  check.expect_almost_eq_const %r, dense<[-1.24904577, -0.463647609, 0.0, 0.463647609, 1.47112767]> : tensor<5xf32>
  func.return
}

// -----

func.func @sinh() {
  %x = stablehlo.constant dense<[-2.0, -0.5, 0.0, 0.5, 3.0]> : tensor<5xf32>
  %r = "chlo.sinh"(%x) : (tensor<5xf32>) -> tensor<5xf32>
  check.expect_almost_eq_const %r, dense<[-3.62686041, -0.521095305, 0.0, 0.521095305, 10.0178749]> : tensor<5xf32>
  func.return
}

// -----

func.func @cosh() {
  %x = stablehlo.constant dense<[-2.0, -0.5, 0.0, 0.5, 3.0]> : tensor<5xf32>
  %r = "chlo.cosh"(%x) : (tensor<5xf32>) -> tensor<5xf32>
  check.expect_almost_eq_const %r, dense<[3.76219569, 1.12762597, 1.0, 1.12762597, 10.067662]> : tensor<5xf32>
  func.return
}

// -----

func.func @asinh() {
  %x = stablehlo.constant dense<[-2.0, -0.5, 0.0, 0.5, 3.0]> : tensor<5xf32>
  %r = "chlo.asinh"(%x) : (tensor<5xf32>) -> tensor<5xf32>
  check.expect_almost_eq_const %r, dense<[-1.44363548, -0.481211825, 0.0, 0.481211825, 1.81844646]> : tensor<5xf32>
  func.return
}

// -----

func.func @acosh() {
  %x = stablehlo.constant dense<[1.0, 1.5, 2.0, 5.0, 10.0]> : tensor<5xf32>
  %r = "chlo.acosh"(%x) : (tensor<5xf32>) -> tensor<5xf32>
  check.expect_almost_eq_const %r, dense<[0.0, 0.96242365, 1.3169579, 2.29243167, 2.99322285]> : tensor<5xf32>
  func.return
}

// -----

func.func @atanh() {
  %x = stablehlo.constant dense<[-0.9, -0.5, 0.0, 0.5, 0.9]> : tensor<5xf32>
  %r = "chlo.atanh"(%x) : (tensor<5xf32>) -> tensor<5xf32>
  check.expect_almost_eq_const %r, dense<[-1.47221949, -0.549306144, 0.0, 0.549306144, 1.47221949]> : tensor<5xf32>
  func.return
}

// -----

func.func @bessel_i1e() {
  %x = stablehlo.constant dense<[-2.0, -0.5, 0.0, 0.5, 3.0]> : tensor<5xf32>
  %r = "chlo.bessel_i1e"(%x) : (tensor<5xf32>) -> tensor<5xf32>
  check.expect_almost_eq_const %r, dense<[-0.215269289, -0.156420803, 0.0, 0.156420803, 0.196826713]> : tensor<5xf32>
  func.return
}

// -----

func.func @polygamma() {
  %a = stablehlo.constant dense<[1.0, 1.0, 0.0]> : tensor<3xf32>
  %b = stablehlo.constant dense<[1.0, 2.0, 2.5]> : tensor<3xf32>
  %r = "chlo.polygamma"(%a, %b) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  check.expect_almost_eq_const %r, dense<[1.64493407, 0.644934067, 0.703156641]> : tensor<3xf32>
  func.return
}

// -----

func.func @zeta() {
  %a = stablehlo.constant dense<[2.0, 2.0, 3.0]> : tensor<3xf32>
  %b = stablehlo.constant dense<[1.0, 2.0, 1.0]> : tensor<3xf32>
  %r = "chlo.zeta"(%a, %b) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  check.expect_almost_eq_const %r, dense<[1.64493407, 0.644934067, 1.2020569]> : tensor<3xf32>
  func.return
}

// -----

func.func @next_after() {
  %a = stablehlo.constant dense<[1.0, 1.0, 0.0]> : tensor<3xf32>
  %b = stablehlo.constant dense<[2.0, 0.0, 1.0]> : tensor<3xf32>
  %r = "chlo.next_after"(%a, %b) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  check.expect_eq_const %r, dense<[1.00000012, 0.99999994, 1.40129846e-45]> : tensor<3xf32>
  func.return
}

// -----

func.func @top_k() {
  %x = stablehlo.constant dense<[[3.0, 1.0, 4.0, 1.5], [9.0, 2.0, 6.0, 5.0]]> : tensor<2x4xf32>
  %v, %i = "chlo.top_k"(%x) {k = 2 : i64} : (tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xi32>)
  check.expect_eq_const %v, dense<[[4.0, 3.0], [9.0, 6.0]]> : tensor<2x2xf32>
  check.expect_eq_const %i, dense<[[2, 0], [0, 2]]> : tensor<2x2xi32>
  func.return
}
