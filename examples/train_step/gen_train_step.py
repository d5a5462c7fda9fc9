#!/usr/bin/env python3
"""A data-parallel training step in StableHLO (docs/collectives.md, "A
data-parallel training step"): an MLP's forward pass, its backward pass and
an SGD update, written out by hand.

    python3 examples/train_step/gen_train_step.py OUT_DIR

writes OUT_DIR/train_step.mlir with two public functions and the .npy files
they take:

  @step         one of 2 replicas: its half of the batch; the gradients are
                summed across the replicas with stablehlo.all_reduce
                (inputs w1, b1, w2, b2, x.{process}.npy, t.{process}.npy)
  @step_whole   one process, the whole batch, no collective
                (inputs w1, b1, w2, b2, x.npy, t.npy)

Both return the updated w1, b1, w2, b2, which must agree within f32
rounding: the loss is the batch's mean squared error, so each replica's
gradient of its half, divided by the whole batch's size, sums to the whole
batch's gradient. Fixed seed; needs numpy only.
"""
import os
import sys

import numpy as np

BATCH, IN, HIDDEN, OUT = 64, 16, 32, 4
LR = 0.1


def t(*dims):
    return "tensor<" + "x".join(str(d) for d in dims) + "xf32>"


def step(name, rows, replicas):
    """The MLIR of one training step over `rows` samples; with replicas > 1
    the gradients are all_reduced (summed) across them."""
    def reduce_sum(value, dims):
        return (f"stablehlo.reduce({value} init: %zero) applies stablehlo.add across dimensions = [0] "
                f": ({t(rows, *dims)}, tensor<f32>) -> {t(*dims)}")

    def all_reduce(out, value, dims):
        return (f"    {out} = \"stablehlo.all_reduce\"({value}) ({{\n"
                f"      ^bb0(%l: tensor<f32>, %r: tensor<f32>):\n"
                f"        %s = stablehlo.add %l, %r : tensor<f32>\n"
                f"        stablehlo.return %s : tensor<f32>\n"
                f"    }}) {{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}} : ({t(*dims)}) -> {t(*dims)}\n")

    grads = [("%gw1", IN, HIDDEN), ("%gb1", HIDDEN), ("%gw2", HIDDEN, OUT), ("%gb2", OUT)]
    s = [f"  func.func public @{name}(%w1: {t(IN, HIDDEN)}, %b1: {t(HIDDEN)}, %w2: {t(HIDDEN, OUT)}, "
         f"%b2: {t(OUT)}, %x: {t(rows, IN)}, %y: {t(rows, OUT)}) -> ({t(IN, HIDDEN)}, {t(HIDDEN)}, "
         f"{t(HIDDEN, OUT)}, {t(OUT)}) {{"]
    s.append(f"    %zero = stablehlo.constant dense<0.0> : tensor<f32>")
    # Forward: h = tanh(x w1 + b1); p = h w2 + b2.
    s.append(f"    %xw = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : ({t(rows, IN)}, {t(IN, HIDDEN)}) -> {t(rows, HIDDEN)}")
    s.append(f"    %b1b = stablehlo.broadcast_in_dim %b1, dims = [1] : ({t(HIDDEN)}) -> {t(rows, HIDDEN)}")
    s.append(f"    %z = stablehlo.add %xw, %b1b : {t(rows, HIDDEN)}")
    s.append(f"    %h = stablehlo.tanh %z : {t(rows, HIDDEN)}")
    s.append(f"    %hw = stablehlo.dot_general %h, %w2, contracting_dims = [1] x [0] : ({t(rows, HIDDEN)}, {t(HIDDEN, OUT)}) -> {t(rows, OUT)}")
    s.append(f"    %b2b = stablehlo.broadcast_in_dim %b2, dims = [1] : ({t(OUT)}) -> {t(rows, OUT)}")
    s.append(f"    %p = stablehlo.add %hw, %b2b : {t(rows, OUT)}")
    # Loss = sum((p - y)^2) / (2 * BATCH): dp = (p - y) / BATCH.
    s.append(f"    %diff = stablehlo.subtract %p, %y : {t(rows, OUT)}")
    s.append(f"    %inv = stablehlo.constant dense<{1.0 / BATCH:.9e}> : {t(rows, OUT)}")
    s.append(f"    %dp = stablehlo.multiply %diff, %inv : {t(rows, OUT)}")
    # Backward.
    s.append(f"    %lgw2 = stablehlo.dot_general %h, %dp, contracting_dims = [0] x [0] : ({t(rows, HIDDEN)}, {t(rows, OUT)}) -> {t(HIDDEN, OUT)}")
    s.append(f"    %lgb2 = {reduce_sum('%dp', [OUT])}")
    s.append(f"    %dh = stablehlo.dot_general %dp, %w2, contracting_dims = [1] x [1] : ({t(rows, OUT)}, {t(HIDDEN, OUT)}) -> {t(rows, HIDDEN)}")
    s.append(f"    %one = stablehlo.constant dense<1.0> : {t(rows, HIDDEN)}")
    s.append(f"    %hh = stablehlo.multiply %h, %h : {t(rows, HIDDEN)}")
    s.append(f"    %dtanh = stablehlo.subtract %one, %hh : {t(rows, HIDDEN)}")
    s.append(f"    %dz = stablehlo.multiply %dh, %dtanh : {t(rows, HIDDEN)}")
    s.append(f"    %lgw1 = stablehlo.dot_general %x, %dz, contracting_dims = [0] x [0] : ({t(rows, IN)}, {t(rows, HIDDEN)}) -> {t(IN, HIDDEN)}")
    s.append(f"    %lgb1 = {reduce_sum('%dz', [HIDDEN])}")
    # The gradients of the whole batch: summed across the replicas (one
    # process: its own are the whole batch's).
    body = "\n".join(s) + "\n"
    names = []
    for g in grads:
        local = "%l" + g[0][1:]
        if replicas == 1:
            names.append(local)
        else:
            body += all_reduce(g[0], local, list(g[1:]))
            names.append(g[0])
    # SGD.
    out = []
    for param, g, grad in zip(("%w1", "%b1", "%w2", "%b2"), grads, names):
        dims = list(g[1:])
        body += f"    %lr_{param[1:]} = stablehlo.constant dense<{LR}> : {t(*dims)}\n"
        body += f"    %step_{param[1:]} = stablehlo.multiply {grad}, %lr_{param[1:]} : {t(*dims)}\n"
        body += f"    %new_{param[1:]} = stablehlo.subtract {param}, %step_{param[1:]} : {t(*dims)}\n"
        out.append((f"%new_{param[1:]}", t(*dims)))
    body += "    return " + ", ".join(o[0] for o in out) + " : " + ", ".join(o[1] for o in out) + "\n  }\n"
    return body


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "train_step.mlir"), "w") as f:
        f.write("// Generated by examples/train_step/gen_train_step.py: a data-parallel training step.\n")
        f.write("module @train_step {\n")
        f.write(step("step", BATCH // 2, 2))
        f.write(step("step_whole", BATCH, 1))
        f.write("}\n")
    rng = np.random.RandomState(0)
    arrays = {
        "w1": rng.normal(0, 0.3, (IN, HIDDEN)), "b1": rng.normal(0, 0.1, (HIDDEN,)),
        "w2": rng.normal(0, 0.3, (HIDDEN, OUT)), "b2": rng.normal(0, 0.1, (OUT,)),
        "x": rng.normal(0, 1.0, (BATCH, IN)), "t": rng.normal(0, 1.0, (BATCH, OUT)),
    }
    for k, v in arrays.items():
        np.save(os.path.join(out_dir, k + ".npy"), v.astype(np.float32))
    # What @step_whole must return, computed in float64.
    x, y = arrays["x"].astype(np.float32).astype(np.float64), arrays["t"].astype(np.float32).astype(np.float64)
    w1, b1, w2, b2 = (arrays[k].astype(np.float32).astype(np.float64) for k in ("w1", "b1", "w2", "b2"))
    h = np.tanh(x @ w1 + b1)
    dp = (h @ w2 + b2 - y) / BATCH
    dz = (dp @ w2.T) * (1 - h * h)
    updated = {"w1": w1 - LR * (x.T @ dz), "b1": b1 - LR * dz.sum(0), "w2": w2 - LR * (h.T @ dp),
               "b2": b2 - LR * dp.sum(0)}
    for k, v in updated.items():
        np.save(os.path.join(out_dir, "numpy_" + k + ".npy"), v.astype(np.float32))
    for p in range(2):
        half = slice(p * BATCH // 2, (p + 1) * BATCH // 2)
        np.save(os.path.join(out_dir, f"x.{p}.npy"), arrays["x"][half].astype(np.float32))
        np.save(os.path.join(out_dir, f"t.{p}.npy"), arrays["t"][half].astype(np.float32))


if __name__ == "__main__":
    main()
