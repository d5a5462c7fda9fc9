// Ops that VHLO still carries but the spec dropped, run by the definitions
// they are legalized to (compiler/passes/legalize_deprecated.cc), with their
// results as checks (tests/e2e/spec_ops_test.cc).

// XLA's Broadcast: output[i0, ..., iN, j0, ..., jM] = operand[j0, ..., jM].
func.func @broadcast_matrix() {
  %operand = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %result = "stablehlo.broadcast"(%operand) {broadcast_sizes = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2x2x3xf32>
  check.expect_eq_const %result, dense<[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]]> : tensor<2x2x3xf32>
  func.return
}

// -----

func.func @broadcast_scalar_to_two_dims() {
  %operand = stablehlo.constant dense<7> : tensor<i8>
  %result = "stablehlo.broadcast"(%operand) {broadcast_sizes = array<i64: 2, 3>} : (tensor<i8>) -> tensor<2x3xi8>
  check.expect_eq_const %result, dense<7> : tensor<2x3xi8>
  func.return
}

// -----

func.func @broadcast_no_new_dims() {
  %operand = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %result = "stablehlo.broadcast"(%operand) {broadcast_sizes = array<i64>} : (tensor<2xi1>) -> tensor<2xi1>
  check.expect_eq_const %result, dense<[true, false]> : tensor<2xi1>
  func.return
}

// -----

func.func @broadcast_zero_size() {
  %operand = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %result = "stablehlo.broadcast"(%operand) {broadcast_sizes = array<i64: 0>} : (tensor<2xi64>) -> tensor<0x2xi64>
  check.expect_eq_const %result, dense<> : tensor<0x2xi64>
  func.return
}

// -----

func.func @broadcast_pretty_form() {
  %operand = stablehlo.constant dense<[1.5, -2.5]> : tensor<2xf64>
  %result = stablehlo.broadcast %operand, sizes = [3] : (tensor<2xf64>) -> tensor<3x2xf64>
  check.expect_eq_const %result, dense<[[1.5, -2.5], [1.5, -2.5], [1.5, -2.5]]> : tensor<3x2xf64>
  func.return
}

// -----

func.func @einsum_matmul() {
  %a = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = stablehlo.constant dense<[[5.0, 6.0], [7.0, 8.0]]> : tensor<2x2xf32>
  %r = "stablehlo.einsum"(%a, %b) {einsum_config = "ab,bc->ac"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %t = "stablehlo.einsum"(%a, %b) {einsum_config = "ij,jk->ki"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_eq_const %r, dense<[[19.0, 22.0], [43.0, 50.0]]> : tensor<2x2xf32>
  check.expect_eq_const %t, dense<[[19.0, 43.0], [22.0, 50.0]]> : tensor<2x2xf32>
  func.return
}

// -----

func.func @einsum_batch_outer_and_summed_labels() {
  %l = stablehlo.constant dense<[[[1, 2]], [[3, 4]]]> : tensor<2x1x2xi32>
  %r = stablehlo.constant dense<[[[1], [1]], [[2], [0]]]> : tensor<2x2x1xi32>
  %bmm = "stablehlo.einsum"(%l, %r) {einsum_config = "bij,bjk->bik"} : (tensor<2x1x2xi32>, tensor<2x2x1xi32>) -> tensor<2x1x1xi32>
  %u = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %v = stablehlo.constant dense<[3, 4, 5]> : tensor<3xi32>
  %outer = "stablehlo.einsum"(%u, %v) {einsum_config = "i,j->ij"} : (tensor<2xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %x = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %y = stablehlo.constant dense<[10, 20]> : tensor<2xi32>
  // j is summed out of x and k out of y before the product.
  %sums = "stablehlo.einsum"(%x, %y) {einsum_config = "ij,k->i"} : (tensor<2x2xi32>, tensor<2xi32>) -> tensor<2xi32>
  check.expect_eq_const %bmm, dense<[[[3]], [[6]]]> : tensor<2x1x1xi32>
  check.expect_eq_const %outer, dense<[[3, 4, 5], [6, 8, 10]]> : tensor<2x3xi32>
  check.expect_eq_const %sums, dense<[90, 210]> : tensor<2xi32>
  func.return
}

// -----

func.func @unary_einsum() {
  %x = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %rows = "stablehlo.unary_einsum"(%x) {einsum_config = "ab->a"} : (tensor<2x3xf32>) -> tensor<2xf32>
  %t = "stablehlo.unary_einsum"(%x) {einsum_config = "ab->ba"} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %same = "stablehlo.unary_einsum"(%x) {einsum_config = "ab->ab"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %all = "stablehlo.unary_einsum"(%x) {einsum_config = "ab->"} : (tensor<2x3xf32>) -> tensor<f32>
  check.expect_eq_const %rows, dense<[6.0, 15.0]> : tensor<2xf32>
  check.expect_eq_const %t, dense<[[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]> : tensor<3x2xf32>
  check.expect_eq_const %same, dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  check.expect_eq_const %all, dense<21.0> : tensor<f32>
  func.return
}

// -----

// torch_index_select(x, index) {dim, batch_dims}: with B = batch_dims,
// result[b.., p.., i.., q..] = x[b.., p.., index[b.., i..], q..].
func.func @torch_index_select() {
  %x = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %i = stablehlo.constant dense<[2, 0]> : tensor<2xi32>
  %rows = "stablehlo.torch_index_select"(%x, %i) {dim = 0 : i64, batch_dims = 0 : i64} : (tensor<3x2xf32>, tensor<2xi32>) -> tensor<2x2xf32>
  %y = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %j = stablehlo.constant dense<[2, 2, 0]> : tensor<3xi64>
  %cols = "stablehlo.torch_index_select"(%y, %j) {dim = 1 : i64, batch_dims = 0 : i64} : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  %k = stablehlo.constant dense<[[0, 2], [1, 1]]> : tensor<2x2xi32>
  %batched = "stablehlo.torch_index_select"(%y, %k) {dim = 1 : i64, batch_dims = 1 : i64} : (tensor<2x3xi64>, tensor<2x2xi32>) -> tensor<2x2xi64>
  %v = stablehlo.constant dense<[10, 20, 30, 40]> : tensor<4xi8>
  %m = stablehlo.constant dense<[[3, 0], [1, 1]]> : tensor<2x2xi32>
  %grid = "stablehlo.torch_index_select"(%v, %m) {dim = 0 : i64, batch_dims = 0 : i64} : (tensor<4xi8>, tensor<2x2xi32>) -> tensor<2x2xi8>
  %z = stablehlo.constant dense<[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]> : tensor<2x2x2xi32>
  %w = stablehlo.constant dense<[1]> : tensor<1xi32>
  %mid = "stablehlo.torch_index_select"(%z, %w) {dim = 1 : i64, batch_dims = 0 : i64} : (tensor<2x2x2xi32>, tensor<1xi32>) -> tensor<2x1x2xi32>
  check.expect_eq_const %rows, dense<[[5.0, 6.0], [1.0, 2.0]]> : tensor<2x2xf32>
  check.expect_eq_const %cols, dense<[[3, 3, 1], [6, 6, 4]]> : tensor<2x3xi64>
  check.expect_eq_const %batched, dense<[[1, 3], [5, 5]]> : tensor<2x2xi64>
  check.expect_eq_const %grid, dense<[[40, 10], [20, 20]]> : tensor<2x2xi8>
  check.expect_eq_const %mid, dense<[[[3, 4]], [[7, 8]]]> : tensor<2x1x2xi32>
  func.return
}

// -----

// cross-replica-sum is all_reduce with an add body; on one replica, the
// identity.
func.func @cross_replica_sum_one_replica() {
  %x = stablehlo.constant dense<[1.5, -2.0]> : tensor<2xf32>
  %r = "stablehlo.cross-replica-sum"(%x) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<2xf32>) -> tensor<2xf32>
  check.expect_eq_const %r, dense<[1.5, -2.0]> : tensor<2xf32>
  func.return
}

// -----

// trace is a debugging annotation: removed.
func.func @trace_is_removed() {
  %x = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  "stablehlo.trace"(%x) {tag = "x"} : (tensor<2xf32>) -> ()
  check.expect_eq_const %x, dense<[1.0, 2.0]> : tensor<2xf32>
  func.return
}

// -----

func.func @dot_create_token_tuple() {
  %a = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = stablehlo.constant dense<[[5.0], [6.0]]> : tensor<2x1xf32>
  %d = "stablehlo.dot"(%a, %b) {precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  %t = "stablehlo.create_token"() : () -> !stablehlo.token
  %tup = "stablehlo.tuple"(%d, %t) : (tensor<2x1xf32>, !stablehlo.token) -> tuple<tensor<2x1xf32>, !stablehlo.token>
  %y = "stablehlo.get_tuple_element"(%tup) {index = 0 : i32} : (tuple<tensor<2x1xf32>, !stablehlo.token>) -> tensor<2x1xf32>
  check.expect_eq_const %y, dense<[[17.0], [39.0]]> : tensor<2x1xf32>
  func.return
}
