#!/usr/bin/python3
"""Kiln beside numpy/OpenBLAS and PyTorch eager, side by side in one run.

Run through benchmarks/compare_peers.sh (which installs the peers and builds
Kiln). Each measurement is the median of several timed repetitions after a
warm-up; Kiln and its peers are measured back to back in rounds (5 per row,
10 for the MLP) with the same thread count (OPENBLAS_NUM_THREADS,
torch.set_num_threads, KILN_THREADS / vm-bench --threads); a row shows the
median times and the median of the per-round ratios. Prints a markdown table
for docs/performance.md.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build-bench")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=5, help="timed repetitions per measurement")
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds of Kiln and its peers per row")
    ap.add_argument("--only", default="matmul,chain,conv,mlp", help="which groups of rows to run (comma-separated)")
    return ap.parse_args()


ARGS = parse_args()
os.environ["OPENBLAS_NUM_THREADS"] = str(ARGS.threads)
os.environ["OMP_NUM_THREADS"] = str(ARGS.threads)
os.environ["KILN_THREADS"] = str(ARGS.threads)

import openblas_core  # noqa: E402  (before numpy and torch: OpenBLAS's kernels for this CPU)
import numpy as np  # noqa: E402  (after the thread variables)
import threadpoolctl  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(ARGS.threads)


def check_openblas():
    info = threadpoolctl.threadpool_info()
    blas = [i for i in info if i.get("user_api") == "blas"]
    if not any(i.get("internal_api") == "openblas" for i in blas):
        sys.exit("numpy does not use OpenBLAS (threadpoolctl: %s); install libopenblas0-pthread" % blas)
    return blas[0].get("version"), blas[0].get("num_threads")


def median_time(fn, reps=ARGS.reps, warmup=2):
    for _ in range(warmup):
        fn()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def let_peers_idle():
    """The peers' thread pools (OpenMP, OpenBLAS) keep spinning for a while
    after their last call; on a 2-core machine that steals a core from the
    next measurement. Wait until they sleep before timing Kiln."""
    time.sleep(1.0)


def kiln_kernel_bench(name):
    """Median wall time (s) of one Google Benchmark case of kiln-kernel-bench."""
    let_peers_idle()
    exe = os.path.join(ARGS.build, "kiln-kernel-bench")
    out = subprocess.run([exe, "--benchmark_filter=^%s$" % re.escape(name), "--benchmark_repetitions=%d" % ARGS.reps,
                          "--benchmark_format=json", "--benchmark_report_aggregates_only=true"],
                         check=True, capture_output=True, text=True).stdout
    for b in json.loads(out)["benchmarks"]:
        if b.get("aggregate_name") == "median":
            unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
            return b["real_time"] * unit
    raise RuntimeError("no median for " + name)


def vm_bench(module, function, inputs, iterations=500):
    let_peers_idle()
    exe = os.path.join(ARGS.build, "vm-bench")
    cmd = [exe, module, "--function=" + function, "--threads=%d" % ARGS.threads, "--iterations=%d" % iterations,
           "--warmup=50"] + ["--input=" + i for i in inputs]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return float(re.search(r"median ([0-9.]+) ms", out).group(1)) * 1e-3


ROWS = []


def row(name, kiln_s, peers, unit, work):
    """One table row. kiln_s and each peer time are lists, one entry per
    round (Kiln and its peers measured back to back within a round); the
    row shows median times and the median of the per-round ratios, so a
    slow phase of the shared machine that hits one round moves neither.
    work: units of `unit` per run (e.g. FLOP for GFLOP/s)."""
    k = statistics.median(kiln_s)
    out = []
    for peer, ts in peers:
        ratio = statistics.median(t / kt for t, kt in zip(ts, kiln_s))
        out.append((peer, statistics.median(ts), ratio))
    ROWS.append((name, k, out, unit, work))
    line = "%-40s kiln %9.3f ms" % (name, k * 1e3)
    for peer, t, ratio in out:
        line += " | %s %9.3f ms (kiln %.2fx)" % (peer, t * 1e3, ratio)
    print(line, file=sys.stderr, flush=True)


def rounds(measure, n=None):
    """Runs measure() (returning a tuple of times) n times; one list per item."""
    results = [measure() for _ in range(n or ARGS.rounds)]
    return [list(x) for x in zip(*results)]


def bench_matmul():
    for n in (1024, 2048):
        a = np.random.default_rng(0).standard_normal((n, n), dtype=np.float32)
        b = np.random.default_rng(1).standard_normal((n, n), dtype=np.float32)
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        kiln, npy, tor = rounds(lambda: (kiln_kernel_bench("BM_CpuDotGeneralF32Threads/%d/real_time" % n),
                                         median_time(lambda: a @ b), median_time(lambda: torch.matmul(ta, tb))))
        row("dot_general f32 %d^3" % n, kiln, [("numpy/OpenBLAS", npy), ("torch", tor)], "GFLOP/s", 2.0 * n ** 3)


def bench_chain():
    n = 1 << 24
    x = np.random.default_rng(2).standard_normal(n, dtype=np.float32)
    y = np.empty_like(x)
    tx = torch.from_numpy(x)
    kiln, tor, copy = rounds(lambda: (kiln_kernel_bench("BM_CpuFusedTanhChainF32/16777216/real_time"),
                                      median_time(lambda: torch.tanh(tx * 0.5 + 1) * tx - 0.25),
                                      median_time(lambda: np.copyto(y, x), reps=15)))
    row("fused tanh(x*0.5+1)*x-0.25, 16M f32", kiln, [("torch eager", tor), ("numpy copyto (bandwidth)", copy)],
        "GB/s", 2.0 * 4 * n)


def bench_conv():
    # kernel_bench.cc's kConvCases: (index, label, torch input shape, torch weight shape, groups).
    cases = [(0, "conv 1x56x56x64 -> 64, 3x3, pad 1 (Kiln NHWC)", (1, 64, 56, 56), (64, 64, 3, 3), 1),
             (1, "conv 1x64x56x56 -> 64, 3x3, pad 1 (Kiln NCHW)", (1, 64, 56, 56), (64, 64, 3, 3), 1),
             (2, "depthwise 1x56x56x144, 3x3, pad 1 (Kiln NHWC)", (1, 144, 56, 56), (144, 1, 3, 3), 144),
             (3, "depthwise 1x144x56x56, 3x3, pad 1 (Kiln NCHW)", (1, 144, 56, 56), (144, 1, 3, 3), 144)]
    for index, label, xs, ws, groups in cases:
        # torch runs its own layout (NCHW) in every row.
        x = torch.from_numpy(np.random.default_rng(3).standard_normal(xs, dtype=np.float32))
        w = torch.from_numpy(np.random.default_rng(4).standard_normal(ws, dtype=np.float32))

        def measure():
            kiln = kiln_kernel_bench("BM_CpuConv56x56Threads/%d/real_time" % index)
            with torch.no_grad():
                tor = median_time(lambda: torch.nn.functional.conv2d(x, w, padding=1, groups=groups),
                                  reps=max(ARGS.reps, 15))
            return kiln, tor
        kiln, tor = rounds(measure)
        row(label, kiln, [("torch", tor)], "GFLOP/s", 2.0 * 56 * 56 * ws[0] * 9 * ws[1])


def bench_mlp():
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    import gen_mlp
    tmp = tempfile.mkdtemp(prefix="kiln-peers-")
    mlir, kiln_file = os.path.join(tmp, "mlp.mlir"), os.path.join(tmp, "mlp.kiln")
    with open(mlir, "w") as f:
        f.write(gen_mlp.program())
    subprocess.run([os.path.join(ARGS.build, "kiln-compile"), mlir, "-o", kiln_file, "--target=cpu"], check=True)
    w1, b1, w2, b2 = (torch.tensor(v, dtype=torch.float32) for v in gen_mlp.weights())

    def forward(x):
        h = torch.relu(x @ w1 + b1)
        return torch.softmax(h @ w2 + b2, dim=1)

    for fn, batch in (("main", 1), ("main_b64", 64)):
        x_np = np.array(gen_mlp.test_input(batch), dtype=np.float32)
        npy = os.path.join(tmp, "x%d.npy" % batch)
        np.save(npy, x_np)
        x = torch.from_numpy(x_np)

        def measure():
            kiln = vm_bench(kiln_file, fn, ["@" + npy], iterations=300)
            with torch.no_grad():
                tor = median_time(lambda: forward(x), reps=300, warmup=30)
            return kiln, tor
        kiln, tor = rounds(measure, 2 * ARGS.rounds)  # microseconds: the noisiest rows
        row("mlp.mlir @%s (batch %d)" % (fn, batch), kiln, [("torch eager", tor)], "samples/s", float(batch))


def main():
    version, threads = check_openblas()
    print("threads: %d; OpenBLAS %s %s kernels (numpy %s, %s threads); torch %s (%d threads); machine: %s" % (
        ARGS.threads, version, openblas_core.architecture(), np.__version__, threads, torch.__version__, torch.get_num_threads(),
        subprocess.run(["sh", "-c", "lscpu | sed -n 's/^Model name: *//p'"], capture_output=True,
                       text=True).stdout.strip()))
    groups = {"matmul": bench_matmul, "chain": bench_chain, "conv": bench_conv, "mlp": bench_mlp}
    for name in ARGS.only.split(","):
        groups[name]()
    print()
    print("| benchmark | Kiln | peer | peer time | Kiln / peer speed |")
    print("| --- | ---: | --- | ---: | ---: |")
    for name, kiln, peers, unit, work in ROWS:
        for i, (peer, s, ratio) in enumerate(peers):
            kiln_cell = "%.3f ms (%.1f %s)" % (kiln * 1e3, work / kiln / (1e9 if unit.startswith("G") else 1), unit)
            peer_cell = "%.3f ms (%.1f %s)" % (s * 1e3, work / s / (1e9 if unit.startswith("G") else 1), unit)
            print("| %s | %s | %s | %s | %.2fx |" % (name if i == 0 else "", kiln_cell if i == 0 else "", peer,
                                                   peer_cell, ratio))


if __name__ == "__main__":
    main()
