// The forms IREE's end-to-end tests write StableHLO in (docs/jax.md,
// "IREE's test forms"): util.unfoldable_constant, arith.constant,
// flow.tensor.dynamic_constant, tensor.cast, the check dialect with its
// operands in parentheses (atol/rtol, a positional tolerance,
// expect_all_true), and functions written as blocks with cf.br / cf.cond_br.
// Expected values computed by hand.

func.func @unfoldable_constant_and_parenthesized_eq() {
  %a = util.unfoldable_constant dense<[1, -2, 3, 40000]> : tensor<4xi32>
  %b = util.unfoldable_constant dense<[5, 6, -7, 40000]> : tensor<4xi32>
  %0 = stablehlo.multiply %a, %b : tensor<4xi32>
  check.expect_eq_const(%0, dense<[5, -12, -21, 1600000000]> : tensor<4xi32>) : tensor<4xi32>
  %c = arith.constant dense<[5, -12, -21, 1600000000]> : tensor<4xi32>
  check.expect_eq(%0, %c) : tensor<4xi32>
  return
}

func.func @almost_eq_with_both_tolerances() {
  %a = util.unfoldable_constant dense<[1000.0, 0.5, -2.0]> : tensor<3xf32>
  %b = util.unfoldable_constant dense<[0.05, 0.0, 0.0]> : tensor<3xf32>
  %0 = stablehlo.add %a, %b : tensor<3xf32>
  // 1000.05 against 1000.0: within rtol 1e-4 of it (0.1), not within atol alone.
  check.expect_almost_eq_const(%0, dense<[1000.0, 0.5, -2.0]> : tensor<3xf32>, atol 1.0e-4, rtol 1.0e-4) : tensor<3xf32>
  %e = arith.constant dense<[1000.05, 0.5001, -2.0]> : tensor<3xf32>
  check.expect_almost_eq(%0, %e, atol 1.0e-3) : tensor<3xf32>
  return
}

func.func @almost_eq_positional_tolerance() {
  %a = util.unfoldable_constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %0 = stablehlo.sqrt %a : tensor<2x2xf32>
  check.expect_almost_eq_const(%0, dense<[[1.0, 1.414], [1.732, 2.0]]> : tensor<2x2xf32>, 1.0e-3) : tensor<2x2xf32>
  return
}

func.func @all_true() {
  %a = util.unfoldable_constant dense<[1, 2, 3]> : tensor<3xi32>
  %b = util.unfoldable_constant dense<[0, 2, 1]> : tensor<3xi32>
  %0 = stablehlo.compare GE, %a, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
  check.expect_all_true(%0) : tensor<3xi1>
  %1 = stablehlo.add %a, %b : tensor<3xi32>
  check.expect_all_true(%1) : tensor<3xi32>
  return
}

func.func @dynamic_constant_through_an_op() {
  %x = flow.tensor.dynamic_constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32> -> tensor<?x3xf32>
  %0 = stablehlo.negate %x : tensor<?x3xf32>
  %e = arith.constant dense<[[-1.0, -2.0, -3.0], [-4.0, -5.0, -6.0]]> : tensor<2x3xf32>
  %ed = tensor.cast %e : tensor<2x3xf32> to tensor<?x3xf32>
  check.expect_eq(%0, %ed) : tensor<?x3xf32>
  return
}

func.func @dynamic_index_count_gather() {
  %a = util.unfoldable_constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>
  %i = flow.tensor.dynamic_constant dense<[[2], [0], [2]]> : tensor<3x1xi32> -> tensor<?x1xi32>
  %r = "stablehlo.gather"(%a, %i) {
    dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>,
    slice_sizes = array<i64: 1, 2>, indices_are_sorted = false
  } : (tensor<3x2xi32>, tensor<?x1xi32>) -> tensor<?x2xi32>
  %e = arith.constant dense<[[5, 6], [1, 2], [5, 6]]> : tensor<3x2xi32>
  %ed = tensor.cast %e : tensor<3x2xi32> to tensor<?x2xi32>
  check.expect_eq(%r, %ed) : tensor<?x2xi32>
  return
}

// A loop as blocks: doubles 3 until it reaches 20 or more (3, 6, 12, 24).
func.func @cfg_loop() {
  %start = util.unfoldable_constant dense<3> : tensor<i32>
  %bound = util.unfoldable_constant dense<20> : tensor<i32>
  cf.br ^bb1(%start : tensor<i32>)
^bb1(%x: tensor<i32>):
  %lt = stablehlo.compare LT, %x, %bound : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %c = tensor.extract %lt[] : tensor<i1>
  cf.cond_br %c, ^bb2(%x : tensor<i32>), ^bb3(%x : tensor<i32>)
^bb2(%y: tensor<i32>):
  %d = stablehlo.add %y, %y : tensor<i32>
  cf.br ^bb1(%d : tensor<i32>)
^bb3(%r: tensor<i32>):
  check.expect_eq_const(%r, dense<24> : tensor<i32>) : tensor<i32>
  return
}

// Collatz steps from 27 (111 of them): a loop around a diamond, a value
// of the loop's header (%n_is_big) read in a later block it dominates,
// and entry-block constants read everywhere.
func.func @cfg_collatz_steps() {
  %one = stablehlo.constant dense<1> : tensor<i64>
  %two = stablehlo.constant dense<2> : tensor<i64>
  %three = stablehlo.constant dense<3> : tensor<i64>
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %n0 = util.unfoldable_constant dense<27> : tensor<i64>
  cf.br ^head(%n0, %zero : tensor<i64>, tensor<i64>)
^head(%n: tensor<i64>, %steps: tensor<i64>):
  %n_is_big = stablehlo.compare GT, %n, %one : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %go = tensor.extract %n_is_big[] : tensor<i1>
  cf.cond_br %go, ^step, ^done
^step:
  %rem = stablehlo.remainder %n, %two : tensor<i64>
  %odd = stablehlo.compare NE, %rem, %zero : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %o = tensor.extract %odd[] : tensor<i1>
  %next_steps = stablehlo.add %steps, %one : tensor<i64>
  cf.cond_br %o, ^odd, ^even
^odd:
  %t = stablehlo.multiply %n, %three : tensor<i64>
  %t1 = stablehlo.add %t, %one : tensor<i64>
  cf.br ^join(%t1 : tensor<i64>)
^even:
  %h = stablehlo.divide %n, %two : tensor<i64>
  cf.br ^join(%h : tensor<i64>)
^join(%m: tensor<i64>):
  cf.br ^head(%m, %next_steps : tensor<i64>, tensor<i64>)
^done:
  check.expect_eq_const(%steps, dense<111> : tensor<i64>) : tensor<i64>
  check.expect_eq_const(%n_is_big, dense<false> : tensor<i1>) : tensor<i1>
  return
}

// Both successors one block, with different values; a reduce in a block
// reads an entry-block tensor inside its body's region.
func.func @cfg_same_successor_and_regions() {
  %v = util.unfoldable_constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %p = util.unfoldable_constant dense<true> : tensor<i1>
  %c = tensor.extract %p[] : tensor<i1>
  cf.cond_br %c, ^sum(%v : tensor<4xf32>), ^sum(%v : tensor<4xf32>)
^sum(%w: tensor<4xf32>):
  %s = stablehlo.reduce(%w init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  %twice = stablehlo.add %s, %s : tensor<f32>
  check.expect_almost_eq_const(%twice, dense<20.0> : tensor<f32>) : tensor<f32>
  return
}

// torch_index_select on an operand whose shape is known only when it runs
// (a dynamic_gather), an optimization barrier, and a cast back to the
// static shape (a reshape, checked when it runs).
func.func @dynamic_torch_index_select_and_refining_cast() {
  %x = flow.tensor.dynamic_constant dense<[[[1, 2], [3, 4]], [[5, 6], [7, 8]], [[9, 10], [11, 12]]]> : tensor<3x2x2xi32> -> tensor<?x?x?xi32>
  %i = util.unfoldable_constant dense<[2, 0]> : tensor<2xi32>
  %0 = "stablehlo.torch_index_select"(%x, %i) {batch_dims = 0 : i64, dim = 0 : i64} : (tensor<?x?x?xi32>, tensor<2xi32>) -> tensor<2x?x?xi32>
  %1 = util.optimization_barrier %0 : tensor<2x?x?xi32>
  %2 = tensor.cast %1 : tensor<2x?x?xi32> to tensor<2x2x2xi32>
  check.expect_eq_const(%2, dense<[[[9, 10], [11, 12]], [[1, 2], [3, 4]]]> : tensor<2x2x2xi32>) : tensor<2x2x2xi32>
  %3 = "stablehlo.torch_index_select"(%x, %i) {batch_dims = 0 : i64, dim = 2 : i64} : (tensor<?x?x?xi32>, tensor<2xi32>) -> tensor<?x?x2xi32>
  %4 = tensor.cast %3 : tensor<?x?x2xi32> to tensor<3x2x2xi32>
  check.expect_eq_const(%4, dense<[[[2, 1], [4, 3]], [[6, 5], [8, 7]], [[10, 9], [12, 11]]]> : tensor<3x2x2xi32>) : tensor<3x2x2xi32>
  return
}

// The entry block's values are read where they are, of any shape; the
// branch not taken must not run (its check would fail).
func.func @cfg_entry_values_of_dynamic_shape() {
  %x = flow.tensor.dynamic_constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32> -> tensor<?xf32>
  %p = util.unfoldable_constant dense<false> : tensor<i1>
  %c = tensor.extract %p[] : tensor<i1>
  cf.cond_br %c, ^taken_if_true, ^taken_if_false
^taken_if_true:
  %n = stablehlo.negate %x : tensor<?xf32>
  %nd = tensor.cast %n : tensor<?xf32> to tensor<3xf32>
  check.expect_eq_const(%nd, dense<[0.0, 0.0, 0.0]> : tensor<3xf32>) : tensor<3xf32>
  return
^taken_if_false:
  %y = stablehlo.add %x, %x : tensor<?xf32>
  %e = arith.constant dense<[2.0, 4.0, 6.0]> : tensor<3xf32>
  %ed = tensor.cast %e : tensor<3xf32> to tensor<?xf32>
  check.expect_eq(%y, %ed) : tensor<?xf32>
  return
}

// MHLO, as older IREE and TensorFlow tests write it: its ops and attributes
// read as StableHLO's (the quoted enum form too), and torch_index_select's
// negative dim / batch_dims counted from the end.
func.func @mhlo_ops_and_attributes() {
  %a = util.unfoldable_constant dense<[[1, 5], [7, 2]]> : tensor<2x2xi32>
  %b = util.unfoldable_constant dense<[[3, 5], [6, 9]]> : tensor<2x2xi32>
  %lt = "mhlo.compare"(%a, %b) {comparison_direction = #mhlo<"comparison_direction LT">} : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi1>
  %s = "mhlo.select"(%lt, %a, %b) : (tensor<2x2xi1>, tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const(%s, dense<[[1, 5], [6, 2]]> : tensor<2x2xi32>) : tensor<2x2xi32>
  %ge = mhlo.compare GE, %a, %b : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi1>
  %t = mhlo.select %ge, %a, %b : tensor<2x2xi1>, tensor<2x2xi32>
  check.expect_eq_const(%t, dense<[[3, 5], [7, 9]]> : tensor<2x2xi32>) : tensor<2x2xi32>
  %sum = mhlo.add %a, %b : tensor<2x2xi32>
  %z = mhlo.constant dense<0> : tensor<i32>
  %r = "mhlo.reduce"(%sum, %z) ({
  ^bb0(%x: tensor<i32>, %y: tensor<i32>):
    %m = mhlo.add %x, %y : tensor<i32>
    "mhlo.return"(%m) : (tensor<i32>) -> ()
  }) {dimensions = array<i64: 1>} : (tensor<2x2xi32>, tensor<i32>) -> tensor<2xi32>
  check.expect_eq_const(%r, dense<[14, 24]> : tensor<2xi32>) : tensor<2xi32>
  %i = util.unfoldable_constant dense<[[1, 0], [0, 0]]> : tensor<2x2xi32>
  %g = "mhlo.torch_index_select"(%a, %i) {batch_dims = -1 : i64, dim = -1 : i64} : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const(%g, dense<[[5, 1], [7, 7]]> : tensor<2x2xi32>) : tensor<2x2xi32>
  return
}

// Module globals (docs/jax.md, "Module globals"): a store is seen by the
// loads after it; an immutable global is a constant; arith's elementwise ops
// on tensors read as StableHLO's (truncation wraps as convert does).
ml_program.global private mutable @forms_counter(dense<2.0> : tensor<f32>) : tensor<f32>
util.global private @forms_weights = dense<[1, 2, 3]> : tensor<3xi32>

func.func @global_store_then_load() {
  %c = arith.constant dense<5.0> : tensor<f32>
  ml_program.global_store @forms_counter = %c : tensor<f32>
  %1 = ml_program.global_load @forms_counter : tensor<f32>
  %2 = arith.addf %1, %c : tensor<f32>
  check.expect_eq_const(%2, dense<10.0> : tensor<f32>) : tensor<f32>
  return
}

func.func @immutable_global_and_arith() {
  %w = util.global.load @forms_weights : tensor<3xi32>
  %a = util.unfoldable_constant dense<[300, -1, 7]> : tensor<3xi32>
  %m = arith.muli %w, %a : tensor<3xi32>
  %t = arith.trunci %m : tensor<3xi32> to tensor<3xi8>
  %f = arith.sitofp %t : tensor<3xi8> to tensor<3xf32>
  check.expect_eq_const(%f, dense<[44.0, -2.0, 21.0]> : tensor<3xf32>) : tensor<3xf32>
  return
}

// MHLO's older generic form: dimension numbers as a dictionary.
func.func @mhlo_dot_dimension_dictionary() {
  %a = util.unfoldable_constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = util.unfoldable_constant dense<[[5.0], [6.0]]> : tensor<2x1xf32>
  %0 = "mhlo.dot_general"(%a, %b) {dot_dimension_numbers = {lhs_batching_dimensions = dense<[]> : tensor<0xi64>, lhs_contracting_dimensions = dense<1> : tensor<1xi64>, rhs_batching_dimensions = dense<[]> : tensor<0xi64>, rhs_contracting_dimensions = dense<0> : tensor<1xi64>}} : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  check.expect_eq_const(%0, dense<[[17.0], [39.0]]> : tensor<2x1xf32>) : tensor<2x1xf32>
  return
}

// linalg and tensor ops as IREE's tests build tensors with them, and
// scalars (rank-0 values): a parallel linalg.generic with a transposing and
// a broadcasting map, linalg.index and a scalar read from outside the body.
func.func @linalg_generic_parallel() {
  %a = util.unfoldable_constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %row = util.unfoldable_constant dense<[10.0, 20.0]> : tensor<2xf32>
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %row : tensor<2x3xf32>, tensor<2xf32>) outs(%e : tensor<3x2xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %i = linalg.index 0 : index
    %fi = arith.sitofp %i : index to f32
    %m = arith.mulf %x, %two : f32
    %s = arith.addf %m, %y : f32
    %t = arith.addf %s, %fi : f32
    linalg.yield %t : f32
  } -> tensor<3x2xf32>
  check.expect_eq_const(%r, dense<[[12.0, 28.0], [15.0, 31.0], [18.0, 34.0]]> : tensor<3x2xf32>) : tensor<3x2xf32>
  return
}

// Reductions: g(%out, x) and g(x', %out) from linalg.fill's initial values.
func.func @linalg_generic_reductions() {
  %a = util.unfoldable_constant dense<[[1, 7, 3], [4, 2, 6]]> : tensor<2x3xi32>
  %lo = arith.constant -100 : i32
  %e = tensor.empty() : tensor<3xi32>
  %init = linalg.fill ins(%lo : i32) outs(%e : tensor<3xi32>) -> tensor<3xi32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%a : tensor<2x3xi32>) outs(%init : tensor<3xi32>) {
  ^bb0(%x: i32, %o: i32):
    %r = arith.maxsi %o, %x : i32
    linalg.yield %r : i32
  } -> tensor<3xi32>
  check.expect_eq_const(%m, dense<[4, 7, 6]> : tensor<3xi32>) : tensor<3xi32>
  %five = arith.constant 5 : i32
  %e2 = tensor.empty() : tensor<2xi32>
  %init2 = linalg.fill ins(%five : i32) outs(%e2 : tensor<2xi32>) -> tensor<2xi32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<2x3xi32>) outs(%init2 : tensor<2xi32>) {
  ^bb0(%x: i32, %o: i32):
    %sq = arith.muli %x, %x : i32
    %r = arith.addi %sq, %o : i32
    linalg.yield %r : i32
  } -> tensor<2xi32>
  check.expect_eq_const(%s, dense<[64, 61]> : tensor<2xi32>) : tensor<2xi32>
  return
}

// Slices, reshapes, and scalar compare and select.
func.func @tensor_slices_and_scalars() {
  %a = util.unfoldable_constant dense<[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]> : tensor<3x4xi32>
  %s = tensor.extract_slice %a[0, 1] [2, 2] [2, 2] : tensor<3x4xi32> to tensor<2x2xi32>
  check.expect_eq_const(%s, dense<[[1, 3], [9, 11]]> : tensor<2x2xi32>) : tensor<2x2xi32>
  %row = tensor.extract_slice %a[1, 0] [1, 4] [1, 1] : tensor<3x4xi32> to tensor<4xi32>
  check.expect_eq_const(%row, dense<[4, 5, 6, 7]> : tensor<4xi32>) : tensor<4xi32>
  %z = tensor.empty() : tensor<3x4xi32>
  %ins = tensor.insert_slice %s into %z[0, 0] [2, 2] [2, 3] : tensor<2x2xi32> into tensor<3x4xi32>
  check.expect_eq_const(%ins, dense<[[1, 0, 0, 3], [0, 0, 0, 0], [9, 0, 0, 11]]> : tensor<3x4xi32>) : tensor<3x4xi32>
  %e = tensor.expand_shape %row [[0, 1]] output_shape [2, 2] : tensor<4xi32> into tensor<2x2xi32>
  %c = tensor.collapse_shape %e [[0, 1]] : tensor<2x2xi32> into tensor<4xi32>
  check.expect_eq(%c, %row) : tensor<4xi32>
  %x = util.unfoldable_constant 7 : i32
  %y = arith.constant 9 : i32
  %lt = arith.cmpi slt, %x, %y : i32
  %m = arith.select %lt, %y, %x : i32
  check.expect_eq_const(%m, dense<9> : tensor<i32>) : tensor<i32>
  return
}

// Dynamic shapes: sizes from tensor.dim, tensor.empty of them, a column
// sum and a division by it.
func.func @linalg_on_dynamic_shapes() {
  %a = flow.tensor.dynamic_constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32> -> tensor<?x?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %a, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %a, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%d1) : tensor<?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%a : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.addf %x, %o : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %e2 = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %scaled = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %sum : tensor<?x?xf32>, tensor<?xf32>) outs(%e2 : tensor<?x?xf32>) {
  ^bb0(%x: f32, %s: f32, %o: f32):
    %r = arith.divf %x, %s : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  %expected = arith.constant dense<[[0.11111111, 0.16666667], [0.33333334, 0.33333334], [0.5555556, 0.5]]> : tensor<3x2xf32>
  check.expect_almost_eq(%scaled, %expected) : tensor<?x?xf32>
  return
}

// arith's unsigned ops: the signless bits read as unsigned.
func.func @unsigned_arith() {
  %a = util.unfoldable_constant dense<[-1, 2, -8]> : tensor<3xi8>
  %w = arith.extui %a : tensor<3xi8> to tensor<3xi32>
  check.expect_eq_const(%w, dense<[255, 2, 248]> : tensor<3xi32>) : tensor<3xi32>
  %f = arith.uitofp %a : tensor<3xi8> to tensor<3xf32>
  check.expect_eq_const(%f, dense<[255.0, 2.0, 248.0]> : tensor<3xf32>) : tensor<3xf32>
  %b = util.unfoldable_constant dense<[16, 3, 2]> : tensor<3xi8>
  %q = arith.divui %a, %b : tensor<3xi8>
  check.expect_eq_const(%q, dense<[15, 0, 124]> : tensor<3xi8>) : tensor<3xi8>
  %lt = arith.cmpi ult, %b, %a : tensor<3xi8>
  check.expect_eq_const(%lt, dense<[true, false, true]> : tensor<3xi1>) : tensor<3xi1>
  %m = arith.maxui %a, %b : tensor<3xi8>
  check.expect_eq_const(%m, dense<[-1, 3, -8]> : tensor<3xi8>) : tensor<3xi8>
  %g = util.unfoldable_constant dense<[200.0, 3.5]> : tensor<2xf32>
  %u = arith.fptoui %g : tensor<2xf32> to tensor<2xi8>
  check.expect_eq_const(%u, dense<[-56, 3]> : tensor<2xi8>) : tensor<2xi8>
  return
}

// linalg's named ops: a matmul accumulating i8 products into i32 (the
// operands cast to the output's type), batch_matmul, transpose, broadcast.
func.func @linalg_named_ops() {
  %a = util.unfoldable_constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi8>
  %b = util.unfoldable_constant dense<[[1, 0], [0, 1], [1, 1]]> : tensor<3x2xi8>
  %init = util.unfoldable_constant dense<[[100, 0], [0, 100]]> : tensor<2x2xi32>
  %m = linalg.matmul ins(%a, %b : tensor<2x3xi8>, tensor<3x2xi8>) outs(%init : tensor<2x2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const(%m, dense<[[104, 5], [10, 111]]> : tensor<2x2xi32>) : tensor<2x2xi32>
  %x = util.unfoldable_constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[0.5, 0.0], [0.0, 2.0]]]> : tensor<2x2x2xf32>
  %z = tensor.empty() : tensor<2x2x2xf32>
  %zero = arith.constant 0.0 : f32
  %zf = linalg.fill ins(%zero : f32) outs(%z : tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  %bm = linalg.batch_matmul ins(%x, %x : tensor<2x2x2xf32>, tensor<2x2x2xf32>) outs(%zf : tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  check.expect_eq_const(%bm, dense<[[[7.0, 10.0], [15.0, 22.0]], [[0.25, 0.0], [0.0, 4.0]]]> : tensor<2x2x2xf32>) : tensor<2x2x2xf32>
  %t0 = tensor.empty() : tensor<3x2xi8>
  %t = linalg.transpose ins(%a : tensor<2x3xi8>) outs(%t0 : tensor<3x2xi8>) permutation = [1, 0]
  check.expect_eq_const(%t, dense<[[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi8>) : tensor<3x2xi8>
  %v = util.unfoldable_constant dense<[7, 8]> : tensor<2xi8>
  %b0 = tensor.empty() : tensor<2x3xi8>
  %bc = linalg.broadcast ins(%v : tensor<2xi8>) outs(%b0 : tensor<2x3xi8>) dimensions = [1]
  check.expect_eq_const(%bc, dense<[[7, 7, 7], [8, 8, 8]]> : tensor<2x3xi8>) : tensor<2x3xi8>
  return
}

// Constant indices in indexing maps: an operand read at a fixed column, an
// output written at index 0 of a unit dimension; a constant in the body.
func.func @linalg_generic_constant_indices() {
  %a = util.unfoldable_constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %e = tensor.empty() : tensor<2x1xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0, 1)>, affine_map<(d0) -> (d0, 0)>], iterator_types = ["parallel"]} ins(%a : tensor<2x2xf32>) outs(%e : tensor<2x1xf32>) {
  ^bb0(%x: f32, %o: f32):
    %ten = arith.constant 10.0 : f32
    %m = arith.mulf %x, %ten : f32
    linalg.yield %m : f32
  } -> tensor<2x1xf32>
  check.expect_eq_const(%r, dense<[[20.0], [40.0]]> : tensor<2x1xf32>) : tensor<2x1xf32>
  %z = arith.constant dense<[0.5]> : tensor<1xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0)>], iterator_types = ["reduction", "reduction"]} ins(%a : tensor<2x2xf32>) outs(%z : tensor<1xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = arith.addf %x, %o : f32
    linalg.yield %t : f32
  } -> tensor<1xf32>
  check.expect_eq_const(%s, dense<[10.5]> : tensor<1xf32>) : tensor<1xf32>
  return
}

// Slices whose offsets and sizes are known only when the program runs (as
// torch-mlir writes strided slices): real_dynamic_slice, each limit
// clamped to the operand; a size of zero gives an empty slice; an operand
// of dynamic shape.
func.func @tensor_slices_dynamic() {
  %a = util.unfoldable_constant dense<[[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [10, 11, 12, 13, 14]]> : tensor<3x5xi32>
  %i = util.unfoldable_constant 1 : index
  %n = util.unfoldable_constant 2 : index
  %s = tensor.extract_slice %a[%i, 1] [2, %n] [1, 2] : tensor<3x5xi32> to tensor<2x?xi32>
  %sc = tensor.cast %s : tensor<2x?xi32> to tensor<2x2xi32>
  check.expect_eq_const(%sc, dense<[[6, 8], [11, 13]]> : tensor<2x2xi32>) : tensor<2x2xi32>
  // Three columns at a stride of 2 end at the last one (the limit 6 clamped to 5).
  %m = util.unfoldable_constant 3 : index
  %t = tensor.extract_slice %a[2, 0] [1, %m] [1, 2] : tensor<3x5xi32> to tensor<1x?xi32>
  %tc = tensor.cast %t : tensor<1x?xi32> to tensor<1x3xi32>
  check.expect_eq_const(%tc, dense<[[10, 12, 14]]> : tensor<1x3xi32>) : tensor<1x3xi32>
  %zero = util.unfoldable_constant 0 : index
  %e = tensor.extract_slice %a[%i, 2] [%zero, 3] [1, 1] : tensor<3x5xi32> to tensor<?x3xi32>
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %e, %c0 : tensor<?x3xi32>
  check.expect_eq_const(%rows, dense<0> : tensor<i64>) : tensor<i64>
  %d = flow.tensor.dynamic_constant dense<[[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [10, 11, 12, 13, 14]]> : tensor<3x5xi32> -> tensor<?x5xi32>
  %u = tensor.extract_slice %d[1, 3] [2, 2] [1, 1] : tensor<?x5xi32> to tensor<2x2xi32>
  check.expect_eq_const(%u, dense<[[8, 9], [13, 14]]> : tensor<2x2xi32>) : tensor<2x2xi32>
  return
}

// IREE's sort (iree_linalg_ext.sort) of keys and their indices, descending
// along dimension 1: stablehlo.sort with the same comparator.
func.func @linalg_ext_sort() {
  %k = util.unfoldable_constant dense<[[3.0, 1.0, 2.0], [0.5, 4.0, -1.0]]> : tensor<2x3xf32>
  %i = util.unfoldable_constant dense<[[0, 1, 2], [0, 1, 2]]> : tensor<2x3xi32>
  %s:2 = iree_linalg_ext.sort dimension(1) outs(%k, %i : tensor<2x3xf32>, tensor<2x3xi32>) {
  ^bb0(%a: f32, %b: f32, %x: i32, %y: i32):
    %gt = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %gt : i1
  } -> tensor<2x3xf32>, tensor<2x3xi32>
  check.expect_eq_const(%s#0, dense<[[3.0, 2.0, 1.0], [4.0, 0.5, -1.0]]> : tensor<2x3xf32>) : tensor<2x3xf32>
  check.expect_eq_const(%s#1, dense<[[0, 2, 1], [1, 0, 2]]> : tensor<2x3xi32>) : tensor<2x3xi32>
  return
}

// rng_bit_generator with IREE's tensor<4xi32> state: key = words 0 and 1
// (low first) = 1 + 2 * 2^32, counter = words 3 and 2 (high first) = 4 +
// 3 * 2^32; IREE's PHILOX also puts the key in the counter's upper half.
// The bits are the spec op's on those ui64 words; the new state keeps the
// key words and holds the advanced counter low word first.
func.func @rng_bit_generator_iree_state() {
  %s = util.unfoldable_constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %t0:2 = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<4xi32>) -> (tensor<4xi32>, tensor<2x3xi32>)
  %u = stablehlo.constant dense<[8589934593, 12884901892]> : tensor<2xui64>
  %t1:2 = "stablehlo.rng_bit_generator"(%u) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x3xi32>)
  check.expect_eq(%t0#1, %t1#1) : tensor<2x3xi32>
  // 2x3 words take 3 blocks of 2.
  check.expect_eq_const(%t0#0, dense<[1, 2, 7, 3]> : tensor<4xi32>) : tensor<4xi32>
  %p0:2 = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<4xi32>) -> (tensor<4xi32>, tensor<8xi32>)
  %v = stablehlo.constant dense<[8589934593, 12884901892, 8589934593]> : tensor<3xui64>
  %p1:2 = "stablehlo.rng_bit_generator"(%v) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<3xui64>) -> (tensor<3xui64>, tensor<8xi32>)
  check.expect_eq(%p0#1, %p1#1) : tensor<8xi32>
  // 8 words take 2 blocks of 4.
  check.expect_eq_const(%p0#0, dense<[1, 2, 6, 3]> : tensor<4xi32>) : tensor<4xi32>
  return
}
