#!/usr/bin/python3
"""Kernels per call of a suite model: Kiln's dispatches (vm-dump of the
--target=cpu module) beside the nodes of ONNX Runtime's optimized graph (the
torch module exported as compare_models.py exports it, optimized by
benchmarks/ort_optimize.js), each op type counted. Needs what
benchmarks/compare_models.sh installs (build-peers/node).

  /usr/bin/python3 benchmarks/count_kernels.py [--model transformer] [--batch 1]
      [--build build] [--work build-peers]
"""
import argparse
import collections
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples", "models"))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

import importlib  # noqa: E402
import onnx  # noqa: E402
import torch  # noqa: E402
import model_torch  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--model", default="transformer")
ap.add_argument("--batch", type=int, default=1)
ap.add_argument("--build", default="build")
ap.add_argument("--work", default="build-peers")
args = ap.parse_args()
fn = {1: "main", 64: "main_b64"}[args.batch]

d = os.path.join(args.work, "count")
os.makedirs(d, exist_ok=True)
mlir, kiln = os.path.join(d, args.model + ".mlir"), os.path.join(d, args.model + ".kiln")
subprocess.run([sys.executable, os.path.join(ROOT, "examples", "models", "gen.py"), args.model, mlir], check=True)
subprocess.run([os.path.join(args.build, "kiln-compile"), mlir, "-o", kiln, "--target=cpu"], check=True)
dump = subprocess.run([os.path.join(args.build, "vm-dump"), kiln], check=True, capture_output=True,
                      text=True).stdout
kernels = dict(re.findall(r"^(exe#\d+): kernel (\S+)", dump, re.M))
body = dump.split("\nfunction %s " % fn, 1)[1].split("\nfunction ", 1)[0]
kiln_ops = collections.Counter(kernels[e] for e in re.findall(r"dispatch (exe#\d+),", body))

m = importlib.import_module(args.model)
w = dict(m.weights())
xs = [torch.from_numpy(x) for x in m.inputs(args.batch)]
onnx_path = os.path.join(d, "%s.b%d.onnx" % (args.model, args.batch))
opt_path = os.path.join(d, "%s.b%d.ort.onnx" % (args.model, args.batch))
with torch.no_grad():
    torch.onnx.export(model_torch.build(args.model, m, w), tuple(xs), onnx_path, opset_version=17,
                      input_names=["in%d" % i for i in range(len(xs))], output_names=["out"],
                      do_constant_folding=True)
env = dict(os.environ, NODE_PATH=os.path.join(os.path.abspath(args.work), "node", "node_modules"))
subprocess.run(["node", os.path.join(ROOT, "benchmarks", "ort_optimize.js"), onnx_path, opt_path], check=True, env=env)
exported = collections.Counter(n.op_type for n in onnx.load(onnx_path).graph.node)
ort_ops = collections.Counter(n.op_type for n in onnx.load(opt_path).graph.node)


def show(name, c):
    print("%-28s %3d  %s" % (name, sum(c.values()), ", ".join("%s %d" % kv for kv in sorted(c.items()))))


print("%s batch %d" % (args.model, args.batch))
show("kiln dispatches", kiln_ops)
show("ONNX exported nodes", exported)
show("ORT optimized nodes", ort_ops)
