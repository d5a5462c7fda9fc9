#!/usr/bin/env python3
"""Checks vm-run --compare-with=reference (ctest cli.compare_with_reference)
on tests/data/compare_ops.mlir with random inputs: without a broken kernel
every dispatch matches and vm-run exits 0; with one CPU kernel broken
through the test hook KILN_TEST_BREAK_KERNEL, it exits 1 naming that
dispatch's op and source line, and writes a repro whose program compiles and
reproduces the difference (its command passes on the healthy kernel and
fails on the broken one); a run that times out after a dispatch differed still
reports it.
With "vulkan" after the arguments it checks --compare-with=cpu instead: the
Vulkan device's dispatches against the CPU kernels, the hook breaking the CPU
side, whose repro then fails on Vulkan and passes on the broken CPU kernel.
  check_compare.py VM_RUN KILN_COMPILE SOURCE.mlir WORK_DIR [vulkan]"""
import os
import re
import shutil
import subprocess
import sys

import numpy as np

vm_run, compile_tool, source, work = sys.argv[1:5]
vulkan = sys.argv[5:6] == ["vulkan"]
os.makedirs(work, exist_ok=True)
env = dict(os.environ)
env.pop("KILN_TEST_BREAK_KERNEL", None)
# The repro's README names the tools bare.
env["PATH"] = os.pathsep.join([os.path.dirname(os.path.abspath(vm_run)), os.path.dirname(os.path.abspath(compile_tool)),
                               env.get("PATH", "")])
module = os.path.join(work, "compare_ops_vulkan.kiln" if vulkan else "compare_ops.kiln")
subprocess.run([compile_tool, source, "-o", module] + ([] if vulkan else ["--target=cpu"]), check=True, env=env)

rng = np.random.default_rng(5)
inputs = {
    "main": [rng.standard_normal((5, 7), dtype=np.float32), rng.standard_normal((7, 3), dtype=np.float32),
             rng.standard_normal(3, dtype=np.float32)],
    "affine": [rng.standard_normal((3, 9), dtype=np.float32), rng.standard_normal((9, 4), dtype=np.float32),
               rng.standard_normal(4, dtype=np.float32)],
    "ints": [rng.integers(-50, 50, 11, dtype=np.int32), rng.integers(-50, 50, 11, dtype=np.int32)],
    "softmax": [rng.standard_normal((6, 13), dtype=np.float32)],
}
args = {}
for fn, arrays in inputs.items():
    args[fn] = []
    for i, a in enumerate(arrays):
        path = os.path.join(work, f"{fn}_in{i}.npy")
        np.save(path, a)
        args[fn].append("--input=@" + path)


def run(fn, broken=None, extra=(), mode="reference", device="cpu"):
    e = dict(env)
    if broken:
        e["KILN_TEST_BREAK_KERNEL"] = broken
    r = subprocess.run([vm_run, module, "--function=" + fn, "--device=" + device, "--compare-with=" + mode,
                        *args[fn], *extra], capture_output=True, text=True, env=e)
    assert "Vulkan validation:" not in r.stderr, r.stderr  # KILN_VULKAN_VALIDATION=1 (ctest) reports there
    return r


dispatches = {"main": 4, "affine": 1, "ints": 1, "softmax": 1}
if vulkan:
    for fn, n in dispatches.items():
        r = run(fn, mode="cpu", device="vulkan")
        assert r.returncode == 0, (fn, r.stdout, r.stderr)
        assert f"compare-with=cpu: {n} of {n} dispatches compared, all within tolerance" in r.stderr, r.stderr
    for fn, kernel, k, where in [("main", "kiln.elementwise", 2, "9:8"), ("affine", "stablehlo.dot_general", 1, "22:8"),
                                 ("softmax", "kiln.row_block", 1, "43:8")]:
        repro = os.path.join(work, f"vulkan_repro_{fn}_{k}")
        shutil.rmtree(repro, ignore_errors=True)
        r = run(fn, kernel, ["--compare-repro-dir=" + repro], mode="cpu", device="vulkan")
        assert r.returncode == 1, (fn, kernel, r.stdout, r.stderr)
        line = r.stderr.splitlines()[0]
        assert line.startswith(f"dispatch {k} differs from the cpu kernel: {kernel}"), line
        assert re.search(rf" in @{fn} at \S*compare_ops\.mlir:{where}$", line), (where, line)
        command = re.search(r"To reproduce:\n  (.*)\n", open(os.path.join(repro, "README.txt")).read()).group(1)
        assert "--device=vulkan" in command, command
        on_vulkan = subprocess.run(["sh", "-c", command], capture_output=True, text=True, env=env)
        assert on_vulkan.returncode == 1 and "differs from the expected output" in on_vulkan.stderr, on_vulkan.stderr
        on_cpu = subprocess.run(["sh", "-c", command.replace("--device=vulkan", "--device=cpu")], capture_output=True,
                                text=True, env=dict(env, KILN_TEST_BREAK_KERNEL=kernel))
        assert on_cpu.returncode == 0 and "matched the expected output" in on_cpu.stderr, on_cpu.stderr
    r = run("main", device="vulkan")
    assert r.returncode == 1 and "--compare-with=reference runs on the cpu device only" in r.stderr, r.stderr
    print("compare-with=cpu: ok")
    sys.exit(0)


for fn, n in dispatches.items():
    r = run(fn)
    assert r.returncode == 0, (fn, r.stdout, r.stderr)
    assert f"compare-with=reference: {n} of {n} dispatches compared, all within tolerance" in r.stderr, r.stderr

# (function, kernel, which dispatch, line:col)
cases = [("main", "stablehlo.dot_general", 1, "6:8"), ("main", "kiln.elementwise", 2, "9:8"),
         ("main", "stablehlo.reduce", 3, "11:8"), ("main", "stablehlo.transpose", 4, "12:9"),
         ("affine", "stablehlo.dot_general", 1, "22:8"), ("ints", "stablehlo.reduce", 1, "29:8"), ("softmax", "kiln.row_block", 1, "43:8")]
for fn, kernel, k, where in cases:
    repro = os.path.join(work, f"repro_{fn}_{k}")
    shutil.rmtree(repro, ignore_errors=True)
    r = run(fn, kernel, ["--compare-repro-dir=" + repro])
    assert r.returncode == 1, (fn, kernel, r.stdout, r.stderr)
    first = f"dispatch {k} differs from the reference: {kernel}"
    assert r.stderr.startswith(first), (first, r.stderr)
    line = r.stderr.splitlines()[0]
    assert re.search(rf" in @{fn} at \S*compare_ops\.mlir:{where}$", line), (where, line)
    assert re.search(r"elements differ; max abs error [0-9.e+-]+, max rel error", r.stderr), r.stderr
    readme = open(os.path.join(repro, "README.txt")).read()
    command = re.search(r"To reproduce:\n  (.*)\n", readme)
    assert command and os.path.exists(os.path.join(repro, "repro.mlir")), readme
    ok = subprocess.run(["sh", "-c", command.group(1)], capture_output=True, text=True, env=env)
    assert ok.returncode == 0 and "matched the expected output" in ok.stderr, (kernel, ok.stdout, ok.stderr)
    bad = subprocess.run(["sh", "-c", command.group(1)], capture_output=True, text=True,
                         env=dict(env, KILN_TEST_BREAK_KERNEL=kernel))
    assert bad.returncode == 1 and "differs from the expected output" in bad.stderr, (kernel, bad.stdout, bad.stderr)

# The repro of the product holds the reference's result: numpy agrees.
x, w = (np.load(os.path.join(work, "repro_main_1", f"input{i}.npy")) for i in range(2))
want = np.load(os.path.join(work, "repro_main_1", "expected0.npy"))
assert np.allclose(x @ w, want, rtol=1e-5, atol=1e-5), (x @ w, want)
# The fused chain's repro holds its ops.
text = open(os.path.join(work, "repro_main_2", "repro.mlir")).read()
assert all(op in text for op in ('"stablehlo.add"', '"stablehlo.tanh"', '"stablehlo.broadcast_in_dim"')), text

# The row block's repro holds the softmax: numpy agrees with its reference output.
x = np.load(os.path.join(work, "repro_softmax_1", "input0.npy"))
e = np.exp(x - x.max(axis=1, keepdims=True))
assert np.allclose(e / e.sum(axis=1, keepdims=True), np.load(os.path.join(work, "repro_softmax_1", "expected0.npy")),
                   rtol=1e-5, atol=1e-6)

# A module whose source is gone: the .npy files and why there is no
# program; --compare-source names the file.
gone_src = os.path.join(work, "gone.mlir")
shutil.copy(source, gone_src)
gone = os.path.join(work, "gone.kiln")
subprocess.run([compile_tool, gone_src, "-o", gone, "--target=cpu"], check=True, env=env)
os.remove(gone_src)
for extra, has_program in (([], False), (["--compare-source=" + source], True)):
    repro = os.path.join(work, "repro_gone")
    shutil.rmtree(repro, ignore_errors=True)
    r = subprocess.run([vm_run, gone, "--compare-with=reference", "--compare-repro-dir=" + repro, *args["main"], *extra],
                       capture_output=True, text=True, env=dict(env, KILN_TEST_BREAK_KERNEL="stablehlo.transpose"))
    assert r.returncode == 1 and "dispatch 4 differs from the reference: stablehlo.transpose" in r.stderr, r.stderr
    assert os.path.exists(os.path.join(repro, "repro.mlir")) == has_program, (extra, r.stderr)
    assert os.path.exists(os.path.join(repro, "input0.npy")) and os.path.exists(os.path.join(repro, "expected0.npy"))
    if not has_program:
        assert "(no repro.mlir: the module's source file '" + gone_src + "' was not found (give it with --compare-source))" \
            in r.stderr, r.stderr

# A run that fails (here: times out in a loop that never ends) after a
# dispatch differed still reports it; the op is inside the loop's body.
endless = os.path.join(work, "endless.kiln")
subprocess.run([compile_tool, os.path.join(os.path.dirname(source), "endless.mlir"), "-o", endless, "--target=cpu"],
               check=True, env=env)
repro = os.path.join(work, "repro_endless")
shutil.rmtree(repro, ignore_errors=True)
r = subprocess.run([vm_run, endless, "--function=spin_tensor", "--input=64xf32=0.5", "--timeout=0.5",
                    "--compare-with=reference", "--compare-repro-dir=" + repro], capture_output=True, text=True,
                   env=dict(env, KILN_TEST_BREAK_KERNEL="kiln.elementwise"))
assert r.returncode == 1 and re.match(r"dispatch 1 differs from the reference: kiln.elementwise \(fused: stablehlo.tanh\) "
                                      r"in @spin_tensor at \S*endless\.mlir:23:12\n", r.stderr), r.stderr
assert "timed out after 0.5 s" in r.stderr.splitlines()[-1], r.stderr
assert '"stablehlo.tanh"(%arg0)' in open(os.path.join(repro, "repro.mlir")).read()

r = run("main", mode="cpu")
assert r.returncode == 1 and "--compare-with=cpu compares a vulkan run with the cpu device's kernels" in r.stderr, r.stderr
r = run("main", mode="gpu")
assert r.returncode == 1 and "--compare-with takes 'reference' or 'cpu', not 'gpu'" in r.stderr, r.stderr
print("compare-with: ok")
