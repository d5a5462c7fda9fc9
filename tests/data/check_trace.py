#!/usr/bin/env python3
"""Checks vm-run --trace and --profile (ctest cli.trace_and_profile and
cli.trace_and_profile_vulkan): the trace is valid Chrome trace-event JSON
with one call slice and one dispatch slice per dispatch the module's @main
runs (vm-dump counts the dispatch instructions of the MLP, which has no
loops), each naming its source line and inside the call; the profile's
shares sum to about 100%.
  check_trace.py VM_RUN VM_DUMP MODULE.kiln INPUT WORK_DIR [DEVICE]"""
import json
import re
import subprocess
import sys

vm_run, vm_dump, module, input_text, work = sys.argv[1:6]
device = sys.argv[6] if len(sys.argv) > 6 else "cpu"
trace = work + "/trace_" + device + ".json"
run = subprocess.run([vm_run, module, "--input=" + input_text, "--trace=" + trace, "--profile", "--device=" + device]
                     + (["--threads=1"] if device == "cpu" else []), check=True, capture_output=True, text=True)
out = run.stdout
assert "calls only" not in run.stderr, run.stderr
events = json.load(open(trace))["traceEvents"]
calls = [e for e in events if e.get("cat") == "call"]
dispatches = [e for e in events if e.get("cat") == "dispatch"]
assert len(calls) == 1 and calls[0]["name"] == "@main", calls
dump = subprocess.run([vm_dump, module], check=True, capture_output=True, text=True).stdout
main = re.search(r"^function main \(.*?(?=\nfunction |\nsizes:|\Z)", dump, re.S | re.M)
assert main, dump[:2000]
expected = len(re.findall(r"^\s+\d+: dispatch ", main.group(0), re.M))
assert len(dispatches) == expected and expected > 0, (len(dispatches), expected)
for e in dispatches:
    assert e["ph"] == "X" and e["dur"] >= 0 and e["ts"] >= calls[0]["ts"], e
    assert e["ts"] + e["dur"] <= calls[0]["ts"] + calls[0]["dur"] + 1, (e, calls[0])  # 1 µs: rounding
    assert re.search(r"mlp\.mlir:\d+:\d+ @main$", e["args"]["location"]), e
    assert e["args"]["bytes"] > 0 and e["args"]["outputs"], e
shares = [float(m) for m in re.findall(r"^\s+([0-9.]+)%", out, re.M)]
assert shares and abs(sum(shares) - 100) < 0.1 * len(shares), (shares, out)
print("trace: %d dispatch slices (vm-dump: %d dispatches), 1 call; profile shares sum to %.1f%%"
      % (len(dispatches), expected, sum(shares)))
