"""An int8 dense layer and its f32 twin for vm-bench (docs/performance.md,
"int8 GEMM"): x[256, 1024] i8 (zero point -7) times constant per-tensor i8
weights [1024, 1024] into the i32 accumulation type, requantized to i8; the
f32 twin multiplies by the same weights dequantized. Writes OUT/dense_q.mlir
and OUT/dense_f.mlir. Usage: /usr/bin/python3 benchmarks/int8_dense.py OUT
"""
import sys

import openblas_core  # noqa: F401  (before numpy: OpenBLAS's kernels for this CPU)

import numpy as np

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
rng = np.random.default_rng(0)
M, K, N = 256, 1024, 1024
w = rng.integers(-128, 128, size=(K, N)).astype(np.int8)
def dense(a):
    return "dense<" + np.array2string(a, separator=",", threshold=10**9, max_line_width=10**9).replace("\n","") + ">"
acc_scale = float(np.float32(0.05) * np.float32(0.01))
q = f"""func.func @main(%x: tensor<{M}x{K}xi8>) -> tensor<{M}x{N}xi8> {{
  %xq = stablehlo.bitcast_convert %x : (tensor<{M}x{K}xi8>) -> tensor<{M}x{K}x!quant.uniform<i8:f32, 0.05:-7>>
  %w0 = stablehlo.constant {dense(w)} : tensor<{K}x{N}xi8>
  %w = stablehlo.bitcast_convert %w0 : (tensor<{K}x{N}xi8>) -> tensor<{K}x{N}x!quant.uniform<i8:f32, 0.01:0>>
  %a = stablehlo.dot_general %xq, %w, contracting_dims = [1] x [0] : (tensor<{M}x{K}x!quant.uniform<i8:f32, 0.05:-7>>, tensor<{K}x{N}x!quant.uniform<i8:f32, 0.01:0>>) -> tensor<{M}x{N}x!quant.uniform<i32:f32, {acc_scale!r}:0>>
  %y = stablehlo.uniform_quantize %a : (tensor<{M}x{N}x!quant.uniform<i32:f32, {acc_scale!r}:0>>) -> tensor<{M}x{N}x!quant.uniform<i8:f32, 2.0:3>>
  %r = stablehlo.bitcast_convert %y : (tensor<{M}x{N}x!quant.uniform<i8:f32, 2.0:3>>) -> tensor<{M}x{N}xi8>
  return %r : tensor<{M}x{N}xi8>
}}
"""
open(OUT + "/dense_q.mlir", "w").write(q)
wf = (w.astype(np.float32) * 0.01)
f = f"""func.func @main(%x: tensor<{M}x{K}xf32>) -> tensor<{M}x{N}xf32> {{
  %w = stablehlo.constant {dense(wf)} : tensor<{K}x{N}xf32>
  %a = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<{M}x{K}xf32>, tensor<{K}x{N}xf32>) -> tensor<{M}x{N}xf32>
  return %a : tensor<{M}x{N}xf32>
}}
"""
open(OUT + "/dense_f.mlir", "w").write(f)
