#!/usr/bin/env python3
"""Runs Kiln's Vulkan dot_general and MLP beside the lavapipe harness (built
by benchmarks/vulkan_gemm.sh) and prints a markdown table of medians and
ratios. Every row of one table comes from the same run, so the ratios hold
even when the machine is busy."""
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


def harness(work, size, variants):
    args = [f"{work}/peers/build/vkbench", "--suite", "gemm", "--size", str(size), "--dir", f"{work}/peers"]
    for v in variants:
        args += ["--filter", v]
    rows = {}
    for line in run(args).splitlines():
        f = line.split("\t")
        if line.startswith("#") or f[0] == "variant" or len(f) < 11:
            continue
        # A filter is a substring: keep exact names only.
        if f[0] in variants:
            rows[f[0]] = (float(f[4]), float(f[8]), float(f[10]))  # median ms, GFLOP/s, cpu ms
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--variants", nargs="+", required=True)
    ap.add_argument("--sizes", nargs="+", type=int, default=[512, 1024])
    a = ap.parse_args()
    build, work = a.build, a.work

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
        rows = harness(work, n, a.variants)
        best = max(rows.items(), key=lambda kv: kv[1][1])
        print(f"| {n} | {ms:.1f} ms ({gf:.2f} GFLOP/s) | {best[0]}: {best[1][0]:.1f} ms ({best[1][1]:.2f} GFLOP/s) "
              f"| {gf / best[1][1]:.2f} |")
        for name, (hms, hgf, cpu) in sorted(rows.items()):
            detail.append(f"| {n} | {name} | {hms:.1f} ms | {hgf:.2f} | {cpu / hms if hms else 0:.2f} |")
    print("\nHarness variants in this run (cpu/wall near 2: both lavapipe workers ran):\n")
    print("| N | variant | median | GFLOP/s | cpu/wall |")
    print("| ---: | --- | ---: | ---: | ---: |")
    print("\n".join(detail))

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
