"""A MobileNet-v2 inverted residual block as JAX/flax exports it (NHWC, HWIO
kernels): x [B, 16, 16, 32]; 1x1 expand to 192 - BN - relu6 - depthwise
3x3 (feature_group_count = 192) - BN - relu6 - 1x1 project to 32 - BN,
plus the skip. Batch norm is flax's inference form, computed from its
statistics in the program: (x - mean) * (scale * rsqrt(var + eps)) + bias."""
import numpy as np

from common import Body, call_weights, ttype, weights_function

NAME = "mobilenet_block"
SEED = 20261203
C, E, HW = 32, 192, 16
EPS = 1e-5


def weights():
    rng = np.random.RandomState(SEED)
    f = lambda *shape, scale=1.0: (rng.standard_normal(shape) * scale).astype(np.float32)
    w = [("expand", f(1, 1, C, E, scale=(2.0 / C) ** 0.5)), ("dw", f(3, 3, 1, E, scale=(2.0 / 9) ** 0.5)),
         ("project", f(1, 1, E, C, scale=(1.0 / E) ** 0.5))]
    for i, n in (("1", E), ("2", E), ("3", C)):
        w += [("bn%s_g" % i, rng.uniform(0.5, 1.5, n).astype(np.float32)), ("bn%s_b" % i, f(n, scale=0.1)),
              ("bn%s_m" % i, f(n, scale=0.1)), ("bn%s_v" % i, rng.uniform(0.5, 1.5, n).astype(np.float32))]
    return w


def inputs(batch):
    rng = np.random.RandomState(SEED + batch)
    return [rng.standard_normal((batch, HW, HW, C)).astype(np.float32)]


def _bn_np(x, w, i):
    return (x - w["bn%s_m" % i]) * (w["bn%s_g" % i] / np.sqrt(w["bn%s_v" % i] + EPS)) + w["bn%s_b" % i]


def forward(w, x):
    x = x.astype(np.float64)
    w = {k: v.astype(np.float64) for k, v in w.items()}
    y = np.clip(_bn_np(x @ w["expand"][0, 0], w, "1"), 0, 6)
    yp = np.pad(y, ((0, 0), (1, 1), (1, 1), (0, 0)))
    d = sum(yp[:, dy:dy + HW, dx:dx + HW, :] * w["dw"][dy, dx, 0] for dy in range(3) for dx in range(3))
    y = np.clip(_bn_np(d, w, "2"), 0, 6)
    return (_bn_np(y @ w["project"][0, 0], w, "3") + x).astype(np.float32)


def _conv(b, x, k, xs, ks, os, pad, groups):
    return b.op("stablehlo.convolution(%s, %s) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
                "window = {stride = [1, 1], pad = [[%d, %d], [%d, %d]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} "
                "{batch_group_count = 1 : i64, feature_group_count = %d : i64} : (%s, %s) -> %s"
                % (x, k, pad, pad, pad, pad, groups, ttype(xs), ttype(ks), ttype(os)))


def _bn(b, x, w, i, shape):
    n = shape[-1]
    bc = lambda v: b.broadcast(v, [n], [3], shape)
    mul = b.binary("multiply", b.unary("rsqrt", b.binary("add", w["bn%s_v" % i], b.const(EPS, [n]), [n]), [n]),
                   w["bn%s_g" % i], [n])
    y = b.binary("subtract", x, bc(w["bn%s_m" % i]), shape)
    y = b.binary("multiply", y, bc(mul), shape)
    return b.binary("add", y, bc(w["bn%s_b" % i]), shape)


def _relu6(b, x, shape):
    lo, hi = b.const(0.0, []), b.const(6.0, [])
    return b.op("stablehlo.clamp %s, %s, %s : (%s, %s, %s) -> %s"
                % (lo, x, hi, ttype([]), ttype(shape), ttype([]), ttype(shape)))


def function(name, B, wlist):
    b = Body()
    w = call_weights(b, wlist)
    X, Y = [B, HW, HW, C], [B, HW, HW, E]
    y = _relu6(b, _bn(b, _conv(b, "%x", w["expand"], X, [1, 1, C, E], Y, 0, 1), w, "1", Y), Y)
    y = _relu6(b, _bn(b, _conv(b, y, w["dw"], Y, [3, 3, 1, E], Y, 1, E), w, "2", Y), Y)
    y = _bn(b, _conv(b, y, w["project"], Y, [1, 1, E, C], X, 0, 1), w, "3", X)
    y = b.binary("add", y, "%x", X)
    return ("func.func public @%s(%%x: %s) -> %s {\n%s  func.return %s : %s\n}\n"
            % (name, ttype(X), ttype(X), b.text(), y, ttype(X)))


def program():
    wlist = weights()
    return function("main", 1, wlist) + "\n" + function("main_b64", 64, wlist) + "\n" + weights_function(wlist)
