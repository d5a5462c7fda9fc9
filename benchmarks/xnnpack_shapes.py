"""Kiln programs for the shapes of XNNPACK's operator benchmark
(../shared/peers/lowprec/xnn_bench.c), for benchmarks/compare_xnnpack.sh:
fc (1024x1024 by 1024x1024), fc_m1 (1x1024 by 1024x1024), conv
(1x56x56x64 -> 64, 3x3, padding 1, NHWC) and dwconv (1x112x112x32,
depthwise 3x3, padding 1), each in f32, f16 and qs8. The weights are
constants (XNNPACK packs them when the operator is created). qs8 as
XNNPACK's: an i8 input with zero point -5, per-tensor i8 weights, the i32
accumulators requantized to i8 with zero point 7 (the CPU target folds the
requantize into the contraction). Usage:
  /usr/bin/python3 benchmarks/xnnpack_shapes.py OUT
writes OUT/<op>_<dtype>.mlir, each with @main taking the input only.
"""
import sys

import numpy as np

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
rng = np.random.default_rng(7)
f32 = np.float32
X_S, X_Z, W_S, O_S, O_Z = 0.05, -5, 0.01, 0.5, 7

SHAPES = {  # name: (input, kernel, result, kind, groups)
    "fc": ((1024, 1024), (1024, 1024), (1024, 1024), "dot", 1),
    "fc_m1": ((1, 1024), (1024, 1024), (1, 1024), "dot", 1),
    "conv": ((1, 56, 56, 64), (3, 3, 64, 64), (1, 56, 56, 64), "conv", 1),
    "dwconv": ((1, 112, 112, 32), (3, 3, 1, 32), (1, 112, 112, 32), "conv", 32),
}


def ttype(shape, elem):
    return "tensor<" + "".join("%dx" % d for d in shape) + elem + ">"


def hexd(a):
    return 'dense<"0x' + np.ascontiguousarray(a).tobytes().hex().upper() + '">'


def product(kind, groups, x, w, xt, wt, rt):
    if kind == "dot":
        return "stablehlo.dot_general %s, %s, contracting_dims = [1] x [0] : (%s, %s) -> %s" % (x, w, xt, wt, rt)
    return ("stablehlo.convolution(%s, %s) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
            "window = {pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = %d : i64} "
            ": (%s, %s) -> %s" % (x, w, groups, xt, wt, rt))


def float_program(name, elem, np_type):
    xs, ks, rs, kind, groups = SHAPES[name]
    w = (rng.standard_normal(ks) * 0.1).astype(np_type)
    return "\n".join([
        "func.func @main(%%x: %s) -> %s {" % (ttype(xs, elem), ttype(rs, elem)),
        "  %%w = stablehlo.constant %s : %s" % (hexd(w), ttype(ks, elem)),
        "  %%y = %s" % product(kind, groups, "%x", "%w", ttype(xs, elem), ttype(ks, elem), ttype(rs, elem)),
        "  return %%y : %s" % ttype(rs, elem),
        "}", ""])


def qs8_program(name):
    xs, ks, rs, kind, groups = SHAPES[name]
    qx = "!quant.uniform<i8:f32, %r:%d>" % (X_S, X_Z)
    qw = "!quant.uniform<i8:f32, %r>" % W_S
    acc = "!quant.uniform<i32:f32, %r>" % float(f32(X_S) * f32(W_S))
    qo = "!quant.uniform<i8:f32, %r:%d>" % (O_S, O_Z)
    w = rng.integers(-127, 128, size=ks).astype(np.int8)
    return "\n".join([
        "func.func @main(%%x: %s) -> %s {" % (ttype(xs, "i8"), ttype(rs, "i8")),
        "  %%xq = stablehlo.bitcast_convert %%x : (%s) -> %s" % (ttype(xs, "i8"), ttype(xs, qx)),
        "  %%w0 = stablehlo.constant %s : %s" % (hexd(w), ttype(ks, "i8")),
        "  %%w = stablehlo.bitcast_convert %%w0 : (%s) -> %s" % (ttype(ks, "i8"), ttype(ks, qw)),
        "  %%acc = %s" % product(kind, groups, "%xq", "%w", ttype(xs, qx), ttype(ks, qw), ttype(rs, acc)),
        "  %%yq = stablehlo.uniform_quantize %%acc : (%s) -> %s" % (ttype(rs, acc), ttype(rs, qo)),
        "  %%y = stablehlo.bitcast_convert %%yq : (%s) -> %s" % (ttype(rs, qo), ttype(rs, "i8")),
        "  return %%y : %s" % ttype(rs, "i8"),
        "}", ""])


for name in SHAPES:
    open("%s/%s_f32.mlir" % (OUT, name), "w").write(float_program(name, "f32", "<f4"))
    open("%s/%s_f16.mlir" % (OUT, name), "w").write(float_program(name, "f16", "<f2"))
    open("%s/%s_qs8.mlir" % (OUT, name), "w").write(qs8_program(name))
