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

// -----

// Of complex operands: expected values from Python's cmath.
func.func @inverse_functions_complex() {
  %x = stablehlo.constant dense<[(0.5, 0.5), (-2, 1), (1, -0.001), (0, 3), (-0.25, -4)]> : tensor<5xcomplex<f32>>
  %y = stablehlo.constant dense<[(0.5, 0.5), (-2, 1), (1, -0.001), (0, 3), (-0.25, -4)]> : tensor<5xcomplex<f64>>
  %asin32 = "chlo.asin"(%x) : (tensor<5xcomplex<f32>>) -> tensor<5xcomplex<f32>>
  check.expect_almost_eq_const %asin32, dense<[(0.452278447, 0.530637531), (-1.06344002, 1.46935174), (1.53917619, -0.0316254112), (0, 1.81844646), (-0.0605662744, -2.09649311)]> : tensor<5xcomplex<f32>>
  %asin64 = "chlo.asin"(%y) : (tensor<5xcomplex<f64>>) -> tensor<5xcomplex<f64>>
  check.expect_almost_eq_const %asin64, dense<[(0.45227844715119064, 0.53063753095251776), (-1.0634400235777519, 1.4693517443681852), (1.5391761860173467, -0.031625411239963805), (0, 1.8184464592320668), (-0.060566274420764385, -2.0964931062567533)]> : tensor<5xcomplex<f64>>
  %acos32 = "chlo.acos"(%x) : (tensor<5xcomplex<f32>>) -> tensor<5xcomplex<f32>>
  check.expect_almost_eq_const %acos32, dense<[(1.11851788, -0.530637531), (2.63423635, -1.46935174), (0.0316201408, 0.0316254112), (1.57079633, -1.81844646), (1.6313626, 2.09649311)]> : tensor<5xcomplex<f32>>
  %acos64 = "chlo.acos"(%y) : (tensor<5xcomplex<f64>>) -> tensor<5xcomplex<f64>>
  check.expect_almost_eq_const %acos64, dense<[(1.1185178796437059, -0.53063753095251776), (2.6342363503726487, -1.4693517443681852), (0.031620140777549786, 0.031625411239963805), (1.5707963267948966, -1.8184464592320668), (1.631362601215661, 2.0964931062567533)]> : tensor<5xcomplex<f64>>
  %atan32 = "chlo.atan"(%x) : (tensor<5xcomplex<f32>>) -> tensor<5xcomplex<f32>>
  check.expect_almost_eq_const %atan32, dense<[(0.553574359, 0.402359478), (-1.17809725, 0.173286795), (0.785398413, -0.000499999917), (1.57079633, 0.34657359), (-1.55420491, -0.254306921)]> : tensor<5xcomplex<f32>>
  %atan64 = "chlo.atan"(%y) : (tensor<5xcomplex<f64>>) -> tensor<5xcomplex<f64>>
  check.expect_almost_eq_const %atan64, dense<[(0.5535743588970452, 0.40235947810852507), (-1.1780972450961724, 0.17328679513998632), (0.78539841339744831, -0.00049999991666664168), (1.5707963267948966, 0.34657359027997264), (-1.5542049087116474, -0.25430692122149867)]> : tensor<5xcomplex<f64>>
  %asinh32 = "chlo.asinh"(%x) : (tensor<5xcomplex<f32>>) -> tensor<5xcomplex<f32>>
  check.expect_almost_eq_const %asinh32, dense<[(0.530637531, 0.452278447), (-1.52857092, 0.427078586), (0.881373764, -0.000707106752), (1.76274717, 1.57079633), (-2.06558352, -1.50634492)]> : tensor<5xcomplex<f32>>
  %asinh64 = "chlo.asinh"(%y) : (tensor<5xcomplex<f64>>) -> tensor<5xcomplex<f64>>
  check.expect_almost_eq_const %asinh64, dense<[(0.53063753095251776, 0.45227844715119064), (-1.5285709194809982, 0.42707858639247609), (0.88137376379624943, -0.00070710675172375073), (1.7627471740390861, 1.5707963267948966), (-2.0655835152052977, -1.506344919991575)]> : tensor<5xcomplex<f64>>
  %acosh32 = "chlo.acosh"(%x) : (tensor<5xcomplex<f32>>) -> tensor<5xcomplex<f32>>
  check.expect_almost_eq_const %acosh32, dense<[(0.530637531, 1.11851788), (1.46935174, 2.63423635), (0.0316254112, -0.0316201408), (1.81844646, 1.57079633), (2.09649311, -1.6313626)]> : tensor<5xcomplex<f32>>
  %acosh64 = "chlo.acosh"(%y) : (tensor<5xcomplex<f64>>) -> tensor<5xcomplex<f64>>
  check.expect_almost_eq_const %acosh64, dense<[(0.53063753095251776, 1.1185178796437059), (1.4693517443681852, 2.6342363503726487), (0.031625411239963805, -0.031620140777549786), (1.8184464592320668, 1.5707963267948966), (2.0964931062567533, -1.631362601215661)]> : tensor<5xcomplex<f64>>
  %atanh32 = "chlo.atanh"(%x) : (tensor<5xcomplex<f32>>) -> tensor<5xcomplex<f32>>
  check.expect_almost_eq_const %atanh32, dense<[(0.402359478, 0.553574359), (-0.402359478, 1.33897252), (3.80045129, -0.785648163), (0, 1.24904577), (-0.0146562108, -1.32667992)]> : tensor<5xcomplex<f32>>
  %atanh64 = "chlo.atanh"(%y) : (tensor<5xcomplex<f64>>) -> tensor<5xcomplex<f64>>
  check.expect_almost_eq_const %atanh64, dense<[(0.40235947810852507, 0.5535743588970452), (-0.40235947810852507, 1.3389725222944935), (3.8004512922710334, -0.78564816337661503), (0, 1.2490457723982544), (-0.014656210836880889, -1.3266799176095636)]> : tensor<5xcomplex<f64>>
  func.return
}
