#!/usr/bin/env python3
"""Writes tests/data/ops/quantized_ops.mlir: programs on quantized tensors
(per-tensor and per-axis, i8 and u8 storage) for every op family the spec
defines on them, each with its expected values computed here, independently
of Kiln, from the spec's definitions:

  dequantize(q) = convert(q - zero_point, f32) * scale
  quantize(x)   = convert(round_nearest_even(clamp(min, x / scale + zero_point, max)), storage)
  an op on quantized tensors = dequantize -> op in f32 -> quantize
  (dequantize_op_quantize), applied per op, so a region body (reduce,
  scatter, ...) requantizes after each step; ops that move values
  (transpose, slice, gather, ...) move the stored integers.

Arithmetic is float32, as the expressed type. Inputs are drawn with a fixed
seed; rerun after changing it:
  python3 tests/data/ops/gen_quantized_ops.py > tests/data/ops/quantized_ops.mlir
"""
import numpy as np

RNG = np.random.default_rng(17)
F = np.float32


class Q:
    """A quantized element type: storage 'i8' or 'u8', per-tensor or per-axis."""

    def __init__(self, storage, scales, zps, axis=None):
        self.storage, self.axis = storage, axis
        self.scales = [scales] if axis is None else list(scales)
        self.zps = [zps] if axis is None else list(zps)
        self.lo, self.hi = {"i8": (-128, 127), "u8": (0, 255), "i32": (-2**31, 2**31 - 1)}[storage]
        self.np = {"i8": np.int8, "u8": np.uint8, "i32": np.int32}[storage]

    def mlir_storage(self):
        return {"i8": "i8", "u8": "ui8", "i32": "i32"}[self.storage]

    def __str__(self):
        st = self.storage if self.storage != "u8" else "u8"
        if self.axis is None:
            return "!quant.uniform<%s:f32, %r:%d>" % (st, self.scales[0], self.zps[0])
        params = ", ".join("%r:%d" % (s, z) for s, z in zip(self.scales, self.zps))
        return "!quant.uniform<%s:f32:%d, {%s}>" % (st, self.axis, params)

    def _bcast(self, values, shape):
        v = np.array(values)
        if self.axis is None:
            return v[0]
        s = [1] * len(shape)
        s[self.axis] = shape[self.axis]
        return v.reshape(s)

    def dequantize(self, q):
        zp = self._bcast(self.zps, q.shape).astype(np.int64)
        sc = self._bcast(self.scales, q.shape).astype(F)
        return (q.astype(np.int64) - zp).astype(F) * sc

    def quantize(self, x):
        x = np.asarray(x, dtype=F)
        sc = self._bcast(self.scales, x.shape).astype(F)
        zp = self._bcast(self.zps, x.shape).astype(F)
        y = np.clip(x / sc + zp, F(self.lo), F(self.hi))
        return np.round(y).astype(self.np)  # numpy rounds ties to even


def ttype(shape, elem):
    return "tensor<%s>" % "x".join([str(d) for d in shape] + [str(elem)])


def dense(a):
    a = np.asarray(a)
    if a.dtype.kind == "f":
        fmt = lambda v: repr(float(v))
    elif a.dtype.kind == "b":
        fmt = lambda v: "true" if v else "false"
    else:
        fmt = lambda v: str(int(v))

    def rec(x):
        if x.ndim == 0:
            return fmt(x)
        return "[" + ", ".join(rec(e) for e in x) + "]"
    return "dense<%s>" % rec(a)


def rand_storage(q, shape, lo=None, hi=None):
    lo = q.lo if lo is None else lo
    hi = q.hi if hi is None else hi
    return RNG.integers(lo, hi + 1, size=shape).astype(q.np)


def conv_nhwc(x, k, stride, pad, lhs_dil, rhs_dil, groups):
    """The integer convolution of x [N, H, W, C] (values already less the
    zero point) with k [KH, KW, C / groups, O], by the spec's definition:
    x dilated with zeros, padded with zeros, windows with kernel dilation."""
    n, h, w, c = x.shape
    kh, kw, ci, co = k.shape
    xd = np.zeros((n, (h - 1) * lhs_dil[0] + 1, (w - 1) * lhs_dil[1] + 1, c), dtype=np.int64)
    xd[:, ::lhs_dil[0], ::lhs_dil[1], :] = x
    xp = np.pad(xd, ((0, 0), tuple(pad[0]), tuple(pad[1]), (0, 0)))
    eh, ew = (kh - 1) * rhs_dil[0] + 1, (kw - 1) * rhs_dil[1] + 1
    oh, ow = (xp.shape[1] - eh) // stride[0] + 1, (xp.shape[2] - ew) // stride[1] + 1
    out = np.zeros((n, oh, ow, co), dtype=np.int64)
    og = co // groups
    for g in range(groups):
        kg = k[:, :, :, g * og:(g + 1) * og].astype(np.int64)
        for i in range(oh):
            for j in range(ow):
                win = xp[:, i * stride[0]:i * stride[0] + eh:rhs_dil[0], j * stride[1]:j * stride[1] + ew:rhs_dil[1],
                         g * ci:(g + 1) * ci]
                out[:, i, j, g * og:(g + 1) * og] = np.einsum("nhwc,hwco->no", win, kg)
    return out


def conv_text(x, k, dims, stride, pad, lhs_dil, rhs_dil, groups, tx, tk, to):
    return ("stablehlo.convolution(%s, %s) dim_numbers = %s, window = {stride = %s, pad = %s, lhs_dilate = %s, "
            "rhs_dilate = %s} {batch_group_count = 1 : i64, feature_group_count = %d : i64} : (%s, %s) -> %s" % (
                x, k, dims, list(stride), [list(p) for p in pad], list(lhs_dil), list(rhs_dil), groups, tx, tk, to))


class Fn:
    """One check function: quantized constants in, storage and values checked."""

    def __init__(self, name, comment):
        self.name, self.lines, self.n = name, ["// " + comment], 0

    def tmp(self):
        self.n += 1
        return "%%v%d" % self.n

    def quantized(self, q, storage):
        c, v = self.tmp(), self.tmp()
        st = ttype(storage.shape, q.mlir_storage())
        self.lines.append("  %s = stablehlo.constant %s : %s" % (c, dense(storage), st))
        self.lines.append("  %s = stablehlo.bitcast_convert %s : (%s) -> %s" % (v, c, st, ttype(storage.shape, q)))
        return v

    def const(self, a, elem):
        c = self.tmp()
        self.lines.append("  %s = stablehlo.constant %s : %s" % (c, dense(a), ttype(np.shape(a), elem)))
        return c

    def op(self, text):
        v = self.tmp()
        self.lines.append("  %s = %s" % (v, text.replace("$", "\n  ")))
        return v

    def expect_storage(self, v, q, want):
        s, st = self.tmp(), ttype(want.shape, q.mlir_storage())
        self.lines.append("  %s = stablehlo.bitcast_convert %s : (%s) -> %s" % (s, v, ttype(want.shape, q), st))
        self.lines.append("  check.expect_eq_const %s, %s : %s" % (s, dense(want), st))

    def expect_dequantized(self, v, q, want_storage):
        d = self.tmp()
        shape = want_storage.shape
        self.lines.append("  %s = stablehlo.uniform_dequantize %s : (%s) -> %s" % (
            d, v, ttype(shape, q), ttype(shape, "f32")))
        self.lines.append("  check.expect_almost_eq_const %s, %s : %s" % (
            d, dense(q.dequantize(want_storage)), ttype(shape, "f32")))

    def text(self):
        return "\n".join([self.lines[0], "func.func @%s() {" % self.name] + self.lines[1:] +
                         ["  func.return", "}"])


class Raw:
    """A program written out whole (a module with several functions)."""

    def __init__(self, text):
        self._text = text

    def text(self):
        return self._text


def body(q, op, result_elem=None):
    """A two-argument region body applying `op` on rank-0 values of type q."""
    t = ttype((), q)
    r = t if result_elem is None else ttype((), result_elem)
    if op == "compare_GE" or op == "compare_LT":
        d = op.split("_")[1]
        return ("^bb0(%%x: %s, %%y: %s):$  %%c = stablehlo.compare %s, %%x, %%y : (%s, %s) -> tensor<i1>$"
                "  stablehlo.return %%c : tensor<i1>" % (t, t, d, t, t))
    return ("^bb0(%%x: %s, %%y: %s):$  %%c = stablehlo.%s %%x, %%y : %s$  stablehlo.return %%c : %s" %
            (t, t, op, t, r))


def step(q, op, a, b):
    """One quantized body step on stored integers a, b: dequantize, op, quantize."""
    x, y = q.dequantize(np.asarray(a)), q.dequantize(np.asarray(b))
    return q.quantize({"add": x + y, "maximum": np.maximum(x, y), "multiply": x * y}[op])


def programs():
    out = []

    # transpose, reshape: stored integers move.
    f = Fn("transpose_reshape_i8", "transpose and reshape move the stored integers (per-tensor i8)")
    q = Q("i8", 0.25, -3)
    a = rand_storage(q, (2, 3, 4))
    v = f.quantized(q, a)
    t = f.op("stablehlo.transpose %s, dims = [2, 0, 1] : (%s) -> %s" % (v, ttype((2, 3, 4), q), ttype((4, 2, 3), q)))
    r = f.op("stablehlo.reshape %s : (%s) -> %s" % (t, ttype((4, 2, 3), q), ttype((8, 3), q)))
    want = a.transpose(2, 0, 1).reshape(8, 3)
    f.expect_storage(r, q, want)
    f.expect_dequantized(r, q, want)
    out.append(f)

    # per-axis: transpose moves the quantized dimension, broadcast_in_dim too.
    f = Fn("per_axis_transpose_broadcast_u8",
           "per-axis u8: transpose and broadcast_in_dim move the quantized dimension with the values")
    q0 = Q("u8", [0.5, 0.25, 0.125], [128, 120, 130], axis=0)
    q1 = Q("u8", [0.5, 0.25, 0.125], [128, 120, 130], axis=1)
    q2 = Q("u8", [0.5, 0.25, 0.125], [128, 120, 130], axis=2)
    a = rand_storage(q0, (3, 2))
    v = f.quantized(q0, a)
    t = f.op("stablehlo.transpose %s, dims = [1, 0] : (%s) -> %s" % (v, ttype((3, 2), q0), ttype((2, 3), q1)))
    b = f.op("stablehlo.broadcast_in_dim %s, dims = [1, 2] : (%s) -> %s" % (t, ttype((2, 3), q1), ttype((4, 2, 3), q2)))
    want = np.broadcast_to(a.T, (4, 2, 3)).copy()
    f.expect_storage(b, q2, want)
    f.expect_dequantized(b, q2, want)
    out.append(f)

    # slice, concatenate, pad.
    f = Fn("slice_concatenate_pad_u8", "slice, concatenate and pad (interior too) on per-tensor u8")
    q = Q("u8", 0.5, 10)
    a = rand_storage(q, (4, 5))
    b = rand_storage(q, (2, 3))
    va, vb = f.quantized(q, a), f.quantized(q, b)
    s = f.op("stablehlo.slice %s [1:4:2, 0:5:2] : (%s) -> %s" % (va, ttype((4, 5), q), ttype((2, 3), q)))
    c = f.op("stablehlo.concatenate %s, %s, dim = 0 : (%s, %s) -> %s" % (
        s, vb, ttype((2, 3), q), ttype((2, 3), q), ttype((4, 3), q)))
    pv = f.quantized(q, np.array(200, dtype=np.uint8))
    p = f.op("stablehlo.pad %s, %s, low = [1, 0], high = [0, 2], interior = [0, 1] : (%s, %s) -> %s" % (
        c, pv, ttype((4, 3), q), ttype((), q), ttype((5, 7), q)))
    cat = np.concatenate([a[1:4:2, 0:5:2], b], axis=0)
    want = np.full((5, 7), 200, dtype=np.uint8)
    want[1:, 0:5:2] = cat
    f.expect_storage(p, q, want)
    out.append(f)

    # gather, reverse, dynamic_slice.
    f = Fn("gather_reverse_dynamic_slice_i8", "gather rows, reverse, dynamic_slice on per-tensor i8")
    q = Q("i8", 0.1, 0)
    a = rand_storage(q, (5, 3))
    v = f.quantized(q, a)
    idx = f.const(np.array([[4], [0], [2]], dtype=np.int64), "i64")
    g = f.op('"stablehlo.gather"(%s, %s) {dimension_numbers = #stablehlo.gather<offset_dims = [1], '
             'collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, '
             'slice_sizes = array<i64: 1, 3>, indices_are_sorted = false} : (%s, tensor<3x1xi64>) -> %s' % (
                 v, idx, ttype((5, 3), q), ttype((3, 3), q)))
    r = f.op("stablehlo.reverse %s, dims = [1] : %s" % (g, ttype((3, 3), q)))
    one = f.const(np.array(1, dtype=np.int64), "i64")
    d = f.op("stablehlo.dynamic_slice %s, %s, %s, sizes = [2, 2] : (%s, tensor<i64>, tensor<i64>) -> %s" % (
        r, one, one, ttype((3, 3), q), ttype((2, 2), q)))
    want = a[[4, 0, 2]][:, ::-1][1:3, 1:3]
    f.expect_storage(d, q, want)
    out.append(f)

    # scatter with a quantized add body: requantized after every update.
    f = Fn("scatter_add_i8", "scatter whose body adds quantized values: dequantize, add, quantize per update")
    q = Q("i8", 0.3, 1)
    a = rand_storage(q, (6,), -60, 60)
    u = rand_storage(q, (4,), -60, 60)
    va, vu = f.quantized(q, a), f.quantized(q, u)
    idx = f.const(np.array([[1], [3], [1], [5]], dtype=np.int64), "i64")
    s = f.op('"stablehlo.scatter"(%s, %s, %s) ({$  %s$}) {scatter_dimension_numbers = #stablehlo.scatter<'
             'update_window_dims = [], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], '
             'index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false} : (%s, tensor<4x1xi64>, %s) -> %s' % (
                 va, idx, vu, body(q, "add"), ttype((6,), q), ttype((4,), q), ttype((6,), q)))
    want = a.copy()
    for k, i in enumerate([1, 3, 1, 5]):
        want[i] = step(q, "add", want[i], u[k])
    f.expect_storage(s, q, want)
    out.append(f)

    # compare and select (dequantize_compare, dequantize_select_quantize).
    f = Fn("compare_select_requantize_i8", "compare then select, into a result of other quantization parameters")
    q = Q("i8", 0.5, -2)
    qr = Q("i8", 0.3, 3)
    a, b = rand_storage(q, (2, 4)), rand_storage(q, (2, 4))
    va, vb = f.quantized(q, a), f.quantized(q, b)
    c = f.op("stablehlo.compare GT, %s, %s : (%s, %s) -> tensor<2x4xi1>" % (va, vb, ttype((2, 4), q), ttype((2, 4), q)))
    s = f.op("stablehlo.select %s, %s, %s : (tensor<2x4xi1>, %s, %s) -> %s" % (
        c, va, vb, ttype((2, 4), q), ttype((2, 4), q), ttype((2, 4), qr)))
    want = qr.quantize(q.dequantize(np.where(q.dequantize(a) > q.dequantize(b), a, b)))
    f.expect_storage(s, qr, want)
    out.append(f)

    # sort by quantized keys, with an i32 payload.
    f = Fn("sort_keys_u8", "sort on quantized keys (compared dequantized), carrying i32 values")
    q = Q("u8", 0.5, 128)
    keys = rand_storage(q, (9,), 120, 136)
    vals = np.arange(9, dtype=np.int32) * 10
    vk = f.quantized(q, keys)
    vv = f.const(vals, "i32")
    tq = ttype((), q)
    s = f.tmp()
    f.lines.append(('  %s:2 = "stablehlo.sort"(%s, %s) ({\n  ^bb0(%%x: %s, %%y: %s, %%i: tensor<i32>, %%j: tensor<i32>):\n'
                    '    %%c = stablehlo.compare LT, %%x, %%y : (%s, %s) -> tensor<i1>\n    stablehlo.return %%c : tensor<i1>\n'
                    '  }) {dimension = 0 : i64, is_stable = true} : (%s, tensor<9xi32>) -> (%s, tensor<9xi32>)') % (
                        s, vk, vv, tq, tq, tq, tq, ttype((9,), q), ttype((9,), q)))
    order = np.argsort(q.dequantize(keys), kind="stable")
    f.expect_storage(s + "#0", q, keys[order])
    f.lines.append("  check.expect_eq_const %s#1, %s : tensor<9xi32>" % (s, dense(vals[order])))
    out.append(f)

    # while: a loop-carried quantized value, added to itself each trip.
    f = Fn("while_add_i8", "while carrying a quantized tensor; its body adds with saturation")
    q = Q("i8", 0.25, 5)
    qb = Q("i8", 0.5, -1)
    a = rand_storage(q, (5,), -40, 40)
    b = rand_storage(qb, (5,), -30, 30)
    va, vb = f.quantized(q, a), f.quantized(qb, b)
    i0 = f.const(np.array(0, dtype=np.int32), "i32")
    w = f.tmp()
    t5, t5b = ttype((5,), q), ttype((5,), qb)
    f.lines.append(("  %s:2 = stablehlo.while(%%it = %s, %%x = %s) : tensor<i32>, %s\n"
                    "    cond {\n      %%n = stablehlo.constant dense<3> : tensor<i32>\n"
                    "      %%p = stablehlo.compare LT, %%it, %%n : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
                    "      stablehlo.return %%p : tensor<i1>\n    } do {\n"
                    "      %%one = stablehlo.constant dense<1> : tensor<i32>\n"
                    "      %%j = stablehlo.add %%it, %%one : tensor<i32>\n"
                    "      %%y = stablehlo.add %%x, %s : (%s, %s) -> %s\n"
                    "      stablehlo.return %%j, %%y : tensor<i32>, %s\n    }") % (w, i0, va, t5, vb, t5, t5b, t5, t5))
    want = a.copy()
    for _ in range(3):
        want = q.quantize(q.dequantize(want) + qb.dequantize(b))
    f.expect_storage(w + "#1", q, want)
    out.append(f)

    # reduce_window: max (exact) and add (requantized per step, in window order).
    f = Fn("reduce_window_u8", "reduce_window max and add on per-tensor u8, padded and strided")
    q = Q("u8", 0.25, 100)
    a = rand_storage(q, (4, 5), 70, 130)
    va = f.quantized(q, a)
    init = f.quantized(q, np.array(100, dtype=np.uint8))
    attrs = ("window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1, 2>, "
             "padding = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>")
    tin, tout = ttype((4, 5), q), ttype((4, 3), q)
    results = {}
    for op in ("maximum", "add"):
        results[op] = f.op('"stablehlo.reduce_window"(%s, %s) ({$  %s$}) {%s} : (%s, %s) -> %s' % (
            va, init, body(q, op), attrs, tin, ttype((), q), tout))
    padded = np.full((5, 6), -1, dtype=np.int64)  # -1: a padding position, which holds the init value
    padded[0:4, 1:6] = a
    for op in ("maximum", "add"):
        want = np.zeros((4, 3), dtype=np.uint8)
        for i in range(4):
            for j in range(3):
                acc = np.uint8(100)
                for di in range(2):
                    for dj in range(2):
                        x = padded[i + di, 2 * j + dj]
                        acc = step(q, op, acc, np.uint8(100 if x < 0 else x))
                want[i, j] = acc
        f.expect_storage(results[op], q, want)
    out.append(f)

    # reduce: add across a dimension, requantized per step.
    f = Fn("reduce_add_max_i8", "reduce add and max across dimension 1 on per-tensor i8")
    q = Q("i8", 0.3, -4)
    a = rand_storage(q, (3, 6), -30, 30)
    va = f.quantized(q, a)
    init = f.quantized(q, np.array(-4, dtype=np.int8))
    for op in ("add", "maximum"):
        r = f.op('stablehlo.reduce(%s init: %s) applies stablehlo.%s across dimensions = [1] : (%s, %s) -> %s' % (
            va, init, op, ttype((3, 6), q), ttype((), q), ttype((3,), q)))
        want = np.zeros(3, dtype=np.int8)
        for i in range(3):
            acc = np.int8(-4)
            for j in range(6):
                acc = step(q, op, acc, a[i, j])
            want[i] = acc
        f.expect_storage(r, q, want)
    out.append(f)

    # reduce into a wider accumulator: the spec's promotion of the storage
    # type (i8 values, an i32 body), no saturation at i8's range.
    f = Fn("reduce_promoted_to_i32", "reduce of i8 values through an i32 body of the same scale: no i8 saturation")
    q = Q("i8", 0.5, 0)
    qa = Q("i32", 0.5, 0)
    a = rand_storage(q, (2, 8), 60, 127)
    va = f.quantized(q, a)
    init = f.quantized(q, np.array(0, dtype=np.int8))
    ta = ttype((), qa)
    r = f.op('stablehlo.reduce(%s init: %s) across dimensions = [1] : (%s, %s) -> %s$'
             ' reducer(%%x: %s, %%y: %s) {$  %%s = stablehlo.add %%x, %%y : %s$  stablehlo.return %%s : %s$}' % (
                 va, init, ttype((2, 8), q), ttype((), q), ttype((2,), qa), ta, ta, ta, ta))
    want = np.zeros(2, dtype=np.int32)
    for i in range(2):
        acc = np.int32(0)
        for j in range(8):
            acc = qa.quantize(qa.dequantize(np.asarray(acc)) + q.dequantize(np.asarray(a[i, j])))
        want[i] = acc
    f.expect_storage(r, qa, want)
    out.append(f)

    # select_and_scatter: select the window's largest (GE), scatter-add the source.
    f = Fn("select_and_scatter_i8", "select_and_scatter with quantized select (GE) and scatter (add) bodies")
    q = Q("i8", 0.5, 2)
    a = RNG.permutation(np.arange(-40, 40, 5))[:16].reshape(4, 4).astype(np.int8)  # distinct: no ties
    src = rand_storage(q, (2, 2), -20, 20)
    va, vs = f.quantized(q, a), f.quantized(q, src)
    init = f.quantized(q, np.array(2, dtype=np.int8))
    s = f.op('"stablehlo.select_and_scatter"(%s, %s, %s) ({$  %s$}, {$  %s$}) {window_dimensions = array<i64: 2, 2>, '
             'window_strides = array<i64: 2, 2>} : (%s, %s, %s) -> %s' % (
                 va, vs, init, body(q, "compare_GE"), body(q, "add"), ttype((4, 4), q), ttype((2, 2), q),
                 ttype((), q), ttype((4, 4), q)))
    want = np.full((4, 4), 2, dtype=np.int8)
    for i in range(2):
        for j in range(2):
            win = a[2 * i:2 * i + 2, 2 * j:2 * j + 2]
            k = np.argmax(q.dequantize(win))
            pi, pj = 2 * i + k // 2, 2 * j + k % 2
            want[pi, pj] = step(q, "add", want[pi, pj], src[i, j])
    f.expect_storage(s, q, want)
    out.append(f)

    # dot_general, per-tensor u8 operands into a u8 result that saturates.
    f = Fn("dot_general_per_tensor_u8", "dot_general on per-tensor u8 operands into a u8 result (rounds and clamps)")
    ql, qr, qo = Q("u8", 0.5, 128), Q("u8", 0.25, 0), Q("u8", 0.3, 125)  # the spec wants rhs zero points 0
    l, r = rand_storage(ql, (3, 4), 118, 138), rand_storage(qr, (4, 2), 0, 40)
    vl, vr = f.quantized(ql, l), f.quantized(qr, r)
    d = f.op("stablehlo.dot_general %s, %s, contracting_dims = [1] x [0] : (%s, %s) -> %s" % (
        vl, vr, ttype((3, 4), ql), ttype((4, 2), qr), ttype((3, 2), qo)))
    want = qo.quantize(ql.dequantize(l) @ qr.dequantize(r))
    f.expect_storage(d, qo, want)
    out.append(f)

    # dot_general, per-axis i8 rhs into a per-axis i32 accumulation result.
    f = Fn("dot_general_per_axis_i32", "dot_general: per-tensor i8 lhs, per-axis i8 rhs, per-axis i32 result")
    ql = Q("i8", 0.5, -1)
    rs = [0.25, 0.125, 0.5, 1.0]
    qr = Q("i8", rs, [0, 0, 0, 0], axis=1)
    qo = Q("i32", [0.5 * s for s in rs], [0, 0, 0, 0], axis=1)
    l, r = rand_storage(ql, (2, 3)), rand_storage(qr, (3, 4))
    vl, vr = f.quantized(ql, l), f.quantized(qr, r)
    d = f.op("stablehlo.dot_general %s, %s, contracting_dims = [1] x [0] : (%s, %s) -> %s" % (
        vl, vr, ttype((2, 3), ql), ttype((3, 4), qr), ttype((2, 4), qo)))
    want = qo.quantize(ql.dequantize(l) @ qr.dequantize(r))
    f.expect_storage(d, qo, want)
    out.append(f)

    # dot_general into the i32 accumulation type (result scale = lhs scale *
    # rhs scale, zero point 0): the exact integer sum, where evaluating the
    # definition in f32 would round (checked below: the two differ here).
    f = Fn("dot_general_exact_i32_accumulation",
           "dot_general i8 x i8 -> i32 at scale lhs*rhs over 2048 terms: the exact integer sum")
    ql, qr = Q("i8", 0.1, 3), Q("i8", 0.3, 0)
    qo = Q("i32", float(F(0.1) * F(0.3)), 0)
    l, r = rand_storage(ql, (2, 2048), 90, 127), rand_storage(qr, (2048, 3), 90, 127)  # sums past 2^24
    vl, vr = f.quantized(ql, l), f.quantized(qr, r)
    d = f.op("stablehlo.dot_general %s, %s, contracting_dims = [1] x [0] : (%s, %s) -> %s" % (
        vl, vr, ttype((2, 2048), ql), ttype((2048, 3), qr), ttype((2, 3), qo)))
    want = ((l.astype(np.int64) - 3) @ r.astype(np.int64)).astype(np.int32)
    rounded = qo.quantize(ql.dequantize(l) @ qr.dequantize(r))
    assert (rounded != want).any(), "the f32 evaluation happens to be exact: pick other inputs"
    f.expect_storage(d, qo, want)
    out.append(f)

    # The same integer form into i8 at scale lhs*rhs: the sum saturates.
    f = Fn("dot_general_exact_i8_saturating", "dot_general i8 x i8 -> i8 at scale lhs*rhs: integer sums, clamped")
    ql, qr, qo = Q("i8", 0.5, -2), Q("i8", 0.25, 0), Q("i8", 0.125, 0)
    l, r = rand_storage(ql, (3, 4), -30, 30), rand_storage(qr, (4, 2), -30, 30)
    vl, vr = f.quantized(ql, l), f.quantized(qr, r)
    d = f.op("stablehlo.dot_general %s, %s, contracting_dims = [1] x [0] : (%s, %s) -> %s" % (
        vl, vr, ttype((3, 4), ql), ttype((4, 2), qr), ttype((3, 2), qo)))
    want = np.clip((l.astype(np.int64) + 2) @ r.astype(np.int64), -128, 127).astype(np.int8)
    assert (np.abs((l.astype(np.int64) + 2) @ r.astype(np.int64)) > 127).any()
    f.expect_storage(d, qo, want)
    out.append(f)

    # convolution in the integer form: u8 input with a zero point, per-axis
    # u8 kernel, per-axis i32 result at scale input * kernel.
    f = Fn("convolution_exact_u8_per_axis_i32", "convolution u8 x per-axis u8 -> per-axis i32 at scale lhs*rhs")
    ql = Q("u8", 0.5, 128)
    qk = Q("u8", [0.25, 0.5], [0, 0], axis=3)
    qo = Q("i32", [0.125, 0.25], [0, 0], axis=3)
    x = rand_storage(ql, (1, 3, 3, 2))
    k = rand_storage(qk, (2, 2, 2, 2))
    vx, vk = f.quantized(ql, x), f.quantized(qk, k)
    c = f.op("stablehlo.convolution(%s, %s) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
             "window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} "
             "{batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (%s, %s) -> %s" % (
                 vx, vk, ttype((1, 3, 3, 2), ql), ttype((2, 2, 2, 2), qk), ttype((1, 2, 2, 2), qo)))
    xi, ki = x.astype(np.int64) - 128, k.astype(np.int64)
    want = np.zeros((1, 2, 2, 2), dtype=np.int64)
    for i in range(2):
        for j in range(2):
            want[0, i, j, :] = np.einsum("hwc,hwco->o", xi[0, i:i + 2, j:j + 2, :], ki)
    f.expect_storage(c, qo, want.astype(np.int32))
    out.append(f)

    # hybrid dot_general: f32 lhs, per-axis quantized rhs, f32 result.
    f = Fn("dot_general_hybrid_per_axis", "hybrid dot_general: f32 lhs times a dequantized per-axis i8 rhs")
    qr = Q("i8", [0.5, 0.25, 0.125], [0, 0, 0], axis=1)
    l = (RNG.integers(-8, 9, size=(2, 4)) / 4).astype(F)
    r = rand_storage(qr, (4, 3))
    vl = f.const(l, "f32")
    vr = f.quantized(qr, r)
    d = f.op("stablehlo.dot_general %s, %s, contracting_dims = [1] x [0] : (tensor<2x4xf32>, %s) -> tensor<2x3xf32>" % (
        vl, vr, ttype((4, 3), qr)))
    f.lines.append("  check.expect_almost_eq_const %s, %s : tensor<2x3xf32>" % (d, dense(l @ qr.dequantize(r))))
    out.append(f)

    # convolution, per-axis rhs and result (NHWC x HWIO).
    f = Fn("convolution_per_axis_i8", "convolution: per-tensor i8 input, per-axis i8 kernel and result (NHWC, HWIO)")
    ql = Q("i8", 0.5, 0)
    qk = Q("i8", [0.25, 0.5, 0.125], [0, 0, 0], axis=3)
    qo = Q("i8", [0.7, 0.9, 1.1], [0, 0, 0], axis=3)
    x = rand_storage(ql, (1, 4, 4, 2), -20, 20)
    k = rand_storage(qk, (2, 2, 2, 3), -20, 20)
    vx, vk = f.quantized(ql, x), f.quantized(qk, k)
    c = f.op("stablehlo.convolution(%s, %s) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
             "window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} "
             "{batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (%s, %s) -> %s" % (
                 vx, vk, ttype((1, 4, 4, 2), ql), ttype((2, 2, 2, 3), qk), ttype((1, 3, 3, 3), qo)))
    xd, kd = ql.dequantize(x), qk.dequantize(k)
    acc = np.zeros((1, 3, 3, 3), dtype=F)
    for i in range(3):
        for j in range(3):
            acc[0, i, j, :] = np.einsum("hwc,hwco->o", xd[0, i:i + 2, j:j + 2, :], kd)
    want = qo.quantize(acc)
    f.expect_storage(c, qo, want)
    out.append(f)

    # elementwise add on a per-axis operand into a per-axis result.
    f = Fn("add_per_axis_u8", "add of a per-axis u8 tensor and a per-tensor one into a per-axis result")
    qa = Q("u8", [0.5, 0.25], [130, 126], axis=1)
    qb = Q("u8", 0.5, 128)
    qo = Q("u8", [0.3, 0.6], [128, 127], axis=1)
    a, b = rand_storage(qa, (3, 2)), rand_storage(qb, (3, 2))
    va, vb = f.quantized(qa, a), f.quantized(qb, b)
    s = f.op("stablehlo.add %s, %s : (%s, %s) -> %s" % (va, vb, ttype((3, 2), qa), ttype((3, 2), qb), ttype((3, 2), qo)))
    want = qo.quantize(qa.dequantize(a) + qb.dequantize(b))
    f.expect_storage(s, qo, want)
    out.append(f)

    # Collectives: all_reduce adds per step (dequantize, add, quantize);
    # all_gather moves the stored integers. Two replicas.
    q = Q("i8", 0.5, 3)
    a, b = rand_storage(q, (4,), -50, 50), rand_storage(q, (4,), -50, 50)
    t4, t8, t0 = ttype((4,), q), ttype((8,), q), ttype((), q)
    summed = step(q, "add", a, b)
    text = "\n".join([
        "// all_reduce (quantized add body) and all_gather across two replicas on per-tensor i8",
        "module @quantized_collectives {",
        "  func.func @reduce_gather(%%x: %s) -> (%s, %s) {" % (t4, t4, t8),
        '    %r = "stablehlo.all_reduce"(%x) ({',
        "      ^bb0(%%p: %s, %%q: %s):" % (t0, t0),
        "        %%s = stablehlo.add %%p, %%q : %s" % t0,
        "        stablehlo.return %%s : %s" % t0,
        "    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (%s) -> %s" % (t4, t4),
        '    %%g = "stablehlo.all_gather"(%%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (%s) -> %s' % (t4, t8),
        "    return %%r, %%g : %s, %s" % (t4, t8),
        "  }",
        "  func.func @collectives_i8() {",
        "    %%a0 = stablehlo.constant %s : tensor<4xi8>" % dense(a),
        "    %%b0 = stablehlo.constant %s : tensor<4xi8>" % dense(b),
        "    %%a = stablehlo.bitcast_convert %%a0 : (tensor<4xi8>) -> %s" % t4,
        "    %%b = stablehlo.bitcast_convert %%b0 : (tensor<4xi8>) -> %s" % t4,
        '    %%r:4 = "interpreter.run_parallel"(%%a, %%b) {programs = [[@reduce_gather], [@reduce_gather]]} : (%s, %s) -> (%s, %s, %s, %s)' % (t4, t4, t4, t8, t4, t8),
        "    %%s0 = stablehlo.bitcast_convert %%r#0 : (%s) -> tensor<4xi8>" % t4,
        "    %%s1 = stablehlo.bitcast_convert %%r#2 : (%s) -> tensor<4xi8>" % t4,
        "    %%g0 = stablehlo.bitcast_convert %%r#1 : (%s) -> tensor<8xi8>" % t8,
        "    check.expect_eq_const %%s0, %s : tensor<4xi8>" % dense(summed),
        "    check.expect_eq_const %%s1, %s : tensor<4xi8>" % dense(summed),
        "    check.expect_eq_const %%g0, %s : tensor<8xi8>" % dense(np.concatenate([a, b])),
        "    func.return",
        "  }",
        "}"])
    out.append(Raw(text))

    # map: the body's quantized multiply, per element.
    f = Fn("map_multiply_u8", "map whose body multiplies quantized values: dequantize, multiply, quantize")
    q = Q("u8", 0.125, 100)
    a, b = rand_storage(q, (2, 3), 80, 120), rand_storage(q, (2, 3), 80, 120)
    va, vb = f.quantized(q, a), f.quantized(q, b)
    m = f.op('"stablehlo.map"(%s, %s) ({$  %s$}) {dimensions = array<i64: 0, 1>} : (%s, %s) -> %s' % (
        va, vb, body(q, "multiply"), ttype((2, 3), q), ttype((2, 3), q), ttype((2, 3), q)))
    f.expect_storage(m, q, q.quantize(q.dequantize(a) * q.dequantize(b)))
    out.append(f)

    # batch_norm_training: three quantized results, each quantized on its own.
    f = Fn("batch_norm_training_i8", "batch_norm_training on quantized tensors: output, mean and variance quantized")
    q = Q("i8", 0.25, 0)
    qp = Q("i8", 0.125, 0)
    x = np.array([[4, -4, 8], [12, 4, 0]], dtype=np.int8)  # per feature: mean 2, 0, 1; variance 1, 1, 1 (in q units / 4)
    scale = np.array([8, 16, 8], dtype=np.int8)
    offset = np.array([0, 8, -8], dtype=np.int8)
    vx, vs, vo = f.quantized(q, x), f.quantized(qp, scale), f.quantized(qp, offset)
    t3 = ttype((3,), qp)
    r = f.tmp()
    f.lines.append('  %s:3 = "stablehlo.batch_norm_training"(%s, %s, %s) {epsilon = 0.0 : f32, feature_index = 1 : i64} : '
                   '(%s, %s, %s) -> (%s, %s, %s)' % (r, vx, vs, vo, ttype((2, 3), q), t3, t3, ttype((2, 3), q), t3, t3))
    xd, sd, od = q.dequantize(x), qp.dequantize(scale), qp.dequantize(offset)
    mean = xd.mean(axis=0)
    var = ((xd - mean) ** 2).mean(axis=0)
    f.expect_storage(r + "#0", q, q.quantize((xd - mean) / np.sqrt(var) * sd + od))
    f.expect_storage(r + "#1", qp, qp.quantize(mean))
    f.expect_storage(r + "#2", qp, qp.quantize(var))
    out.append(f)

    # if: branches return quantized values as they are.
    f = Fn("if_select_branch_i8", "if returning one of two quantized tensors, untouched")
    q = Q("i8", 0.5, 0)
    a, b = rand_storage(q, (3,)), rand_storage(q, (3,))
    va, vb = f.quantized(q, a), f.quantized(q, b)
    p = f.const(np.array(False), "i1")
    t = ttype((3,), q)
    r = f.op('"stablehlo.if"(%s) ({$  stablehlo.return %s : %s$}, {$  stablehlo.return %s : %s$}) : (tensor<i1>) -> %s' % (
        p, va, t, vb, t, t))
    f.expect_storage(r, q, b)
    out.append(f)

    # Ties: the zero point is added before rounding, so with an odd zero
    # point x / scale = k + 0.5 rounds to the even neighbour of k + 0.5 + zp.
    f = Fn("add_ties_odd_zero_point_i8", "elementwise add whose results fall on ties, into an odd zero point")
    qa = Q("i8", 0.5, 0)
    qo = Q("i8", 1.0, 1)
    a = np.array([1, 3, -1, 5, -3, 2], dtype=np.int8)
    z = np.zeros(6, dtype=np.int8)
    va, vz = f.quantized(qa, a), f.quantized(qa, z)
    s = f.op("stablehlo.add %s, %s : (%s, %s) -> %s" % (va, vz, ttype((6,), qa), ttype((6,), qa), ttype((6,), qo)))
    f.expect_storage(s, qo, qo.quantize(qa.dequantize(a) + qa.dequantize(z)))
    out.append(f)

    # iota into u8 (quantize(index)), clamped at the storage maximum.
    f = Fn("iota_u8", "iota into a quantized u8 tensor: quantize(index), saturating")
    q = Q("u8", 0.5, 250)
    r = f.op("stablehlo.iota dim = 0 : %s" % ttype((6,), q))
    f.expect_storage(r, q, q.quantize(np.arange(6, dtype=F)))
    out.append(f)

    # batch_norm_inference, per-tensor quantized operand (dequantize_op_quantize).
    f = Fn("batch_norm_inference_i8", "batch_norm_inference on a quantized operand, float parameters quantized too")
    q = Q("i8", 0.25, 0)
    qp = Q("i8", 0.125, 0)
    x = rand_storage(q, (2, 3), -40, 40)
    scale = np.array([8, 16, 4], dtype=np.int8)
    offset = np.array([0, 4, -8], dtype=np.int8)
    mean = np.array([2, -4, 0], dtype=np.int8)
    var = np.array([8, 32, 8], dtype=np.int8)  # 1.0, 4.0, 1.0: exact square roots
    vx = f.quantized(q, x)
    vs, vo, vm, vv = (f.quantized(qp, p) for p in (scale, offset, mean, var))
    t3 = ttype((3,), qp)
    b = f.op('"stablehlo.batch_norm_inference"(%s, %s, %s, %s, %s) {epsilon = 0.0 : f32, feature_index = 1 : i64} : '
             '(%s, %s, %s, %s, %s) -> %s' % (vx, vs, vo, vm, vv, ttype((2, 3), q), t3, t3, t3, t3, ttype((2, 3), q)))
    xd = q.dequantize(x)
    sd, od, md, vd = (qp.dequantize(p) for p in (scale, offset, mean, var))
    want = q.quantize((xd - md) / np.sqrt(vd + F(0)) * sd + od)
    f.expect_storage(b, q, want)
    out.append(f)

    # The 8-bit integer form (compiler/passes/quantized_integer_contraction.cc,
    # the CPU's int8 GEMM): a dense layer, i8 activations with a zero point
    # times per-axis i8 weights into the i32 accumulation type, requantized
    # to i8 by uniform_quantize; odd sizes, the stored extremes, outputs that
    # saturate.
    f = Fn("dot_general_int8_dense_requantize", "dense layer: i8 x per-axis i8 -> per-axis i32, requantized to i8")
    ql = Q("i8", 0.05, -7)
    wscales = [float(F(s)) for s in RNG.uniform(0.002, 0.02, size=65)]
    qr = Q("i8", wscales, [0] * 65, axis=1)
    qacc = Q("i32", [float(F(0.05) * F(s)) for s in wscales], [0] * 65, axis=1)
    qo = Q("i8", 0.75, 5)
    l = rand_storage(ql, (17, 130))
    l[0, :] = 127
    l[1, :] = -128
    r = rand_storage(qr, (130, 65))
    r[:, 0] = 127
    r[:, 1] = -128
    vl, vr = f.quantized(ql, l), f.quantized(qr, r)
    d = f.op("stablehlo.dot_general %s, %s, contracting_dims = [1] x [0] : (%s, %s) -> %s" % (
        vl, vr, ttype((17, 130), ql), ttype((130, 65), qr), ttype((17, 65), qacc)))
    y = f.op("stablehlo.uniform_quantize %s : (%s) -> %s" % (d, ttype((17, 65), qacc), ttype((17, 65), qo)))
    acc = (l.astype(np.int64) + 7) @ r.astype(np.int64)
    want = qo.quantize(qacc.dequantize(acc.astype(np.int32)))
    assert (want == 127).any() and (want == -128).any(), "no saturation: pick other scales"
    f.expect_storage(y, qo, want)
    out.append(f)

    # Batched, weights [N, K] (contracting last), the lhs zero point at the
    # i8 minimum, scales whose requantization lands on ties (acc / 2).
    f = Fn("dot_general_int8_batched_ties", "batched i8 x i8 -> i32 (zero point -128), requantized on ties")
    ql, qr, qacc, qo = Q("i8", 0.25, -128), Q("i8", 0.5, 0), Q("i32", 0.125, 0), Q("i8", 0.25, 3)
    l = rand_storage(ql, (3, 5, 65), -128, -100)
    r = rand_storage(qr, (3, 7, 65), -3, 3)
    vl, vr = f.quantized(ql, l), f.quantized(qr, r)
    d = f.op("stablehlo.dot_general %s, %s, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (%s, %s) -> %s" % (
        vl, vr, ttype((3, 5, 65), ql), ttype((3, 7, 65), qr), ttype((3, 5, 7), qacc)))
    y = f.op("stablehlo.uniform_quantize %s : (%s) -> %s" % (d, ttype((3, 5, 7), qacc), ttype((3, 5, 7), qo)))
    acc = np.einsum("bmk,bnk->bmn", l.astype(np.int64) + 128, r.astype(np.int64))
    assert (acc % 2 == 1).any(), "no ties"
    want = qo.quantize(qacc.dequantize(acc.astype(np.int32)))
    f.expect_storage(y, qo, want)
    out.append(f)

    # u8 x u8, the lhs zero point 255, per-axis weights [N, K] on axis 0:
    # the result's per-axis dimension is the weights' output dimension.
    f = Fn("dot_general_int8_u8_per_axis_rows", "u8 x per-axis u8 [N, K] -> per-axis i32, zero point 255")
    ql = Q("u8", 0.5, 255)
    qr = Q("u8", [0.25, 0.5, 1.0], [0, 0, 0], axis=0)
    qacc = Q("i32", [0.125, 0.25, 0.5], [0, 0, 0], axis=1)
    l, r = rand_storage(ql, (17, 3)), rand_storage(qr, (3, 3))
    vl, vr = f.quantized(ql, l), f.quantized(qr, r)
    d = f.op("stablehlo.dot_general %s, %s, contracting_dims = [1] x [1] : (%s, %s) -> %s" % (
        vl, vr, ttype((17, 3), ql), ttype((3, 3), qr), ttype((17, 3), qacc)))
    want = ((l.astype(np.int64) - 255) @ r.astype(np.int64).T).astype(np.int32)
    f.expect_storage(d, qacc, want)
    out.append(f)

    # The convolution's 8-bit form (the CPU's int8 GEMM): NHWC, u8 input
    # with zero point 128, padding and strides (the zero point moves into a
    # pad of the stored input), per-axis u8 weights, requantized to i8.
    f = Fn("convolution_int8_nhwc_padded_requantize", "u8 NHWC (zero point 128) x per-axis u8 HWIO, padded, strided")
    ql = Q("u8", 0.5, 128)
    qk = Q("u8", [0.25 * (1 + (c % 3)) for c in range(20)], [0] * 20, axis=3)
    qacc = Q("i32", [0.125 * (1 + (c % 3)) for c in range(20)], [0] * 20, axis=3)
    qo = Q("i8", 4.0, -5)
    x, k = rand_storage(ql, (2, 9, 9, 8)), rand_storage(qk, (3, 3, 8, 20))
    acc = conv_nhwc(x.astype(np.int64) - 128, k, (2, 2), ((1, 1), (1, 1)), (1, 1), (1, 1), 1)
    vx, vk = f.quantized(ql, x), f.quantized(qk, k)
    c = f.op(conv_text(vx, vk, "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", (2, 2), ((1, 1), (1, 1)), (1, 1), (1, 1), 1,
                       ttype(x.shape, ql), ttype(k.shape, qk), ttype(acc.shape, qacc)))
    f.expect_storage(c, qacc, acc.astype(np.int32))
    y = f.op("stablehlo.uniform_quantize %s : (%s) -> %s" % (c, ttype(acc.shape, qacc), ttype(acc.shape, qo)))
    f.expect_storage(y, qo, qo.quantize(qacc.dequantize(acc.astype(np.int32))))
    out.append(f)

    # NCHW x OIHW, i8 input with zero point -3, two feature groups, input
    # and kernel dilation, uneven padding, a stride along the width.
    f = Fn("convolution_int8_nchw_grouped_dilated", "i8 NCHW (zero point -3) x i8 OIHW, 2 groups, dilations, padding")
    ql, qk, qacc = Q("i8", 0.5, -3), Q("i8", 0.25, 0), Q("i32", 0.125, 0)
    x, k = rand_storage(ql, (2, 6, 7, 6)), rand_storage(qk, (8, 3, 3, 2))
    pad, stride, ld, rd = ((1, 0), (2, 1)), (1, 2), (2, 1), (1, 2)
    acc = conv_nhwc(x.transpose(0, 2, 3, 1).astype(np.int64) + 3, k.transpose(2, 3, 1, 0), stride, pad, ld, rd, 2)
    acc = acc.transpose(0, 3, 1, 2)
    vx, vk = f.quantized(ql, x), f.quantized(qk, k)
    c = f.op(conv_text(vx, vk, "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]", stride, pad, ld, rd, 2,
                       ttype(x.shape, ql), ttype(k.shape, qk), ttype(acc.shape, qacc)))
    f.expect_storage(c, qacc, acc.astype(np.int32))
    out.append(f)

    # NCHW, zero point 0 (the convolution keeps its own zero padding), a
    # 5x5 kernel, requantized to u8.
    f = Fn("convolution_int8_nchw_zero_point_0", "i8 NCHW (zero point 0) x i8 OIHW 5x5, padding 2, requantized to u8")
    ql, qk, qacc, qo = Q("i8", 0.5, 0), Q("i8", 0.5, 0), Q("i32", 0.25, 0), Q("u8", 16.0, 100)
    x, k = rand_storage(ql, (1, 5, 8, 8)), rand_storage(qk, (3, 5, 5, 5))
    acc = conv_nhwc(x.transpose(0, 2, 3, 1).astype(np.int64), k.transpose(2, 3, 1, 0), (1, 1), ((2, 2), (2, 2)),
                    (1, 1), (1, 1), 1).transpose(0, 3, 1, 2)
    vx, vk = f.quantized(ql, x), f.quantized(qk, k)
    c = f.op(conv_text(vx, vk, "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]", (1, 1), ((2, 2), (2, 2)), (1, 1), (1, 1), 1,
                       ttype(x.shape, ql), ttype(k.shape, qk), ttype(acc.shape, qacc)))
    y = f.op("stablehlo.uniform_quantize %s : (%s) -> %s" % (c, ttype(acc.shape, qacc), ttype(acc.shape, qo)))
    f.expect_storage(y, qo, qo.quantize(qacc.dequantize(acc.astype(np.int32))))
    out.append(f)

    # Depthwise (a group per input feature), NHWC, i8 with zero point 5.
    f = Fn("convolution_int8_depthwise_nhwc", "i8 NHWC (zero point 5) depthwise 3x3 x per-axis i8, padding 1")
    ql = Q("i8", 0.5, 5)
    qk = Q("i8", [0.25, 0.5] * 8, [0] * 16, axis=3)
    qacc = Q("i32", [0.125, 0.25] * 8, [0] * 16, axis=3)
    x, k = rand_storage(ql, (2, 10, 10, 16)), rand_storage(qk, (3, 3, 1, 16))
    acc = conv_nhwc(x.astype(np.int64) - 5, k, (1, 1), ((1, 1), (1, 1)), (1, 1), (1, 1), 16)
    vx, vk = f.quantized(ql, x), f.quantized(qk, k)
    c = f.op(conv_text(vx, vk, "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", (1, 1), ((1, 1), (1, 1)), (1, 1), (1, 1), 16,
                       ttype(x.shape, ql), ttype(k.shape, qk), ttype(acc.shape, qacc)))
    f.expect_storage(c, qacc, acc.astype(np.int32))
    out.append(f)
    return out


def main():
    print("// Generated by tests/data/ops/gen_quantized_ops.py (fixed seed): quantized")
    print("// programs with expected values computed by numpy from the spec's")
    print("// dequantize/quantize definitions. Do not edit by hand.")
    print("\n\n// -----\n\n".join(f.text() for f in programs()))


if __name__ == "__main__":
    main()
