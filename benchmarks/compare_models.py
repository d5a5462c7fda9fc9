#!/usr/bin/python3
"""The model suite (examples/models/) in Kiln, PyTorch eager and ONNX Runtime,
side by side in one run. Run through benchmarks/compare_models.sh, which
installs the peers and builds Kiln.

For each model, batch (1, 64) and thread count: the same weights and the
same inputs in all three (Kiln: the generator's program compiled for the
CPU and timed by vm-bench; torch: benchmarks/model_torch.py under
torch.no_grad(); ONNX Runtime: that torch module exported by
torch.onnx.export, timed by benchmarks/ort_bench.js in onnxruntime-node).
First every runtime's output is checked against numpy's (the generator's
forward); then rounds: Kiln, torch and ORT measured back to back, each the
median of N calls after a warm-up, N chosen so one measurement takes about
0.25 s. A row shows the median times and the median of the per-round
speed ratios (peer time / Kiln time: above 1, Kiln is faster). Prints a
markdown table (docs/performance.md, "Models").
"""
import argparse
import importlib
import json
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples", "models"))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

import openblas_core  # noqa: E402  (before numpy and torch: OpenBLAS's kernels for this CPU)
import numpy as np  # noqa: E402
import torch  # noqa: E402

import gen  # noqa: E402  (examples/models/gen.py: the model list)
import model_torch  # noqa: E402
import peer_threads  # noqa: E402  (torch's and its OpenBLAS's pools)

BATCHES = {1: "main", 64: "main_b64"}
TOL = 1e-4  # scaled error, as tests/models/compare_npy.py


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build-bench")
    ap.add_argument("--work", default="build-peers", help="scratch folder (node_modules, programs, ONNX files)")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--models", default=",".join(gen.MODELS))
    ap.add_argument("--batches", default="1,64")
    ap.add_argument("--seconds", type=float, default=0.25, help="about how long one measurement runs")
    return ap.parse_args()


ARGS = parse_args()


def scaled_error(got, expect):
    got, expect = np.asarray(got, np.float64), np.asarray(expect, np.float64)
    if got.shape != expect.shape:
        return float("inf")
    return float((np.abs(got - expect) / (1 + np.abs(expect))).max())


def let_peers_idle():
    """torch's OpenMP workers spin for a while after their last call; on a
    small machine that steals a core from the next measurement."""
    time.sleep(0.5)


class Case:
    def __init__(self, name, batch):
        self.name, self.batch, self.fn = name, batch, BATCHES[batch]
        self.m = importlib.import_module(name)
        w = dict(self.m.weights())
        self.xs = self.m.inputs(batch)
        self.expect = self.m.forward(w, *self.xs)
        d = os.path.join(ARGS.work, "models")
        os.makedirs(d, exist_ok=True)
        self.kiln = os.path.join(d, name + ".kiln")
        # Compiled on every run (it takes a moment): a module kept from an
        # earlier run would time an older compiler's program.
        mlir = os.path.join(d, name + ".mlir")
        subprocess.run([sys.executable, os.path.join(ROOT, "examples", "models", "gen.py"), name, mlir], check=True)
        subprocess.run([os.path.join(ARGS.build, "kiln-compile"), mlir, "-o", self.kiln, "--target=cpu"], check=True)
        base = os.path.join(d, "%s.b%d" % (name, batch))
        self.npys, self.ort_inputs = [], []
        for i, x in enumerate(self.xs):
            np.save("%s.in%d.npy" % (base, i), x)
            self.npys.append("%s.in%d.npy" % (base, i))
            xo = x.astype(np.int64) if x.dtype.kind == "i" else x  # torch's and ONNX's index type
            xo.tofile("%s.in%d.bin" % (base, i))
            self.ort_inputs.append({"name": "in%d" % i, "type": "int64" if xo.dtype == np.int64 else "float32",
                                    "dims": list(xo.shape), "path": "%s.in%d.bin" % (base, i)})
        self.torch_in = [torch.from_numpy(x.astype(np.int64) if x.dtype.kind == "i" else x) for x in self.xs]
        self.module = model_torch.build(name, self.m, w)
        self.onnx = base + ".onnx"
        with torch.no_grad():
            torch.onnx.export(self.module, tuple(self.torch_in), self.onnx, opset_version=17,
                              input_names=["in%d" % i for i in range(len(self.xs))], output_names=["out"],
                              do_constant_folding=True)
        self.base = base

    def kiln_time(self, threads, iterations, warmup=3):
        let_peers_idle()
        cmd = [os.path.join(ARGS.build, "vm-bench"), self.kiln, "--function=" + self.fn, "--threads=%d" % threads,
               "--iterations=%d" % iterations, "--warmup=%d" % warmup] + ["--input=@" + p for p in self.npys]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        return float(re.search(r"median ([0-9.]+) ms", out).group(1)) * 1e-3

    def kiln_output(self, threads):
        out = self.base + ".kiln_out.npy"
        subprocess.run([os.path.join(ARGS.build, "vm-run"), self.kiln, "--function=" + self.fn,
                        "--threads=%d" % threads, "--output=@" + out] + ["--input=@" + p for p in self.npys], check=True)
        return np.load(out)

    def torch_time(self, threads, iterations, warmup=3):
        peer_threads.set_threads(threads)
        with torch.no_grad():
            for _ in range(warmup):
                self.module(*self.torch_in)
            ts = []
            for _ in range(iterations):
                t0 = time.perf_counter()
                self.module(*self.torch_in)
                ts.append(time.perf_counter() - t0)
        return statistics.median(ts)

    def torch_output(self, threads):
        peer_threads.set_threads(threads)
        with torch.no_grad():
            return self.module(*self.torch_in).numpy()

    def ort(self, threads, iterations, warmup=3):
        let_peers_idle()
        spec = {"model": self.onnx, "threads": threads, "warmup": warmup, "iterations": iterations,
                "output": self.base + ".ort_out.bin", "inputs": self.ort_inputs}
        path = self.base + ".ort.json"
        with open(path, "w") as f:
            json.dump(spec, f)
        env = dict(os.environ, NODE_PATH=os.path.join(os.path.abspath(ARGS.work), "node", "node_modules"))
        out = subprocess.run(["node", os.path.join(ROOT, "benchmarks", "ort_bench.js"), path], check=True,
                             capture_output=True, text=True, env=env).stdout
        res = json.loads(out.strip().splitlines()[-1])
        got = np.fromfile(spec["output"], dtype=np.float32).reshape(self.expect.shape)
        return res["median_ms"] * 1e-3, got


def main():
    threads = [int(t) for t in ARGS.threads.split(",")]
    rows = []
    for name in ARGS.models.split(","):
        for batch in [int(b) for b in ARGS.batches.split(",")]:
            c = Case(name, batch)
            # Same outputs (within f32 tolerance) before timing, at every thread count.
            for t in threads:
                errs = {"kiln": scaled_error(c.kiln_output(t), c.expect),
                        "torch": scaled_error(c.torch_output(t), c.expect),
                        "ort": scaled_error(c.ort(t, 1, 0)[1], c.expect)}
                bad = {k: v for k, v in errs.items() if not v <= TOL}
                if bad:
                    sys.exit("%s batch %d, %d threads: outputs differ from numpy's: %s" % (name, batch, t, bad))
            for t in threads:
                probe = max(c.torch_time(t, 3, 1), 1e-6)
                n = int(min(500, max(5, ARGS.seconds / probe)))
                ks, ts, os_ = [], [], []
                for _ in range(ARGS.rounds):
                    ks.append(c.kiln_time(t, n))
                    ts.append(c.torch_time(t, n))
                    os_.append(c.ort(t, n)[0])
                row = {"model": name, "batch": batch, "threads": t, "iterations": n,
                       "kiln_ms": statistics.median(ks) * 1e3, "torch_ms": statistics.median(ts) * 1e3,
                       "ort_ms": statistics.median(os_) * 1e3,
                       "vs_ort": statistics.median(o / k for o, k in zip(os_, ks)),
                       "vs_torch": statistics.median(p / k for p, k in zip(ts, ks))}
                rows.append(row)
                print("%-16s b%-3d t%d  kiln %9.3f ms  torch %9.3f ms  ort %9.3f ms  vs ort %.2fx  vs torch %.2fx"
                      % (name, batch, t, row["kiln_ms"], row["torch_ms"], row["ort_ms"], row["vs_ort"],
                         row["vs_torch"]), file=sys.stderr, flush=True)
    with open(os.path.join(ARGS.work, "compare_models.json"), "w") as f:
        json.dump(rows, f, indent=1)
    print("torch %s; OpenBLAS %s kernels" % (torch.__version__, openblas_core.architecture()))
    print("| model | batch | threads | Kiln ms | torch ms | ORT ms | Kiln vs ORT | Kiln vs torch |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print("| %s | %d | %d | %.3f | %.3f | %.3f | %.2fx | %.2fx |" % (
            r["model"], r["batch"], r["threads"], r["kiln_ms"], r["torch_ms"], r["ort_ms"], r["vs_ort"], r["vs_torch"]))
    print("\ntorch %s, onnxruntime-node %s; ratios are peer time / Kiln time (median of %d rounds; above 1: Kiln faster)"
          % (torch.__version__, ort_version(), ARGS.rounds))


def ort_version():
    try:
        with open(os.path.join(ARGS.work, "node", "node_modules", "onnxruntime-node", "package.json")) as f:
            return json.load(f)["version"]
    except OSError:
        return "?"


if __name__ == "__main__":
    main()
