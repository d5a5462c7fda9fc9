"""A GRU over a sequence, as jax.lax.scan lowers it: a stablehlo.while whose
loop-carried values are the step counter, the hidden state, the input
sequence and the weights (JAX passes what the body reads through the loop);
each step takes x[:, t, :] with dynamic_slice. x [B, 32, 64], hidden 128,
torch.nn.GRU's gate order and formula (r, z, n; b_hn inside r * (.)):
  r = sigma(x Wir + bir + h Whr + bhr), z = sigma(x Wiz + biz + h Whz + bhz)
  n = tanh(x Win + bin + r * (h Whn + bhn)),  h' = n + z * (h - n).
The result is the final hidden state [B, 128]."""
import numpy as np

from common import Body, call_weights, ttype, weights_function

NAME = "gru"
SEED = 20261204
T, I, H = 32, 64, 128


def weights():
    rng = np.random.RandomState(SEED)
    k = H ** -0.5
    u = lambda *shape: rng.uniform(-k, k, shape).astype(np.float32)
    # Stored transposed from torch's (3H, I) and (3H, H): x @ w_i, as JAX keeps them.
    return [("w_i", u(I, 3 * H)), ("w_h", u(H, 3 * H)), ("b_i", u(3 * H)), ("b_h", u(3 * H))]


def inputs(batch):
    rng = np.random.RandomState(SEED + batch)
    return [rng.standard_normal((batch, T, I)).astype(np.float32)]


def forward(w, x):
    x = x.astype(np.float64)
    w = {k: v.astype(np.float64) for k, v in w.items()}
    sig = lambda v: 1.0 / (1.0 + np.exp(-v))
    h = np.zeros((x.shape[0], H))
    for t in range(T):
        gx = x[:, t] @ w["w_i"] + w["b_i"]
        gh = h @ w["w_h"] + w["b_h"]
        r = sig(gx[:, :H] + gh[:, :H])
        z = sig(gx[:, H:2 * H] + gh[:, H:2 * H])
        n = np.tanh(gx[:, 2 * H:] + r * gh[:, 2 * H:])
        h = n + z * (h - n)
    return h.astype(np.float32)


def _slice(b, a, B, lo, hi):
    return b.op('"stablehlo.slice"(%s) {start_indices = array<i64: 0, %d>, limit_indices = array<i64: %d, %d>, '
                "strides = array<i64: 1, 1>} : (%s) -> %s" % (a, lo, B, hi, ttype([B, 3 * H]), ttype([B, H])))


def function(name, B, wlist):
    b = Body()
    w = call_weights(b, wlist)
    X, HS, G = [B, T, I], [B, H], [B, 3 * H]
    # The region's names for the carried values (distinct from the function's %x).
    carried = [("i", ttype([], "i32")), ("h", ttype(HS)), ("xs", ttype(X)), ("w_i", ttype([I, 3 * H])),
               ("w_h", ttype([H, 3 * H])), ("b_i", ttype([3 * H])), ("b_h", ttype([3 * H]))]
    i0 = b.const(0, [], "i32")
    h0 = b.const(0.0, HS)
    init = {"i": i0, "h": h0, "xs": "%x", "w_i": w["w_i"], "w_h": w["w_h"], "b_i": w["b_i"], "b_h": w["b_h"]}
    types = ", ".join(t for _, t in carried)
    res = b.op("stablehlo.while(%s) : %s" % (", ".join("%%%s = %s" % (n, init[n]) for n, _ in carried), types),
               results=len(carried))
    cond = Body(indent="    ", prefix="c")
    n_steps = cond.const(T, [], "i32")
    c = cond.op("stablehlo.compare LT, %%i, %s, SIGNED : (%s, %s) -> tensor<i1>"
                % (n_steps, ttype([], "i32"), ttype([], "i32")))
    body = Body(indent="    ", prefix="s")
    zero = body.const(0, [], "i32")
    xt = body.op("stablehlo.dynamic_slice %%xs, %s, %%i, %s, sizes = [%d, 1, %d] : (%s, %s, %s, %s) -> %s"
                 % (zero, zero, B, I, ttype(X), ttype([], "i32"), ttype([], "i32"), ttype([], "i32"),
                    ttype([B, 1, I])))
    xt = body.reshape(xt, [B, 1, I], [B, I])
    gx = body.bias(body.dot(xt, "%w_i", [B, I], [I, 3 * H], G, ([1], [0])), "%b_i", G, 1)
    gh = body.bias(body.dot("%h", "%w_h", HS, [H, 3 * H], G, ([1], [0])), "%b_h", G, 1)
    gate = lambda k: body.unary("logistic", body.binary("add", _slice(body, gx, B, k * H, (k + 1) * H),
                                                        _slice(body, gh, B, k * H, (k + 1) * H), HS), HS)
    r, z = gate(0), gate(1)
    n = body.binary("multiply", r, _slice(body, gh, B, 2 * H, 3 * H), HS)
    n = body.unary("tanh", body.binary("add", _slice(body, gx, B, 2 * H, 3 * H), n, HS), HS)
    hn = body.binary("add", n, body.binary("multiply", z, body.binary("subtract", "%h", n, HS), HS), HS)
    one = body.const(1, [], "i32")
    i1 = body.binary("add", "%i", one, [], "i32")
    b.raw("cond {\n%s    stablehlo.return %s : tensor<i1>\n  } do {\n%s    stablehlo.return %s : %s\n  }"
          % (cond.text(), c, body.text(), ", ".join([i1, hn, "%xs", "%w_i", "%w_h", "%b_i", "%b_h"]), types))
    return ("func.func public @%s(%%x: %s) -> %s {\n%s  func.return %s#1 : %s\n}\n"
            % (name, ttype(X), ttype(HS), b.text(), res, ttype(HS)))


def program():
    wlist = weights()
    return function("main", 1, wlist) + "\n" + function("main_b64", 64, wlist) + "\n" + weights_function(wlist)
