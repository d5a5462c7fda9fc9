"""vm-dump --json read as a script reads it: json.load takes it, and each
function's signature, peak figures and the file's size figures match what
the text output prints for the same module.
  check_vm_dump_json.py VM_DUMP MODULE.kiln [NAME=SIG ...]
NAME=SIG asserts a function's signature as the text prints it, e.g.
main=(tensor<?x3xf32>)->(tensor<?x3xf32>); "?" must be -1 in the JSON; a
value's name follows its type in quotes: (tensor<4xf32>"x")->(...)."""
import json
import re
import subprocess
import sys


def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def sig_text(values):
    def one(v):
        assert isinstance(v["name"], str), v
        name = (" " + json.dumps(v["name"], ensure_ascii=False)) if v["name"] else ""
        if v["kind"] != "tensor":
            return ("!stablehlo.token" if v["kind"] == "token" else "tuple") + name
        assert all(d >= 0 or d == -1 for d in v["dims"]), v
        return "tensor<" + "".join(("?" if d == -1 else str(d)) + "x" for d in v["dims"]) + v["element_type"] + ">" + name
    return "(" + ", ".join(one(v) for v in values) + ")"


dump, module = sys.argv[1], sys.argv[2]
doc = json.loads(run(dump, module, "--json"))
text = run(dump, module)
functions = {f["name"]: f for f in doc["functions"]}

# Every function the text lists, with the same visibility, signature and figures.
blocks = re.findall(r"^function (private )?(\S+) (\(.*?\) -> \(.*?\))  \[(\d+) i64 registers, (\d+) ref registers\]\n"
                    r"  peak transient: (\d+) bytes \(unplanned: (\d+)\); arena (\d+), pool (\d+)", text, re.M)
assert len(blocks) == len(doc["functions"]) > 0, (len(blocks), len(doc["functions"]))
for private, name, sig, i64, ref, peak, unplanned, arena, pool in blocks:
    f = functions[name]
    assert f["public"] == (not private), name
    assert sig_text(f["args"]) + " -> " + sig_text(f["results"]) == sig, (name, sig)
    assert (f["i64_registers"], f["ref_registers"]) == (int(i64), int(ref)), name
    m = f["memory"]
    assert [m["peak_transient_bytes"], m["unplanned_bytes"], m["arena_bytes"], m["pool_bytes"]] == \
        [int(peak), int(unplanned), int(arena), int(pool)], name
for name, callees in re.findall(r"^function (?:private )?(\S+) .*\n(?:  peak.*\n)  with callees: (\S+)", text, re.M):
    w = functions[name]["memory"]["with_callees"]
    assert (w == "unbounded") if callees == "unbounded" else (w["peak_transient_bytes"] == int(callees)), (name, w)

# The file's size figures.
sizes = re.search(r"^sizes: file (\d+) bytes; constants (\d+) stored \((\d+) raw\) in (\d+); bytecode (\d+) in "
                  r"(\d+) functions?; (\d+) executables?; vulkan shaders (\d+) bytes of SPIR-V in (\d+) variants?$",
                  text, re.M)
assert sizes, text
file_bytes, stored, raw, count, code, nfn, nexe, spirv, variants = map(int, sizes.groups())
s = doc["sizes"]
assert [s["file_bytes"], s["constant_stored_bytes"], s["constant_raw_bytes"], doc["constants"]["count"],
        s["bytecode_bytes"], len(doc["functions"]), len(doc["executables"]), s["spirv_bytes"],
        s["vulkan_variants"]] == [file_bytes, stored, raw, count, code, nfn, nexe, spirv, variants], (s, sizes.groups())
assert sum(f["bytecode_bytes"] for f in doc["functions"]) == code
kernels = re.findall(r"^exe#\d+: kernel (\S+)", text, re.M)
assert [e["kernel"] for e in doc["executables"]] == kernels, kernels
params = re.search(r"^parameters: (\d+) bytes in (\d+) parameters? outside the module, (\d+) bound$", text, re.M)
p = doc["parameters"]
assert [p["bytes"], p["count"], p["bound"]] == ([int(x) for x in params.groups()] if params else [0, 0, 0]), p
assert doc["source_file"] in text.splitlines()[0]

for expected in sys.argv[3:]:
    name, sig = expected.split("=", 1)
    f = functions[name]
    got = sig_text(f["args"]) + "->" + sig_text(f["results"])
    assert got.replace(" ", "") == sig, (name, got, sig)
print(f"ok: {len(doc['functions'])} functions, {len(doc['executables'])} executables, {p['count']} parameters")
