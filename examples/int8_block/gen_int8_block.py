"""An int8 MobileNet-v2 inverted residual block and its f32 twin (issue 24's
"int8 MobileNet block", docs/performance.md "int8 convolution").

The int8 block is what a TFLite-style quantized export holds, NHWC, i8
activations with zero points, per-axis i8 weights (batch norm folded into
them): 1x1 expand 32 -> 192, relu6, depthwise 3x3 (feature_group_count
192, padding 1), relu6, 1x1 project 192 -> 32, plus the skip. Each
convolution produces the i32 accumulation type (scale input x weight per
output feature), requantized to i8; relu6 is the requantized type's storage
range (i8<-128:-8> at scale 0.05, zero point -128: [0, 6]), as TFLite
folds it. The skip is a quantized add. The f32 twin computes the same
graph on the dequantized weights. Usage:
  /usr/bin/python3 examples/int8_block/gen_int8_block.py OUT
writes OUT/int8_block.mlir and OUT/f32_block.mlir, each with @main (batch 1)
and @main_b64 (batch 64), input x [B, 16, 16, 32] (i8 or f32), and OUT/x.npy,
a random i8 input of batch 1.
"""
import sys

import numpy as np

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
C, E, HW = 32, 192, 16
rng = np.random.default_rng(24)


def ttype(shape, elem):
    return "tensor<" + "".join("%dx" % d for d in shape) + elem + ">"


def hexd(a):
    return 'dense<"0x' + np.ascontiguousarray(a).tobytes().hex().upper() + '">'


def per_axis(scales):
    return "{" + ", ".join("%r:0" % float(s) for s in scales) + "}"


f32 = np.float32
x_s, x_z = f32(0.05), -3           # the input
a_s, a_z = f32(0.05), -128         # after relu6: [0, 6] in i8<-128:-8>
p_s, p_z = f32(0.1), 0             # the projection
o_s, o_z = f32(0.15), -2           # the block's output
layers = {  # name: (kernel shape, input scale, groups, padding, output type)
    "expand": ((1, 1, C, E), x_s, 1, 0),
    "dw": ((3, 3, 1, E), a_s, E, 1),
    "project": ((1, 1, E, C), a_s, 1, 0),
}
weights, w_scales = {}, {}
for name, (shape, _, _, _) in layers.items():
    weights[name] = rng.integers(-127, 128, size=shape).astype(np.int8)
    fan_in = shape[0] * shape[1] * shape[2]
    w_scales[name] = (rng.uniform(0.5, 1.5, shape[3]) / (40.0 * np.sqrt(fan_in))).astype(f32)

qx = "!quant.uniform<i8:f32, %r:%d>" % (float(x_s), x_z)
qa = "!quant.uniform<i8<-128:-8>:f32, %r:%d>" % (float(a_s), a_z)
qp = "!quant.uniform<i8:f32, %r:%d>" % (float(p_s), p_z)
qo = "!quant.uniform<i8:f32, %r:%d>" % (float(o_s), o_z)


def conv(x, k, xt, kt, rt, groups, pad):
    return ("stablehlo.convolution(%s, %s) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
            "window = {stride = [1, 1], pad = [[%d, %d], [%d, %d]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} "
            "{batch_group_count = 1 : i64, feature_group_count = %d : i64} : (%s, %s) -> %s"
            % (x, k, pad, pad, pad, pad, groups, xt, kt, rt))


def int8_function(fn, B):
    X, Y = (B, HW, HW, C), (B, HW, HW, E)
    lines = ["func.func @%s(%%x: %s) -> %s {" % (fn, ttype(X, "i8"), ttype(X, "i8")),
             "  %%xq = stablehlo.bitcast_convert %%x : (%s) -> %s" % (ttype(X, "i8"), ttype(X, qx))]
    v, vt = "%xq", ttype(X, qx)
    for name, out_q, out_shape in (("expand", qa, Y), ("dw", qa, Y), ("project", qp, X)):
        shape, in_s, groups, pad = layers[name]
        qw = "!quant.uniform<i8:f32:3, %s>" % per_axis(w_scales[name])
        acc = "!quant.uniform<i32:f32:3, %s>" % per_axis(f32(in_s) * w_scales[name])
        lines.append("  %%%s_w0 = stablehlo.constant %s : %s" % (name, hexd(weights[name]), ttype(shape, "i8")))
        lines.append("  %%%s_w = stablehlo.bitcast_convert %%%s_w0 : (%s) -> %s" % (name, name, ttype(shape, "i8"), ttype(shape, qw)))
        lines.append("  %%%s_acc = %s" % (name, conv(v, "%%%s_w" % name, vt, ttype(shape, qw), ttype(out_shape, acc), groups, pad)))
        lines.append("  %%%s = stablehlo.uniform_quantize %%%s_acc : (%s) -> %s" % (name, name, ttype(out_shape, acc), ttype(out_shape, out_q)))
        v, vt = "%" + name, ttype(out_shape, out_q)
    lines.append("  %%sum = stablehlo.add %s, %%xq : (%s, %s) -> %s" % (v, vt, ttype(X, qx), ttype(X, qo)))
    lines.append("  %%r = stablehlo.bitcast_convert %%sum : (%s) -> %s" % (ttype(X, qo), ttype(X, "i8")))
    lines.append("  return %%r : %s" % ttype(X, "i8"))
    lines.append("}")
    return "\n".join(lines) + "\n"


def f32_function(fn, B):
    X, Y = (B, HW, HW, C), (B, HW, HW, E)
    lines = ["func.func @%s(%%x: %s) -> %s {" % (fn, ttype(X, "f32"), ttype(X, "f32")),
             "  %lo = stablehlo.constant dense<0.0> : tensor<f32>",
             "  %hi = stablehlo.constant dense<6.0> : tensor<f32>"]
    v = "%x"
    for name, out_shape, relu in (("expand", Y, True), ("dw", Y, True), ("project", X, False)):
        shape, _, groups, pad = layers[name]
        w = weights[name].astype(f32) * w_scales[name]
        lines.append("  %%%s_w = stablehlo.constant %s : %s" % (name, hexd(w.astype("<f4")), ttype(shape, "f32")))
        in_shape = X if name == "expand" else Y
        lines.append("  %%%s_c = %s" % (name, conv(v, "%%%s_w" % name, ttype(in_shape, "f32"), ttype(shape, "f32"),
                                                  ttype(out_shape, "f32"), groups, pad)))
        v = "%%%s_c" % name
        if relu:
            lines.append("  %%%s = stablehlo.clamp %%lo, %s, %%hi : (tensor<f32>, %s, tensor<f32>) -> %s"
                         % (name, v, ttype(out_shape, "f32"), ttype(out_shape, "f32")))
            v = "%" + name
    lines.append("  %%sum = stablehlo.add %s, %%x : %s" % (v, ttype(X, "f32")))
    lines.append("  return %%sum : %s" % ttype(X, "f32"))
    lines.append("}")
    return "\n".join(lines) + "\n"


open(OUT + "/int8_block.mlir", "w").write(int8_function("main", 1) + "\n" + int8_function("main_b64", 64))
open(OUT + "/f32_block.mlir", "w").write(f32_function("main", 1) + "\n" + f32_function("main_b64", 64))
np.save(OUT + "/x.npy", rng.integers(-128, 128, size=(1, HW, HW, C)).astype(np.int8))
