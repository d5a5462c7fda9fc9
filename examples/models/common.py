"""Shared helpers of the model generators in examples/models/: StableHLO
text for types and inline constants, and a builder that numbers SSA values.

Constants are written in the hex form (dense<"0x...">) that JAX and the
StableHLO tools print for large tensors: exact, and 8 characters a float.
"""
import numpy as np


def ttype(shape, dtype="f32"):
    return "tensor<" + "".join("%dx" % d for d in shape) + dtype + ">"


def hex_dense(a):
    """The hex form of an f32 array (little-endian bytes, as MLIR writes)."""
    a = np.ascontiguousarray(a, dtype="<f4")
    return 'dense<"0x' + a.tobytes().hex().upper() + '">'


def splat(value):
    return "dense<%s>" % repr(float(value))


class Body:
    """Lines of one function or region body; each emitted op gets the next
    SSA name (%v0, %v1, ...), so generators read like the math."""

    def __init__(self, indent="  ", prefix="v"):
        self.lines = []
        self.indent = indent
        self.prefix = prefix
        self.count = 0

    def op(self, rhs, results=1):
        name = "%%%s%d" % (self.prefix, self.count)
        self.count += 1
        lhs = name if results == 1 else "%s:%d" % (name, results)
        self.lines.append("%s%s = %s" % (self.indent, lhs, rhs))
        return name

    def raw(self, line):
        self.lines.append(self.indent + line)

    def text(self):
        return "\n".join(self.lines) + "\n"

    # Common ops, in the pretty form JAX prints.
    def const(self, value, shape, dtype="f32"):
        return self.op("stablehlo.constant %s : %s" % (splat(value) if dtype == "f32" else "dense<%d>" % value,
                                                       ttype(shape, dtype)))

    def binary(self, name, a, b, shape, dtype="f32"):
        return self.op("stablehlo.%s %s, %s : %s" % (name, a, b, ttype(shape, dtype)))

    def unary(self, name, a, shape):
        return self.op("stablehlo.%s %s : %s" % (name, a, ttype(shape)))

    def broadcast(self, a, from_shape, dims, to_shape):
        return self.op("stablehlo.broadcast_in_dim %s, dims = [%s] : (%s) -> %s"
                       % (a, ", ".join(map(str, dims)), ttype(from_shape), ttype(to_shape)))

    def reshape(self, a, from_shape, to_shape, dtype="f32"):
        return self.op("stablehlo.reshape %s : (%s) -> %s" % (a, ttype(from_shape, dtype), ttype(to_shape, dtype)))

    def transpose(self, a, from_shape, perm):
        to_shape = [from_shape[p] for p in perm]
        return self.op("stablehlo.transpose %s, dims = [%s] : (%s) -> %s"
                       % (a, ", ".join(map(str, perm)), ttype(from_shape), ttype(to_shape)))

    def dot(self, a, b, a_shape, b_shape, out_shape, contracting, batching=None):
        dims = ""
        if batching:
            dims += "batching_dims = [%s] x [%s], " % tuple(", ".join(map(str, d)) for d in batching)
        dims += "contracting_dims = [%s] x [%s]" % tuple(", ".join(map(str, d)) for d in contracting)
        return self.op("stablehlo.dot_general %s, %s, %s : (%s, %s) -> %s"
                       % (a, b, dims, ttype(a_shape), ttype(b_shape), ttype(out_shape)))

    def reduce(self, a, shape, dims, kind):
        """A reduce over dims with an add or max body (JAX's `applies` form)."""
        init = self.const(0.0 if kind == "add" else float("-inf"), [])
        out = [d for i, d in enumerate(shape) if i not in dims]
        return self.op("stablehlo.reduce(%s init: %s) applies stablehlo.%s across dimensions = [%s] : (%s, %s) -> %s"
                       % (a, init, "add" if kind == "add" else "maximum", ", ".join(map(str, dims)),
                          ttype(shape), ttype([]), ttype(out)))

    def bias(self, a, b, shape, dim):
        """a + b broadcast along dimension dim of shape."""
        bb = self.broadcast(b, [shape[dim]], [dim], shape)
        return self.binary("add", a, bb, shape)


def gelu_tanh(b, x, shape):
    """gelu, the tanh approximation (jax.nn.gelu's default):
    0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    x2 = b.binary("multiply", x, x, shape)
    x3 = b.binary("multiply", x2, x, shape)
    c = b.const(0.044715, shape)
    t = b.binary("multiply", x3, c, shape)
    t = b.binary("add", x, t, shape)
    k = b.const(float(np.sqrt(2.0 / np.pi)), shape)
    t = b.binary("multiply", t, k, shape)
    t = b.unary("tanh", t, shape)
    one = b.const(1.0, shape)
    t = b.binary("add", t, one, shape)
    half = b.const(0.5, shape)
    h = b.binary("multiply", x, half, shape)
    return b.binary("multiply", h, t, shape)


def gelu_tanh_np(x):
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))


def weights_function(names_arrays):
    """The private @weights function: every weight an inline constant,
    returned together (shared by the batch-1 and batch-64 entry points)."""
    b = Body()
    vals = []
    for _, a in names_arrays:
        vals.append(b.op("stablehlo.constant %s : %s" % (hex_dense(a), ttype(a.shape))))
    types = ", ".join(ttype(a.shape) for _, a in names_arrays)
    return ("func.func private @weights() -> (%s) {\n%s  func.return %s : %s\n}\n"
            % (types, b.text(), ", ".join(vals), types))


def call_weights(b, names_arrays):
    """Emits the call of @weights; returns {name: SSA value}."""
    types = ", ".join(ttype(a.shape) for _, a in names_arrays)
    w = b.op("func.call @weights() : () -> (%s)" % types, results=len(names_arrays))
    return {name: "%s#%d" % (w, i) for i, (name, _) in enumerate(names_arrays)}
