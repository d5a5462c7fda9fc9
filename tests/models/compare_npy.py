#!/usr/bin/env python3
"""compare_npy.py GOT.npy EXPECT.npy [TOL]: passes (exit 0) when every
element satisfies |got - expect| <= TOL * (1 + |expect|) (default 1e-4, f32
rounding through a few hundred sums); prints the shapes and the worst error,
so a failing run shows by how much."""
import sys

import numpy as np

got, expect = np.load(sys.argv[1]), np.load(sys.argv[2])
tol = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-4
if got.shape != expect.shape or got.dtype != expect.dtype:
    sys.exit("FAIL: got %s %s, expected %s %s" % (got.shape, got.dtype, expect.shape, expect.dtype))
err = np.abs(got.astype(np.float64) - expect) / (1.0 + np.abs(expect.astype(np.float64)))
worst = float(err.max()) if err.size else 0.0
if not np.all(np.isfinite(got)) or worst > tol:
    sys.exit("FAIL: %s elements, worst scaled error %.3g > %g (finite: %s)" % (got.size, worst, tol, np.all(np.isfinite(got))))
print("PASS: %s elements %s, worst scaled error %.3g <= %g" % (got.size, got.shape, worst, tol))
