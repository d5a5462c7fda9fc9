#!/usr/bin/env python3
"""Writes tests/data/ops/dynamic_ops.mlir: for each op, a private function
whose arguments and results have `?` dimensions, and three test functions
that call it on constants of three shapes, one of them zero-sized, checking
the result (values and shape) against numpy. The values are small integers
stored as f32, so every sum is exact in any order. Inputs use a fixed seed;
rerun after changing it:
  python3 tests/data/ops/gen_dynamic_ops.py > tests/data/ops/dynamic_ops.mlir
"""
import numpy as np

RNG = np.random.default_rng(23)


def ttype(shape, elem):
    return "tensor<%s>" % "x".join([("?" if d is None else str(d)) for d in shape] + [elem])


def dense(a):
    a = np.asarray(a)
    if a.size == 0:
        return "dense<>"
    if a.dtype.kind == "f":
        fmt = lambda v: repr(float(v))
    elif a.dtype.kind == "b":
        fmt = lambda v: "true" if v else "false"
    else:
        fmt = lambda v: str(int(v))

    def rec(x):
        return fmt(x) if x.ndim == 0 else "[" + ", ".join(rec(e) for e in x) + "]"
    return "dense<%s>" % rec(a)


def elem(a):
    return {"f": "f32", "i": "i64" if a.dtype == np.int64 else "i32"}[a.dtype.kind]


def dyn(shape, dynamic_dims):
    return tuple(None if i in dynamic_dims else d for i, d in enumerate(shape))


def values(shape):
    return RNG.integers(-8, 9, size=shape).astype(np.float32)


class Program:
    """A private function @NAME_f (args: (shape template, element), body text
    using %a0, %a1, ...; results likewise) and its calls."""

    def __init__(self, name, args, results, body, comment):
        self.name, self.args, self.results, self.body, self.comment = name, args, results, body, comment
        self.calls = []

    def call(self, inputs, expected):
        self.calls.append((inputs, expected))

    def text(self):
        sig = ", ".join("%%a%d: %s" % (i, ttype(s, e)) for i, (s, e) in enumerate(self.args))
        res = ", ".join(ttype(s, e) for s, e in self.results)
        out = ["// %s" % self.comment,
               "func.func private @%s_f(%s) -> (%s) {" % (self.name, sig, res), self.body, "}"]
        for k, (inputs, expected) in enumerate(self.calls):
            out.append("")
            out.append("func.func @%s_%d() {" % (self.name, k))
            names = []
            for i, (x, (tmpl, e)) in enumerate(zip(inputs, self.args)):
                out.append("  %%c%d = stablehlo.constant %s : %s" % (i, dense(x), ttype(x.shape, e)))
                if tuple(x.shape) != tuple(tmpl):  # a static argument passes as it is
                    out.append("  %%d%d = stablehlo.convert %%c%d : (%s) -> %s" % (
                        i, i, ttype(x.shape, e), ttype(tmpl, e)))
                    names.append("%%d%d" % i)
                else:
                    names.append("%%c%d" % i)
            arg_types = ", ".join(ttype(s, e) for s, e in self.args)
            rn = "%r" if len(self.results) == 1 else "%%r:%d" % len(self.results)
            out.append("  %s = func.call @%s_f(%s) : (%s) -> (%s)" % (rn, self.name, ", ".join(names), arg_types, res))
            for j, want in enumerate(expected):
                ref = "%r" if len(self.results) == 1 else "%%r#%d" % j
                check = "check.expect_eq_const" if want.dtype.kind != "f" else "check.expect_almost_eq_const"
                out.append("  %s %s, %s : %s" % (check, ref, dense(want), ttype(want.shape, self.results[j][1])))
            out.append("  func.return")
            out.append("}")
        return "\n".join(out)


def pad_ref(a, value, low, high, interior):
    shape = [lo + hi + n + it * max(n - 1, 0) for n, lo, hi, it in zip(a.shape, low, high, interior)]
    out = np.full(shape, value, dtype=a.dtype)
    idx = tuple(slice(lo, lo + (n - 1) * (it + 1) + 1 if n else lo, it + 1)
                for n, lo, it in zip(a.shape, low, interior))
    out[idx] = a
    return out


def windows(n, lo, hi, base, win, wdil, stride):
    dilated = 0 if n == 0 else (n - 1) * base + 1
    padded = lo + dilated + hi
    w = 0 if win == 0 else (win - 1) * wdil + 1
    return 0 if padded == 0 or w > padded else (padded - w) // stride + 1


def programs():
    out = []

    p = Program("pad", [((None, 2), "f32")], [((None, 3), "f32")],
                "  %z = stablehlo.constant dense<-1.0> : tensor<f32>\n"
                "  %0 = stablehlo.pad %a0, %z, low = [1, 0], high = [2, 1], interior = [1, 0] : "
                "(tensor<?x2xf32>, tensor<f32>) -> tensor<?x3xf32>\n  return %0 : tensor<?x3xf32>",
                "pad with interior padding: dim 0 is 1 + 2 + N + max(N - 1, 0)")
    for n in (3, 0, 1):
        a = values((n, 2))
        p.call([a], [pad_ref(a, -1.0, [1, 0], [2, 1], [1, 0])])
    out.append(p)

    p = Program("gather", [((5, 3), "f32"), ((None, 1), "i64")], [((None, 3), "f32")],
                '  %0 = "stablehlo.gather"(%a0, %a1) {dimension_numbers = #stablehlo.gather<offset_dims = [1], '
                'collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>, '
                'indices_are_sorted = false} : (tensor<5x3xf32>, tensor<?x1xi64>) -> tensor<?x3xf32>\n'
                '  return %0 : tensor<?x3xf32>',
                "gather rows: as many as start_indices has")
    a = values((5, 3))
    for m in (4, 0, 2):
        idx = RNG.integers(0, 5, size=(m, 1)).astype(np.int64)
        p.call([a, idx], [a[idx[:, 0]]])
    out.append(p)

    p = Program("scatter", [((None, 3), "f32"), ((2, 3), "f32")], [((None, 3), "f32")],
                '  %i = stablehlo.constant dense<[[0], [2]]> : tensor<2x1xi64>\n'
                '  %0 = "stablehlo.scatter"(%a0, %i, %a1) ({\n'
                '    ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n'
                '      %s = stablehlo.add %x, %y : tensor<f32>\n      stablehlo.return %s : tensor<f32>\n'
                '  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], '
                'scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, '
                'unique_indices = false} : (tensor<?x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<?x3xf32>\n'
                '  return %0 : tensor<?x3xf32>',
                "scatter-add rows 0 and 2; an index out of bounds skips its update")
    u = values((2, 3))
    for n in (4, 0, 1):
        a = values((n, 3))
        want = a.copy()
        for k, i in enumerate([0, 2]):
            if i < n:
                want[i] += u[k]
        p.call([a, u], [want])
    out.append(p)

    p = Program("reduce_window", [((None, 5), "f32")], [((None, 3), "f32")],
                '  %z = stablehlo.constant dense<-100.0> : tensor<f32>\n'
                '  %0 = "stablehlo.reduce_window"(%a0, %z) ({\n'
                '    ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n'
                '      %m = stablehlo.maximum %x, %y : tensor<f32>\n      stablehlo.return %m : tensor<f32>\n'
                '  }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1, 2>, '
                'padding = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<?x5xf32>, tensor<f32>) -> tensor<?x3xf32>\n'
                '  return %0 : tensor<?x3xf32>',
                "reduce_window max, padded and strided: as many windows as the spec's num_windows")
    for n in (4, 0, 1):
        a = values((n, 5))
        padded = np.full((n + 1, 6), -100.0, dtype=np.float32)
        padded[:n, 1:] = a
        r = windows(n, 0, 1, 1, 2, 1, 1)
        want = np.array([[padded[i:i + 2, 2 * j:2 * j + 2].max() for j in range(3)] for i in range(r)],
                        dtype=np.float32).reshape(r, 3)
        p.call([a], [want])
    out.append(p)

    p = Program("reduce_window_dilated", [((None,), "f32")], [((None,), "f32")],
                '  %z = stablehlo.constant dense<0.0> : tensor<f32>\n'
                '  %0 = "stablehlo.reduce_window"(%a0, %z) ({\n'
                '    ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n'
                '      %s = stablehlo.add %x, %y : tensor<f32>\n      stablehlo.return %s : tensor<f32>\n'
                '  }) {window_dimensions = array<i64: 3>, window_strides = array<i64: 2>, base_dilations = array<i64: 2>, '
                'window_dilations = array<i64: 2>} : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>\n'
                '  return %0 : tensor<?xf32>',
                "reduce_window sum with base and window dilation")
    for n in (6, 2, 0):
        a = values((n,))
        base = np.zeros(max(2 * n - 1, 0), dtype=np.float32)
        base[::2] = a
        r = windows(n, 0, 0, 2, 3, 2, 2)
        want = np.array([base[2 * i:2 * i + 5:2].sum() for i in range(r)], dtype=np.float32)
        p.call([a], [want])
    out.append(p)

    p = Program("select_and_scatter", [((None, 4), "f32"), ((None, 2), "f32")], [((None, 4), "f32")],
                '  %z = stablehlo.constant dense<0.0> : tensor<f32>\n'
                '  %0 = "stablehlo.select_and_scatter"(%a0, %a1, %z) ({\n'
                '    ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n'
                '      %c = stablehlo.compare GE, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>\n'
                '      stablehlo.return %c : tensor<i1>\n  }, {\n'
                '    ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n'
                '      %t = stablehlo.add %x, %y : tensor<f32>\n      stablehlo.return %t : tensor<f32>\n'
                '  }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>} : '
                '(tensor<?x4xf32>, tensor<?x2xf32>, tensor<f32>) -> tensor<?x4xf32>\n'
                '  return %0 : tensor<?x4xf32>',
                "select_and_scatter: each window's largest (the first on ties) gets the source value")
    for n in (4, 0, 2):
        a = values((n, 4))
        s = values((n // 2, 2))
        want = np.zeros((n, 4), dtype=np.float32)
        for i in range(n // 2):
            for j in range(2):
                win = a[2 * i:2 * i + 2, 2 * j:2 * j + 2].reshape(-1)
                k = int(np.argmax(win))  # argmax takes the first of equal values, as GE keeps the current one
                want[2 * i + k // 2, 2 * j + k % 2] += s[i, j]
        p.call([a, s], [want])
    out.append(p)

    p = Program("convolution", [((None, None, 2), "f32"), ((3, 2, 4), "f32")], [((None, None, 4), "f32")],
                '  %0 = stablehlo.convolution(%a0, %a1) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], '
                'window = {stride = [2], pad = [[1, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : '
                '(tensor<?x?x2xf32>, tensor<3x2x4xf32>) -> tensor<?x?x4xf32>\n  return %0 : tensor<?x?x4xf32>',
                "1-D convolution with dynamic batch and width, strided and padded")
    k = values((3, 2, 4))
    for b, w in ((2, 5), (1, 1), (0, 8)):
        x = values((b, w, 2))
        xp = np.concatenate([np.zeros((b, 1, 2), dtype=np.float32), x], axis=1)
        r = windows(w, 1, 0, 1, 3, 1, 2)
        want = np.zeros((b, r, 4), dtype=np.float32)
        for i in range(r):
            want[:, i, :] = np.einsum("bkc,kco->bo", xp[:, 2 * i:2 * i + 3, :], k)
        p.call([x, k], [want])
    out.append(p)

    p = Program("dynamic_conv", [((None, None, 2), "f32"), ((3, 2, 4), "f32"), ((1, 2), "i64")],
                [((None, None, 4), "f32")],
                '  %0 = "stablehlo.dynamic_conv"(%a0, %a1, %a2) {window_strides = array<i64: 2>, '
                'dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, batch_group_count = 1 : i64, '
                'feature_group_count = 1 : i64} : (tensor<?x?x2xf32>, tensor<3x2x4xf32>, tensor<1x2xi64>) -> '
                'tensor<?x?x4xf32>\n  return %0 : tensor<?x?x4xf32>',
                "dynamic_conv: the padding is an operand, read at run time")
    for b, w, (lo, hi) in ((2, 5, (2, 1)), (1, 0, (1, 1)), (0, 4, (0, 0))):
        x = values((b, w, 2))
        xp = np.concatenate([np.zeros((b, lo, 2), dtype=np.float32), x, np.zeros((b, hi, 2), dtype=np.float32)], axis=1)
        r = windows(w, lo, hi, 1, 3, 1, 2)
        want = np.zeros((b, r, 4), dtype=np.float32)
        for i in range(r):
            want[:, i, :] = np.einsum("bkc,kco->bo", xp[:, 2 * i:2 * i + 3, :], k)
        p.call([x, k, np.array([[lo, hi]], dtype=np.int64)], [want])
    out.append(p)

    p = Program("sort", [((None,), "f32"), ((None,), "i32")], [((None,), "f32"), ((None,), "i32")],
                '  %0:2 = "stablehlo.sort"(%a0, %a1) ({\n'
                '    ^bb0(%x: tensor<f32>, %y: tensor<f32>, %i: tensor<i32>, %j: tensor<i32>):\n'
                '      %c = stablehlo.compare LT, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>\n'
                '      stablehlo.return %c : tensor<i1>\n'
                '  }) {dimension = 0 : i64, is_stable = true} : (tensor<?xf32>, tensor<?xi32>) -> (tensor<?xf32>, tensor<?xi32>)\n'
                '  return %0#0, %0#1 : tensor<?xf32>, tensor<?xi32>',
                "stable sort of keys carrying values")
    for n in (7, 0, 1):
        keys = values((n,))
        vals = np.arange(n, dtype=np.int32)
        order = np.argsort(keys, kind="stable")
        p.call([keys, vals], [keys[order], vals[order]])
    out.append(p)

    p = Program("reshape", [((None, 6), "f32")], [((None, 3), "f32")],
                '  %0 = stablehlo.reshape %a0 : (tensor<?x6xf32>) -> tensor<?x3xf32>\n  return %0 : tensor<?x3xf32>',
                "reshape: the one `?` is the element count over the other dimensions")
    for n in (2, 0, 1):
        a = values((n, 6))
        p.call([a], [a.reshape(-1, 3)])
    out.append(p)

    p = Program("transpose_reduce_concatenate", [((None, 3), "f32"), ((None, 3), "f32")], [((None,), "f32")],
                '  %c = stablehlo.concatenate %a0, %a1, dim = 0 : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>\n'
                '  %t = stablehlo.transpose %c, dims = [1, 0] : (tensor<?x3xf32>) -> tensor<3x?xf32>\n'
                '  %z = stablehlo.constant dense<0.0> : tensor<f32>\n'
                '  %r = stablehlo.reduce(%t init: %z) applies stablehlo.add across dimensions = [0] : '
                '(tensor<3x?xf32>, tensor<f32>) -> tensor<?xf32>\n  return %r : tensor<?xf32>',
                "concatenate, transpose, then reduce the static dimension")
    for m, n in ((2, 3), (0, 0), (0, 2)):
        a, b = values((m, 3)), values((n, 3))
        p.call([a, b], [np.concatenate([a, b]).sum(axis=1).astype(np.float32)])
    out.append(p)

    p = Program("dot_general_batched", [((None, 2, 3), "f32"), ((None, 3, None), "f32")], [((None, 2, None), "f32")],
                '  %0 = stablehlo.dot_general %a0, %a1, batching_dims = [0] x [0], contracting_dims = [2] x [1] : '
                '(tensor<?x2x3xf32>, tensor<?x3x?xf32>) -> tensor<?x2x?xf32>\n  return %0 : tensor<?x2x?xf32>',
                "batched dot_general with a dynamic batch and output width")
    for b, n in ((2, 4), (0, 3), (3, 0)):
        x, y = values((b, 2, 3)), values((b, 3, n))
        p.call([x, y], [np.einsum("bij,bjk->bik", x, y).astype(np.float32)])
    out.append(p)

    p = Program("reverse_broadcast", [((None,), "f32")], [((2, None), "f32")],
                '  %r = stablehlo.reverse %a0, dims = [0] : tensor<?xf32>\n'
                '  %b = stablehlo.broadcast_in_dim %r, dims = [1] : (tensor<?xf32>) -> tensor<2x?xf32>\n'
                '  return %b : tensor<2x?xf32>',
                "reverse, then broadcast_in_dim into a new leading dimension")
    for n in (5, 0, 1):
        a = values((n,))
        p.call([a], [np.broadcast_to(a[::-1], (2, n)).copy()])
    out.append(p)
    p = Program("while_if", [((None,), "f32"), ((), "i1")], [((None,), "f32")],
                '  %i0 = stablehlo.constant dense<0> : tensor<i32>\n'
                '  %r:2 = stablehlo.while(%it = %i0, %v = %a0) : tensor<i32>, tensor<?xf32>\n'
                '    cond {\n      %n = stablehlo.constant dense<3> : tensor<i32>\n'
                '      %c = stablehlo.compare LT, %it, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>\n'
                '      stablehlo.return %c : tensor<i1>\n    } do {\n'
                '      %one = stablehlo.constant dense<1> : tensor<i32>\n'
                '      %j = stablehlo.add %it, %one : tensor<i32>\n'
                '      %y = stablehlo.add %v, %v : tensor<?xf32>\n'
                '      stablehlo.return %j, %y : tensor<i32>, tensor<?xf32>\n    }\n'
                '  %s = "stablehlo.if"(%a1) ({\n    stablehlo.return %r#1 : tensor<?xf32>\n  }, {\n'
                '    %n = stablehlo.negate %r#1 : tensor<?xf32>\n    stablehlo.return %n : tensor<?xf32>\n'
                '  }) : (tensor<i1>) -> tensor<?xf32>\n  return %s : tensor<?xf32>',
                "while carrying a ? tensor (doubled three times), then if choosing it or its negation")
    for n, pred in ((3, True), (0, False), (5, False)):
        a = values((n,))
        p.call([a, np.array(pred)], [(8 * a if pred else -8 * a).astype(np.float32)])
    out.append(p)

    p = Program("top_k", [((None, 5), "f32")], [((None, 2), "f32"), ((None, 2), "i32")],
                '  %v, %i = "chlo.top_k"(%a0) {k = 2 : i64} : (tensor<?x5xf32>) -> (tensor<?x2xf32>, tensor<?x2xi32>)\n'
                '  return %v, %i : tensor<?x2xf32>, tensor<?x2xi32>',
                "chlo.top_k: the two largest of each row, and where they were")
    for n in (3, 0, 1):
        a = np.array([RNG.permutation(5) for _ in range(n)], dtype=np.float32).reshape(n, 5)
        idx = np.argsort(-a, axis=1, kind="stable")[:, :2].astype(np.int32)
        p.call([a], [np.take_along_axis(a, idx, axis=1), idx])
    out.append(p)

    # Collectives across two replicas: all_gather doubles the rows,
    # reduce_scatter of the gathered rows halves them again.
    chunks = []
    for k, n in enumerate((1, 0, 2)):
        a, b = values((n, 2)), values((n, 2))
        gathered = np.concatenate([a, b])
        t = ttype((n, 2), "f32")
        dt = "tensor<?x2xf32>"
        chunks.append("\n".join([
            "// all_gather and reduce_scatter on ? rows (%d per replica)" % n,
            "module @collectives_%d {" % k,
            "  func.func @g(%%x: %s) -> (%s, %s) {" % (dt, dt, dt),
            '    %g = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : '
            'tensor<1x2xi64>} : (tensor<?x2xf32>) -> tensor<?x2xf32>',
            '    %r = "stablehlo.reduce_scatter"(%g) ({',
            "      ^bb0(%p: tensor<f32>, %q: tensor<f32>):",
            "        %s = stablehlo.add %p, %q : tensor<f32>",
            "        stablehlo.return %s : tensor<f32>",
            "    }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : "
            "(tensor<?x2xf32>) -> tensor<?x2xf32>",
            "    return %g, %r : tensor<?x2xf32>, tensor<?x2xf32>",
            "  }",
            "  func.func @collectives_%d() {" % k,
            "    %%a = stablehlo.constant %s : %s" % (dense(a), t),
            "    %%b = stablehlo.constant %s : %s" % (dense(b), t),
            "    %%da = stablehlo.convert %%a : (%s) -> %s" % (t, dt),
            "    %%db = stablehlo.convert %%b : (%s) -> %s" % (t, dt),
            '    %%r:4 = "interpreter.run_parallel"(%%da, %%db) {programs = [[@g], [@g]]} : (%s, %s) -> (%s, %s, %s, %s)'
            % (dt, dt, dt, dt, dt, dt),
            "    check.expect_almost_eq_const %%r#0, %s : %s" % (dense(gathered), ttype(gathered.shape, "f32")),
            "    check.expect_almost_eq_const %%r#2, %s : %s" % (dense(gathered), ttype(gathered.shape, "f32")),
            "    check.expect_almost_eq_const %%r#1, %s : %s" % (dense(2 * a), t),
            "    check.expect_almost_eq_const %%r#3, %s : %s" % (dense(2 * b), t),
            "    func.return",
            "  }",
            "}"]))
    out.append(Raw("\n\n// -----\n\n".join(chunks)))
    return out


class Raw:
    """Programs written out whole (modules of several functions)."""

    def __init__(self, text):
        self._text = text

    def text(self):
        return self._text


def main():
    print("// Generated by tests/data/ops/gen_dynamic_ops.py (fixed seed): ops on")
    print("// `?` shapes, each called on three shapes (one zero-sized) and checked")
    print("// against numpy. Do not edit by hand.")
    print("\n\n// -----\n\n".join(p.text() for p in programs()))


if __name__ == "__main__":
    main()
