"""An embedding bag and a linear classifier (fastText-like), as JAX exports
table[ids].mean(1) @ w + b: ids [B, 16] (i32) gather rows of a [4096, 64]
table (stablehlo.gather, one row a slice), a reduce adds each bag's 16
rows, a divide makes the mean; then a dot_general to 16 classes."""
import numpy as np

from common import Body, call_weights, ttype, weights_function

NAME = "embedding_bag"
SEED = 20261205
V, D, L, C = 4096, 64, 16, 16


def weights():
    rng = np.random.RandomState(SEED)
    return [("table", rng.standard_normal((V, D)).astype(np.float32)),
            ("w", (rng.standard_normal((D, C)) * D ** -0.5).astype(np.float32)),
            ("b", (rng.standard_normal(C) * 0.1).astype(np.float32))]


def inputs(batch):
    rng = np.random.RandomState(SEED + batch)
    ids = rng.randint(0, V, (batch, L)).astype(np.int32)
    ids[0, :3] = [0, V - 1, 0]  # the first and last rows, and a repeat
    return [ids]


def forward(w, ids):
    w = {k: v.astype(np.float64) for k, v in w.items()}
    return (w["table"][ids].mean(1) @ w["w"] + w["b"]).astype(np.float32)


def function(name, B, wlist):
    b = Body()
    w = call_weights(b, wlist)
    ids = b.reshape("%ids", [B, L], [B, L, 1], "i32")
    g = b.op('"stablehlo.gather"(%s, %s) {dimension_numbers = #stablehlo.gather<offset_dims = [2], '
             "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, "
             "indices_are_sorted = false, slice_sizes = array<i64: 1, %d>} : (%s, %s) -> %s"
             % (w["table"], ids, D, ttype([V, D]), ttype([B, L, 1], "i32"), ttype([B, L, D])))
    s = b.reduce(g, [B, L, D], [1], "add")
    m = b.binary("divide", s, b.const(float(L), [B, D]), [B, D])
    y = b.bias(b.dot(m, w["w"], [B, D], [D, C], [B, C], ([1], [0])), w["b"], [B, C], 1)
    return ("func.func public @%s(%%ids: %s) -> %s {\n%s  func.return %s : %s\n}\n"
            % (name, ttype([B, L], "i32"), ttype([B, C]), b.text(), y, ttype([B, C])))


def program():
    wlist = weights()
    return function("main", 1, wlist) + "\n" + function("main_b64", 64, wlist) + "\n" + weights_function(wlist)
