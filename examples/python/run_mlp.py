#!/usr/bin/env python3
"""Kiln from Python: compiles examples/mlp.mlir (written by gen_mlp.py),
loads it on the CPU device, runs @main_b64 on a batch of 64 inputs and
compares the probabilities with the same MLP computed by numpy.

  PYTHONPATH=build python3 examples/python/run_mlp.py
"""
import importlib.util
import os
import sys

import numpy as np

import kiln

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("gen_mlp", os.path.join(HERE, "..", "gen_mlp.py"))
gen_mlp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen_mlp)

module = kiln.load(kiln.compile(gen_mlp.program(), target="cpu"))
print(module["main_b64"])

x = np.array(gen_mlp.test_input(64), dtype=np.float32)
probs = module.main_b64(x)

w1, b1, w2, b2 = (np.array(a, dtype=np.float32) for a in gen_mlp.weights())
h = np.maximum(x @ w1 + b1, 0)
logits = h @ w2 + b2
want = np.exp(logits - logits.max(axis=1, keepdims=True))
want /= want.sum(axis=1, keepdims=True)

err = float(np.abs(probs - want).max())
print("classes of the first 8 rows:", probs.argmax(axis=1)[:8].tolist())
print("largest difference from numpy: %.3g" % err)
if probs.shape != (64, 10) or err > 1e-5:
    sys.exit("the MLP's probabilities differ from numpy's")
print("matches numpy")
