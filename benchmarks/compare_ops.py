#!/usr/bin/python3
"""Single ops as exported models use them, in Kiln beside PyTorch eager, side
by side in one run: NCHW pooling and strided convolutions (ResNet's stem and
downsampling, MobileNet's strided depthwise layers), layout transposes,
exact GELU (erf), masks built from index compares, argmax, row scatters,
converts between integers and floats.

Each case is one function of one module (compiled with kiln-compile
--target=cpu) timed by vm-bench (median call, inputs from splat values),
and the torch expression computing the same under torch.no_grad() (median
of repeated calls); rounds alternate the two. Prints a markdown table of
median times and the median of the per-round ratios (torch / Kiln: above 1,
Kiln is faster). Run with Debian's python3 (numpy, torch):

  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 \\
      benchmarks/compare_ops.py --build build --threads 1
"""
import argparse
import os
import re
import statistics
import subprocess
import tempfile
import time

import openblas_core  # noqa: F401  (before torch: OpenBLAS's kernels for this CPU)

import torch

F = torch.nn.functional

ap = argparse.ArgumentParser()
ap.add_argument("--build", default="build")
ap.add_argument("--threads", type=int, default=1)
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--only", default="", help="comma-separated case names (default: all)")
ARGS = ap.parse_args()

CONV = ("stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], "
        "window = {{stride = [{s}, {s}], pad = [[{p}, {p}], [{p}, {p}]]}} "
        "{{batch_group_count = 1 : i64, feature_group_count = {g} : i64}}")


def conv(name, x, w, out, s, p, g=1):
    body = CONV.format(s=s, p=p, g=g)
    return ("func.func @%s(%%x: tensor<%sxf32>, %%w: tensor<%sxf32>) -> tensor<%sxf32> {\n"
            "  %%0 = %s : (tensor<%sxf32>, tensor<%sxf32>) -> tensor<%sxf32>\n"
            "  return %%0 : tensor<%sxf32>\n}\n" % (name, x, w, out, body, x, w, out, out))


# name: (MLIR function, vm-bench inputs, torch inputs and expression)
CASES = {
    "conv 3x3/2 64->128 NCHW 56x56": (
        conv("conv3s2", "1x64x56x56", "128x64x3x3", "1x128x28x28", 2, 1),
        ["1x64x56x56xf32=0.5", "128x64x3x3xf32=0.25"],
        lambda: ((torch.rand(1, 64, 56, 56), torch.rand(128, 64, 3, 3)), lambda x, w: F.conv2d(x, w, stride=2, padding=1))),
    "conv 7x7/2 3->64 NCHW 224x224": (
        conv("conv7s2", "1x3x224x224", "64x3x7x7", "1x64x112x112", 2, 3),
        ["1x3x224x224xf32=0.5", "64x3x7x7xf32=0.25"],
        lambda: ((torch.rand(1, 3, 224, 224), torch.rand(64, 3, 7, 7)), lambda x, w: F.conv2d(x, w, stride=2, padding=3))),
    "depthwise 3x3/2 NCHW 96x112x112": (
        conv("dws2", "1x96x112x112", "96x1x3x3", "1x96x56x56", 2, 1, 96),
        ["1x96x112x112xf32=0.5", "96x1x3x3xf32=0.25"],
        lambda: ((torch.rand(1, 96, 112, 112), torch.rand(96, 1, 3, 3)),
                 lambda x, w: F.conv2d(x, w, stride=2, padding=1, groups=96))),
    "max pool 3x3/2 NCHW 64x112x112": (
        "func.func @maxpool(%x: tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32> {\n"
        "  %c = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
        "  %0 = \"stablehlo.reduce_window\"(%x, %c) ({\n"
        "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
        "    %m = stablehlo.maximum %a, %b : tensor<f32>\n"
        "    stablehlo.return %m : tensor<f32>\n"
        "  }) {window_dimensions = array<i64: 1, 1, 3, 3>, window_strides = array<i64: 1, 1, 2, 2>,\n"
        "      padding = dense<[[0, 0], [0, 0], [1, 1], [1, 1]]> : tensor<4x2xi64>}\n"
        "      : (tensor<1x64x112x112xf32>, tensor<f32>) -> tensor<1x64x56x56xf32>\n"
        "  return %0 : tensor<1x64x56x56xf32>\n}\n",
        ["1x64x112x112xf32=0.5"],
        lambda: ((torch.rand(1, 64, 112, 112),), lambda x: F.max_pool2d(x, 3, 2, 1))),
    "transpose NCHW->NHWC 8x64x56x56": (
        "func.func @nhwc(%x: tensor<8x64x56x56xf32>) -> tensor<8x56x56x64xf32> {\n"
        "  %0 = stablehlo.transpose %x, dims = [0, 2, 3, 1] : (tensor<8x64x56x56xf32>) -> tensor<8x56x56x64xf32>\n"
        "  return %0 : tensor<8x56x56x64xf32>\n}\n",
        ["8x64x56x56xf32=0.5"],
        lambda: ((torch.rand(8, 64, 56, 56),), lambda x: x.permute(0, 2, 3, 1).contiguous())),
    "gelu (erf) 64x3072": (
        "func.func @gelu(%x: tensor<64x3072xf32>) -> tensor<64x3072xf32> {\n"
        "  %c = stablehlo.constant dense<0.7071067811865476> : tensor<64x3072xf32>\n"
        "  %h = stablehlo.constant dense<0.5> : tensor<64x3072xf32>\n"
        "  %o = stablehlo.constant dense<1.0> : tensor<64x3072xf32>\n"
        "  %0 = stablehlo.multiply %x, %c : tensor<64x3072xf32>\n"
        "  %1 = chlo.erf %0 : tensor<64x3072xf32> -> tensor<64x3072xf32>\n"
        "  %2 = stablehlo.add %1, %o : tensor<64x3072xf32>\n"
        "  %3 = stablehlo.multiply %x, %h : tensor<64x3072xf32>\n"
        "  %4 = stablehlo.multiply %3, %2 : tensor<64x3072xf32>\n"
        "  return %4 : tensor<64x3072xf32>\n}\n",
        ["64x3072xf32=0.5"],
        lambda: ((torch.rand(64, 3072),), lambda x: F.gelu(x))),
    "causal mask 1024x1024 (iota, compare, select)": (
        "func.func @mask(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {\n"
        "  %r = stablehlo.iota dim = 0 : tensor<1024x1024xi32>\n"
        "  %c = stablehlo.iota dim = 1 : tensor<1024x1024xi32>\n"
        "  %m = stablehlo.compare GE, %r, %c, SIGNED : (tensor<1024x1024xi32>, tensor<1024x1024xi32>) -> tensor<1024x1024xi1>\n"
        "  %n = stablehlo.constant dense<-1.0e9> : tensor<1024x1024xf32>\n"
        "  %0 = stablehlo.select %m, %x, %n : tensor<1024x1024xi1>, tensor<1024x1024xf32>\n"
        "  return %0 : tensor<1024x1024xf32>\n}\n",
        ["1024x1024xf32=0.5"],
        lambda: ((torch.rand(1024, 1024),),
                 lambda x: torch.where(torch.ones(1024, 1024, dtype=torch.bool).tril(), x, torch.tensor(-1e9)))),
    "causal mask int64 1024x1024 (PyTorch's form)": (
        "func.func @mask64(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {\n"
        "  %r = stablehlo.iota dim = 0 : tensor<1024x1024xi64>\n"
        "  %c = stablehlo.iota dim = 1 : tensor<1024x1024xi64>\n"
        "  %m = stablehlo.compare GE, %r, %c, SIGNED : (tensor<1024x1024xi64>, tensor<1024x1024xi64>) -> tensor<1024x1024xi1>\n"
        "  %n = stablehlo.constant dense<-1.0e9> : tensor<1024x1024xf32>\n"
        "  %0 = stablehlo.select %m, %x, %n : tensor<1024x1024xi1>, tensor<1024x1024xf32>\n"
        "  return %0 : tensor<1024x1024xf32>\n}\n",
        ["1024x1024xf32=0.5"],
        lambda: ((torch.rand(1024, 1024),),
                 lambda x: torch.where(torch.arange(1024).view(-1, 1) >= torch.arange(1024).view(1, -1), x,
                                       torch.tensor(-1e9)))),
    "argmax 256x1000 (variadic reduce)": (
        "func.func @argmax(%x: tensor<256x1000xf32>) -> tensor<256xi32> {\n"
        "  %i = stablehlo.iota dim = 1 : tensor<256x1000xi32>\n"
        "  %c0 = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
        "  %c1 = stablehlo.constant dense<0> : tensor<i32>\n"
        "  %0:2 = stablehlo.reduce(%x init: %c0), (%i init: %c1) across dimensions = [1]\n"
        "      : (tensor<256x1000xf32>, tensor<256x1000xi32>, tensor<f32>, tensor<i32>) -> (tensor<256xf32>, tensor<256xi32>)\n"
        "   reducer(%a: tensor<f32>, %c: tensor<f32>) (%b: tensor<i32>, %d: tensor<i32>) {\n"
        "    %gt = stablehlo.compare GT, %a, %c, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        "    %eq = stablehlo.compare EQ, %a, %c, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        "    %lt = stablehlo.compare LT, %b, %d, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
        "    %t = stablehlo.and %eq, %lt : tensor<i1>\n"
        "    %p = stablehlo.or %gt, %t : tensor<i1>\n"
        "    %v = stablehlo.select %p, %a, %c : tensor<i1>, tensor<f32>\n"
        "    %k = stablehlo.select %p, %b, %d : tensor<i1>, tensor<i32>\n"
        "    stablehlo.return %v, %k : tensor<f32>, tensor<i32>\n"
        "  }\n"
        "  return %0#1 : tensor<256xi32>\n}\n",
        ["256x1000xf32=0.5"],
        lambda: ((torch.rand(256, 1000),), lambda x: torch.argmax(x, dim=1))),
    "scatter-add 256 rows of 64 into 1000x64": (
        "func.func @scatter(%x: tensor<1000x64xf32>, %i: tensor<256x1xi32>, %u: tensor<256x64xf32>) -> tensor<1000x64xf32> {\n"
        "  %0 = \"stablehlo.scatter\"(%x, %i, %u) ({\n"
        "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
        "    %s = stablehlo.add %a, %b : tensor<f32>\n"
        "    stablehlo.return %s : tensor<f32>\n"
        "  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0],\n"
        "      scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false}\n"
        "      : (tensor<1000x64xf32>, tensor<256x1xi32>, tensor<256x64xf32>) -> tensor<1000x64xf32>\n"
        "  return %0 : tensor<1000x64xf32>\n}\n",
        ["1000x64xf32=0.5", "256x1xi32=3", "256x64xf32=1"],
        lambda: ((torch.rand(1000, 64), torch.full((256,), 3, dtype=torch.long), torch.rand(256, 64)),
                 lambda x, i, u: x.index_add(0, i, u))),
    "argsort 64x1000 (JAX's total-order comparator)": (
        "func.func @argsort(%x: tensor<64x1000xf32>) -> tensor<64x1000xi32> {\n"
        "  %i = stablehlo.iota dim = 1 : tensor<64x1000xi32>\n"
        "  %0:2 = \"stablehlo.sort\"(%x, %i) ({\n"
        "  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):\n"
        "    %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
        "    %n = stablehlo.constant dense<0x7FC00000> : tensor<f32>\n"
        "    %m = stablehlo.constant dense<2147483647> : tensor<ui32>\n"
        "    %zi = stablehlo.constant dense<0> : tensor<i32>\n"
        "    %e1 = stablehlo.compare EQ, %a, %z, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        "    %a1 = stablehlo.select %e1, %z, %a : tensor<i1>, tensor<f32>\n"
        "    %n1 = stablehlo.compare NE, %a1, %a1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        "    %a2 = stablehlo.select %n1, %n, %a1 : tensor<i1>, tensor<f32>\n"
        "    %s1 = stablehlo.bitcast_convert %a2 : (tensor<f32>) -> tensor<i32>\n"
        "    %u1 = stablehlo.bitcast_convert %a2 : (tensor<f32>) -> tensor<ui32>\n"
        "    %f1 = stablehlo.subtract %m, %u1 : tensor<ui32>\n"
        "    %g1 = stablehlo.bitcast_convert %f1 : (tensor<ui32>) -> tensor<i32>\n"
        "    %l1 = stablehlo.compare LT, %s1, %zi, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
        "    %k1 = stablehlo.select %l1, %g1, %s1 : tensor<i1>, tensor<i32>\n"
        "    %e2 = stablehlo.compare EQ, %b, %z, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        "    %b1 = stablehlo.select %e2, %z, %b : tensor<i1>, tensor<f32>\n"
        "    %n2 = stablehlo.compare NE, %b1, %b1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        "    %b2 = stablehlo.select %n2, %n, %b1 : tensor<i1>, tensor<f32>\n"
        "    %s2 = stablehlo.bitcast_convert %b2 : (tensor<f32>) -> tensor<i32>\n"
        "    %u2 = stablehlo.bitcast_convert %b2 : (tensor<f32>) -> tensor<ui32>\n"
        "    %f2 = stablehlo.subtract %m, %u2 : tensor<ui32>\n"
        "    %g2 = stablehlo.bitcast_convert %f2 : (tensor<ui32>) -> tensor<i32>\n"
        "    %l2 = stablehlo.compare LT, %s2, %zi, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
        "    %k2 = stablehlo.select %l2, %g2, %s2 : tensor<i1>, tensor<i32>\n"
        "    %r = stablehlo.compare LT, %k1, %k2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
        "    stablehlo.return %r : tensor<i1>\n"
        "  }) {dimension = 1 : i64, is_stable = true} : (tensor<64x1000xf32>, tensor<64x1000xi32>) -> (tensor<64x1000xf32>, tensor<64x1000xi32>)\n"
        "  return %0#1 : tensor<64x1000xi32>\n"
        "}\n"
        ,
        ["rand:64x1000"],
        lambda: ((torch.rand(64, 1000),), lambda x: torch.argsort(x, dim=1, stable=True))),
    "layer norm 512x1024": (
        "func.func @lnorm(%x: tensor<512x1024xf32>, %g: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<512x1024xf32> {\n"
        "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
        "  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<512x1024xf32>, tensor<f32>) -> tensor<512xf32>\n"
        "  %n = stablehlo.constant dense<9.765625e-04> : tensor<512xf32>\n"
        "  %m = stablehlo.multiply %s, %n : tensor<512xf32>\n"
        "  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<512xf32>) -> tensor<512x1024xf32>\n"
        "  %d = stablehlo.subtract %x, %mb : tensor<512x1024xf32>\n"
        "  %d2 = stablehlo.multiply %d, %d : tensor<512x1024xf32>\n"
        "  %v = stablehlo.reduce(%d2 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<512x1024xf32>, tensor<f32>) -> tensor<512xf32>\n"
        "  %vm = stablehlo.multiply %v, %n : tensor<512xf32>\n"
        "  %e = stablehlo.constant dense<1.0e-05> : tensor<512xf32>\n"
        "  %ve = stablehlo.add %vm, %e : tensor<512xf32>\n"
        "  %r = stablehlo.rsqrt %ve : tensor<512xf32>\n"
        "  %rb = stablehlo.broadcast_in_dim %r, dims = [0] : (tensor<512xf32>) -> tensor<512x1024xf32>\n"
        "  %y = stablehlo.multiply %d, %rb : tensor<512x1024xf32>\n"
        "  %gb = stablehlo.broadcast_in_dim %g, dims = [1] : (tensor<1024xf32>) -> tensor<512x1024xf32>\n"
        "  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<1024xf32>) -> tensor<512x1024xf32>\n"
        "  %yg = stablehlo.multiply %y, %gb : tensor<512x1024xf32>\n"
        "  %o = stablehlo.add %yg, %bb : tensor<512x1024xf32>\n"
        "  return %o : tensor<512x1024xf32>\n}\n",
        ["rand:512x1024", "1024xf32=1.5", "1024xf32=0.25"],
        lambda: ((torch.rand(512, 1024), torch.full((1024,), 1.5), torch.full((1024,), 0.25)),
                 lambda x, g, b: F.layer_norm(x, (1024,), g, b))),
    "column sum 4096x1024 (reduce dim 0)": (
        "func.func @colsum(%x: tensor<4096x1024xf32>) -> tensor<1024xf32> {\n"
        "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
        "  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4096x1024xf32>, tensor<f32>) -> tensor<1024xf32>\n"
        "  return %s : tensor<1024xf32>\n}\n",
        ["4096x1024xf32=0.5"],
        lambda: ((torch.rand(4096, 1024),), lambda x: x.sum(dim=0))),
    "embedding gather 4096 rows of 30000x256": (
        "func.func @embed(%t: tensor<30000x256xf32>, %i: tensor<4096xi32>) -> tensor<4096x256xf32> {\n"
        "  %0 = \"stablehlo.gather\"(%t, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 256>} : (tensor<30000x256xf32>, tensor<4096xi32>) -> tensor<4096x256xf32>\n"
        "  return %0 : tensor<4096x256xf32>\n}\n",
        ["30000x256xf32=0.5", "4096xi32=12345"],
        lambda: ((torch.rand(30000, 256), torch.full((4096,), 12345, dtype=torch.int64)),
                 lambda t, i: F.embedding(i, t))),
    "concatenate 3 x 64x256x256 on dim 1": (
        "func.func @concat(%a: tensor<64x256x256xf32>, %b: tensor<64x256x256xf32>, %c: tensor<64x256x256xf32>) -> tensor<64x768x256xf32> {\n"
        "  %0 = stablehlo.concatenate %a, %b, %c, dim = 1 : (tensor<64x256x256xf32>, tensor<64x256x256xf32>, tensor<64x256x256xf32>) -> tensor<64x768x256xf32>\n"
        "  return %0 : tensor<64x768x256xf32>\n}\n",
        ["64x256x256xf32=1", "64x256x256xf32=2", "64x256x256xf32=3"],
        lambda: ((torch.rand(64, 256, 256), torch.rand(64, 256, 256), torch.rand(64, 256, 256)),
                 lambda a, b, c: torch.cat((a, b, c), dim=1))),
    "cumsum 256x4096 (reduce_window)": (
        "func.func @cumsum(%x: tensor<256x4096xf32>) -> tensor<256x4096xf32> {\n"
        "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
        "  %0 = \"stablehlo.reduce_window\"(%x, %z) ({\n"
        "    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
        "      %s = stablehlo.add %a, %b : tensor<f32>\n"
        "      stablehlo.return %s : tensor<f32>\n"
        "    }) {window_dimensions = array<i64: 1, 4096>, padding = dense<[[0, 0], [4095, 0]]> : tensor<2x2xi64>} : (tensor<256x4096xf32>, tensor<f32>) -> tensor<256x4096xf32>\n"
        "  return %0 : tensor<256x4096xf32>\n}\n",
        ["256x4096xf32=0.5"],
        lambda: ((torch.rand(256, 4096),), lambda x: torch.cumsum(x, dim=1))),
    "convert f32->i32 1024x1024": (
        "func.func @cvt(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xi32> {\n"
        "  %0 = stablehlo.convert %x : (tensor<1024x1024xf32>) -> tensor<1024x1024xi32>\n"
        "  return %0 : tensor<1024x1024xi32>\n}\n",
        ["1024x1024xf32=3.5"],
        lambda: ((torch.rand(1024, 1024) * 100,), lambda x: x.to(torch.int32))),
}


def median_time(fn, seconds=0.25):
    fn()
    t0 = time.perf_counter()
    fn()
    reps = max(5, min(2000, int(seconds / max(time.perf_counter() - t0, 1e-6))))
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def main():
    torch.set_num_threads(ARGS.threads)
    names = [n for n in CASES if not ARGS.only or n.split(" ")[0] in ARGS.only.split(",") or n in ARGS.only.split(",")]
    tmp = tempfile.mkdtemp(prefix="kiln-ops-")
    mlir, module = os.path.join(tmp, "ops.mlir"), os.path.join(tmp, "ops.kiln")
    with open(mlir, "w") as f:
        f.write("\n".join(CASES[n][0] for n in names))
    subprocess.run([os.path.join(ARGS.build, "kiln-compile"), mlir, "-o", module, "--target=cpu"], check=True)
    print("threads: %d; torch %s; OpenBLAS %s kernels" % (ARGS.threads, torch.__version__,
                                                            openblas_core.architecture()))
    print("| op | Kiln ms | torch ms | torch / Kiln |")
    print("| --- | ---: | ---: | ---: |")
    def materialize(spec):
        # "rand:AxB": uniform f32 in [0, 1) through a .npy file (a splat would
        # make a sort all ties).
        if not spec.startswith("rand:"):
            return spec
        import numpy as np
        dims = [int(d) for d in spec[5:].split("x")]
        path = os.path.join(tmp, spec[5:] + ".npy")
        np.save(path, np.random.RandomState(0).rand(*dims).astype(np.float32))
        return "@" + path

    for name in names:
        text, inputs, make = CASES[name]
        inputs = [materialize(i) for i in inputs]
        fn = re.search(r"func\.func @(\w+)", text).group(1)
        args, expr = make()
        kiln, peer, ratios = [], [], []
        for _ in range(ARGS.rounds):
            time.sleep(0.5)  # let torch's pool go idle before timing Kiln
            out = subprocess.run([os.path.join(ARGS.build, "vm-bench"), module, "--function=" + fn,
                                  "--threads=%d" % ARGS.threads, "--iterations=50", "--warmup=5"] +
                                 ["--input=" + i for i in inputs], check=True, capture_output=True, text=True).stdout
            k = float(re.search(r"median ([0-9.]+) ms", out).group(1)) * 1e-3
            with torch.no_grad():
                t = median_time(lambda: expr(*args))
            kiln.append(k)
            peer.append(t)
            ratios.append(t / k)
        print("| %s | %.3f | %.3f | %.2fx |" % (name, statistics.median(kiln) * 1e3, statistics.median(peer) * 1e3,
                                                statistics.median(ratios)), flush=True)


if __name__ == "__main__":
    main()
