"""A ResNet basic block as torch exports it (NCHW, OIHW kernels):
x [B, 64, 16, 16]; conv3x3 - batch_norm_inference - relu - conv3x3 -
batch_norm_inference, plus the skip, then relu."""
import numpy as np

from common import Body, call_weights, ttype, weights_function

NAME = "resnet_block"
SEED = 20261202
C, HW = 64, 16
EPS = 1e-5


def weights():
    rng = np.random.RandomState(SEED)
    w = []
    for i in "12":
        w += [("conv" + i, (rng.standard_normal((C, C, 3, 3)) * (2.0 / (9 * C)) ** 0.5).astype(np.float32)),
              ("bn%s_g" % i, rng.uniform(0.5, 1.5, C).astype(np.float32)),
              ("bn%s_b" % i, (rng.standard_normal(C) * 0.1).astype(np.float32)),
              ("bn%s_m" % i, (rng.standard_normal(C) * 0.1).astype(np.float32)),
              ("bn%s_v" % i, rng.uniform(0.5, 1.5, C).astype(np.float32))]
    return w


def inputs(batch):
    rng = np.random.RandomState(SEED + batch)
    return [rng.standard_normal((batch, C, HW, HW)).astype(np.float32)]


def _conv_np(x, w):
    """3x3, stride 1, padding 1, NCHW x OIHW."""
    B, _, H, W = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((B, w.shape[0], H, W))
    for dy in range(3):
        for dx in range(3):
            out += np.einsum("bihw,oi->bohw", xp[:, :, dy:dy + H, dx:dx + W], w[:, :, dy, dx])
    return out


def _bn_np(x, w, i):
    sh = (1, -1, 1, 1)
    return ((x - w["bn%s_m" % i].reshape(sh)) / np.sqrt(w["bn%s_v" % i].reshape(sh) + EPS)
            * w["bn%s_g" % i].reshape(sh) + w["bn%s_b" % i].reshape(sh))


def forward(w, x):
    x = x.astype(np.float64)
    w = {k: v.astype(np.float64) for k, v in w.items()}
    y = np.maximum(_bn_np(_conv_np(x, w["conv1"]), w, "1"), 0)
    y = _bn_np(_conv_np(y, w["conv2"]), w, "2")
    return np.maximum(y + x, 0).astype(np.float32)


def function(name, B, wlist):
    b = Body()
    w = call_weights(b, wlist)
    X, K, V = [B, C, HW, HW], [C, C, 3, 3], [C]
    y = "%x"
    for i in "12":
        y = b.op("stablehlo.convolution(%s, %s) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], "
                 "window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} "
                 "{batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (%s, %s) -> %s"
                 % (y, w["conv" + i], ttype(X), ttype(K), ttype(X)))
        y = b.op('"stablehlo.batch_norm_inference"(%s, %s, %s, %s, %s) {epsilon = 1.000000e-05 : f32, '
                 "feature_index = 1 : i64} : (%s, %s, %s, %s, %s) -> %s"
                 % (y, w["bn%s_g" % i], w["bn%s_b" % i], w["bn%s_m" % i], w["bn%s_v" % i],
                    ttype(X), ttype(V), ttype(V), ttype(V), ttype(V), ttype(X)))
        if i == "2":
            y = b.binary("add", y, "%x", X)
        y = b.binary("maximum", y, b.const(0.0, X), X)
    return ("func.func public @%s(%%x: %s) -> %s {\n%s  func.return %s : %s\n}\n"
            % (name, ttype(X), ttype(X), b.text(), y, ttype(X)))


def program():
    wlist = weights()
    return function("main", 1, wlist) + "\n" + function("main_b64", 64, wlist) + "\n" + weights_function(wlist)
