"""A pre-LN transformer encoder block as JAX exports it: x [B, 64, 256];
layer norm, QKV projections, 4-head attention with softmax, output
projection and residual; layer norm, MLP 256->1024->256 with gelu (tanh)
and residual. Attention is the einsum pair JAX lowers to batched
dot_generals: 'bqhd,bkhd->bhqk' and 'bhqk,bkhd->bhqd', then a transpose."""
import numpy as np

from common import Body, call_weights, gelu_tanh, gelu_tanh_np, ttype, weights_function

NAME = "transformer"
SEED = 20261201
S, D, H, F = 64, 256, 4, 1024
DH = D // H
EPS = 1e-5


def weights():
    rng = np.random.RandomState(SEED)
    f = lambda *shape, scale=1.0: (rng.standard_normal(shape) * scale).astype(np.float32)
    w = [("ln1_g", 1.0 + f(D, scale=0.1)), ("ln1_b", f(D, scale=0.1))]
    for n in "qkvo":
        w += [("w" + n, f(D, D, scale=D ** -0.5)), ("b" + n, f(D, scale=0.02))]
    w += [("ln2_g", 1.0 + f(D, scale=0.1)), ("ln2_b", f(D, scale=0.1)),
          ("w1", f(D, F, scale=D ** -0.5)), ("b1", f(F, scale=0.02)),
          ("w2", f(F, D, scale=F ** -0.5)), ("b2", f(D, scale=0.02))]
    return w


def inputs(batch):
    rng = np.random.RandomState(SEED + batch)
    return [rng.standard_normal((batch, S, D)).astype(np.float32)]


def _layer_norm_np(x, g, b):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + EPS) * g + b


def forward(w, x):
    x = x.astype(np.float64)
    w = {k: v.astype(np.float64) for k, v in w.items()}
    B = x.shape[0]
    xn = _layer_norm_np(x, w["ln1_g"], w["ln1_b"])
    q, k, v = ((xn @ w["w" + n] + w["b" + n]).reshape(B, S, H, DH) for n in "qkv")
    s = np.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(DH)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    ctx = np.einsum("bhqk,bkhd->bqhd", p, v).reshape(B, S, D)
    h = x + ctx @ w["wo"] + w["bo"]
    m = gelu_tanh_np(_layer_norm_np(h, w["ln2_g"], w["ln2_b"]) @ w["w1"] + w["b1"]) @ w["w2"] + w["b2"]
    return (h + m).astype(np.float32)


def _layer_norm(b, x, g, beta, shape):
    red = shape[:-1]
    last = len(shape) - 1
    n = b.const(float(shape[-1]), red)
    mean = b.binary("divide", b.reduce(x, shape, [last], "add"), n, red)
    xc = b.binary("subtract", x, b.broadcast(mean, red, list(range(last)), shape), shape)
    var = b.binary("divide", b.reduce(b.binary("multiply", xc, xc, shape), shape, [last], "add"), n, red)
    r = b.unary("rsqrt", b.binary("add", var, b.const(EPS, red), red), red)
    y = b.binary("multiply", xc, b.broadcast(r, red, list(range(last)), shape), shape)
    y = b.binary("multiply", y, b.broadcast(g, [shape[-1]], [last], shape), shape)
    return b.bias(y, beta, shape, last)


def function(name, B, wlist):
    b = Body()
    w = call_weights(b, wlist)
    X, X4, SC = [B, S, D], [B, S, H, DH], [B, H, S, S]
    xn = _layer_norm(b, "%x", w["ln1_g"], w["ln1_b"], X)
    qkv = {}
    for n in "qkv":
        p = b.dot(xn, w["w" + n], X, [D, D], X, ([2], [0]))
        qkv[n] = b.reshape(b.bias(p, w["b" + n], X, 2), X, X4)
    s = b.dot(qkv["q"], qkv["k"], X4, X4, SC, ([3], [3]), batching=([0, 2], [0, 2]))
    s = b.binary("multiply", s, b.const(DH ** -0.5, SC), SC)
    mx = b.reduce(s, SC, [3], "max")
    e = b.unary("exponential", b.binary("subtract", s, b.broadcast(mx, [B, H, S], [0, 1, 2], SC), SC), SC)
    sm = b.reduce(e, SC, [3], "add")
    p = b.binary("divide", e, b.broadcast(sm, [B, H, S], [0, 1, 2], SC), SC)
    ctx = b.dot(p, qkv["v"], SC, X4, [B, H, S, DH], ([3], [1]), batching=([0, 1], [0, 2]))
    ctx = b.reshape(b.transpose(ctx, [B, H, S, DH], [0, 2, 1, 3]), X4, X)
    o = b.bias(b.dot(ctx, w["wo"], X, [D, D], X, ([2], [0])), w["bo"], X, 2)
    h = b.binary("add", "%x", o, X)
    hn = _layer_norm(b, h, w["ln2_g"], w["ln2_b"], X)
    m = b.bias(b.dot(hn, w["w1"], X, [D, F], [B, S, F], ([2], [0])), w["b1"], [B, S, F], 2)
    m = gelu_tanh(b, m, [B, S, F])
    m = b.bias(b.dot(m, w["w2"], [B, S, F], [F, D], X, ([2], [0])), w["b2"], X, 2)
    y = b.binary("add", h, m, X)
    return ("func.func public @%s(%%x: %s) -> %s {\n%s  func.return %s : %s\n}\n"
            % (name, ttype(X), ttype(X), b.text(), y, ttype(X)))


def program():
    wlist = weights()
    return (function("main", 1, wlist) + "\n" + function("main_b64", 64, wlist) + "\n" + weights_function(wlist))
