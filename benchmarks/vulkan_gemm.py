#!/usr/bin/env python3
"""Runs Kiln's Vulkan dot_general, elementwise chain, row sums and MLP beside
the lavapipe harness (built by benchmarks/vulkan_gemm.sh) and prints markdown
tables of medians and ratios. Every row of one table comes from the same run,
so the ratios hold even when the machine is busy."""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return r.stdout


def vm_bench(build, kiln, function, device, inputs, iterations, warmup, threads=2):
    out = run([f"{build}/vm-bench", kiln, f"--function={function}", f"--device={device}",
               f"--iterations={iterations}", f"--warmup={warmup}", f"--threads={threads}"] +
              [f"--input={i}" for i in inputs])
    m = re.search(r"median ([0-9.]+) ms", out)
    if not m:
        sys.exit("cannot read vm-bench's output:\n" + out)
    return float(m.group(1))


def vm_bench_dispatch(build, kiln, inputs, iterations):
    """The mean time of the function's one dispatch (vm-bench --profile:
    timestamps around the dispatch, without the call's input copies)."""
    out = run([f"{build}/vm-bench", kiln, "--device=vulkan", f"--iterations={iterations}", "--warmup=1",
               "--profile"] + [f"--input={i}" for i in inputs])
    m = re.search(r"^ +100\.0% +[0-9.]+ +[0-9]+ +([0-9.]+) ", out, re.M)
    if not m:
        sys.exit("cannot read vm-bench --profile's output:\n" + out)
    return float(m.group(1)) / 1000.0


def harness(work, size, variants, suite="gemm"):
    args = [f"{work}/peers/build/vkbench", "--suite", suite, "--dir", f"{work}/peers"]
    if suite == "gemm":
        args += ["--size", str(size)]
    for v in variants:
        args += ["--filter", v]
    rows = {}
    for line in run(args).splitlines():
        f = line.split("\t")
        if line.startswith("#") or f[0] == "variant" or len(f) < 11:
            continue
        # A filter is a substring: keep exact names only.
        if f[0] in variants:
            rows[f[0]] = (float(f[4]), float(f[8]), float(f[10]))  # median ms, GFLOP/s or GB/s, cpu ms
    return rows


# The harness's elementwise chain and row sums (../shared/peers/vulkan
# shaders/ew.comp and reduce.comp) as StableHLO programs of the same sizes.
CHAIN = """func.func @main(%x: tensor<16777216xf32>) -> tensor<16777216xf32> {
  %h = stablehlo.constant dense<0.5> : tensor<16777216xf32>
  %o = stablehlo.constant dense<1.0> : tensor<16777216xf32>
  %q = stablehlo.constant dense<0.25> : tensor<16777216xf32>
  %0 = stablehlo.multiply %x, %h : tensor<16777216xf32>
  %1 = stablehlo.add %0, %o : tensor<16777216xf32>
  %2 = stablehlo.tanh %1 : tensor<16777216xf32>
  %3 = stablehlo.multiply %2, %x : tensor<16777216xf32>
  %4 = stablehlo.subtract %3, %q : tensor<16777216xf32>
  return %4 : tensor<16777216xf32>
}
"""
ROW_SUMS = """func.func @main(%x: tensor<4096x4096xf32>) -> tensor<4096xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4096x4096xf32>, tensor<f32>) -> tensor<4096xf32>
  return %0 : tensor<4096xf32>
}
"""


def bandwidth(build, work, variants, rounds):
    """Kiln's dispatch beside the harness's best variant of the same work,
    in interleaved rounds; the ratio of GB/s per round, then medians."""
    print("\n## Elementwise chain and row sums on lavapipe (GB/s over the bytes read and written)\n")
    print("| work | Kiln dispatch (vm-bench --profile) | best harness variant | Kiln / best (median of rounds) |")
    print("| --- | ---: | ---: | ---: |")
    for name, text, suite, inp, nbytes in (
            ("tanh(x * 0.5 + 1) * x - 0.25, 16M f32", CHAIN, "ew", "16777216xf32=0.5", 2 * 4 * 16777216),
            ("row sums of 4096 x 4096 f32", ROW_SUMS, "reduce", "4096x4096xf32=0.5", 4 * 4096 * 4097)):
        src = f"{work}/{suite}.mlir"
        with open(src, "w") as f:
            f.write(text)
        kiln = f"{work}/{suite}.kiln"
        run([f"{build}/kiln-compile", src, "--target=vulkan", "-o", kiln])
        ours, best, ratios = [], [], []
        for _ in range(rounds):
            ms = vm_bench_dispatch(build, kiln, [inp], 5)
            rows = harness(work, 0, [v for v in variants if v.startswith(suite[:2])], suite)
            top = max(rows.items(), key=lambda kv: kv[1][1])
            gbs = nbytes / (ms * 1e6)
            ours.append((ms, gbs))
            best.append((top[0], top[1][0], top[1][1]))
            ratios.append(gbs / top[1][1])
        med = lambda xs: sorted(xs)[len(xs) // 2]
        ms, gbs = med(ours)
        top = max(set(b[0] for b in best), key=lambda n: sum(b[0] == n for b in best))
        hgb = med([b[2] for b in best])
        print(f"| {name} | {ms:.1f} ms ({gbs:.2f} GB/s) | {top}: {hgb:.2f} GB/s | {med(ratios):.2f} "
              f"({', '.join(f'{r:.2f}' for r in ratios)}) |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--variants", nargs="+", required=True)
    ap.add_argument("--sizes", nargs="+", type=int, default=[512, 1024])
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    build, work = a.build, a.work
    gemm_variants = [v for v in a.variants if v.startswith("gemm")]

    print(f"# {run(['date', '-u']).strip()}; load average {os.getloadavg()[0]:.1f}")
    print("\n## GEMM f32 on lavapipe (GFLOP/s = 2 N^3 / median)\n")
    print("| N | Kiln dot_general (vm-bench --device=vulkan) | best harness variant | Kiln / best |")
    print("| ---: | ---: | ---: | ---: |")
    detail = []
    for n in a.sizes:
        src = f"{work}/dot_{n}.mlir"
        with open(src, "w") as f:
            f.write(f"func.func @main(%a: tensor<{n}x{n}xf32>, %b: tensor<{n}x{n}xf32>) -> tensor<{n}x{n}xf32> {{\n"
                    f"  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : "
                    f"(tensor<{n}x{n}xf32>, tensor<{n}x{n}xf32>) -> tensor<{n}x{n}xf32>\n"
                    f"  return %0 : tensor<{n}x{n}xf32>\n}}\n")
        kiln = f"{work}/dot_{n}.kiln"
        run([f"{build}/kiln-compile", src, "-o", kiln])
        ms = vm_bench(build, kiln, "main", "vulkan", [f"{n}x{n}xf32=0.5", f"{n}x{n}xf32=0.25"], 5, 1)
        gf = 2 * n**3 / (ms * 1e6)
        rows = harness(work, n, gemm_variants)
        best = max(rows.items(), key=lambda kv: kv[1][1])
        print(f"| {n} | {ms:.1f} ms ({gf:.2f} GFLOP/s) | {best[0]}: {best[1][0]:.1f} ms ({best[1][1]:.2f} GFLOP/s) "
              f"| {gf / best[1][1]:.2f} |")
        for name, (hms, hgf, cpu) in sorted(rows.items()):
            detail.append(f"| {n} | {name} | {hms:.1f} ms | {hgf:.2f} | {cpu / hms if hms else 0:.2f} |")
    print("\nHarness variants in this run (cpu/wall near 2: both lavapipe workers ran):\n")
    print("| N | variant | median | GFLOP/s | cpu/wall |")
    print("| ---: | --- | ---: | ---: | ---: |")
    print("\n".join(detail))

    bandwidth(build, work, a.variants, a.rounds)

    mlir = f"{work}/mlp.mlir"
    run([sys.executable, f"{ROOT}/examples/gen_mlp.py", mlir])
    mlp = f"{work}/mlp.kiln"
    run([f"{build}/kiln-compile", mlir, "-o", mlp])
    # The CPU device at 1 and 2 threads: on a busy machine the pool's spinning
    # threads make 2 slower than 1, and the faster one is the fair peer.
    print("\n## examples/mlp.mlir (vm-bench medians)\n")
    print("| function | Vulkan | CPU --threads=1 | CPU --threads=2 | Vulkan / best CPU |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for fn, batch, iters in (("main", 1, 300), ("main_b64", 64, 300)):
        inp = [f"{batch}x784xf32=0.5"]
        v = vm_bench(build, mlp, fn, "vulkan", inp, iters, 20)
        c1 = vm_bench(build, mlp, fn, "cpu", inp, iters, 20, threads=1)
        c2 = vm_bench(build, mlp, fn, "cpu", inp, iters, 20, threads=2)
        print(f"| @{fn} (batch {batch}) | {v:.3f} ms | {c1:.4f} ms | {c2:.4f} ms | {v / min(c1, c2):.1f}x |")

if __name__ == "__main__":
    main()
