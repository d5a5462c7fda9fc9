#!/usr/bin/env python3
"""Generates the fuzzers' seed corpora (nothing binary is committed).

  make_seeds.py --kiln-compile BUILD/kiln-compile --conformance DIR --out OUT

writes
  OUT/parser/         conformance chunks (MLIR text), examples/spec_program.mlir,
                      the functions of tests/data/ops/iree_test_forms.mlir and
                      tests/data/jax/debug_locations.mlir
  OUT/module_loader/  those of them that kiln-compile compiles for the CPU (.kiln)
  OUT/input/          one --input value per file from input_seeds.txt, and a few
                      .npy files (prefixed with '@', as input_fuzzer expects)
  OUT/parameters/     a few small safetensors files (parameters_fuzzer)
  OUT/bytecode/       the StableHLO portable artifacts of ../shared/conformance/vhlo
                      (bytecode_fuzzer), when that folder exists
"""
import argparse
import shutil
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# Small files covering the loader's tables: constants (incl. compressed),
# executables with scalar programs (reduce, sort, map), calls, branches
# (if/case/while), tuples, tokens and checks.
LOADER_FILES = [
    "add.mlir", "constant.mlir", "reduce.mlir", "sort.mlir", "map.mlir", "call.mlir",
    "if.mlir", "case.mlir", "while.mlir", "tuple_and_get_tuple_element.mlir", "after_all.mlir",
    "dot_general.mlir", "broadcast_in_dim.mlir", "concatenate.mlir", "slice.mlir", "reshape.mlir",
    "transpose.mlir", "convert.mlir", "iota.mlir", "select.mlir", "pad.mlir", "gather.mlir",
    "scatter.mlir", "reduce_window.mlir", "dynamic_slice.mlir", "compare.mlir",
]
CHUNKS_PER_FILE = 3
MAX_SEED_BYTES = 4096


def split_chunks(text):
    chunks, cur = [], []
    for line in text.splitlines(keepends=True):
        if line.strip() == "// -----":
            chunks.append("".join(cur))
            cur = []
        else:
            cur.append(line)
    chunks.append("".join(cur))
    return [c for c in chunks if "func.func" in c]


def npy(descr, shape, payload):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, ",".join(str(d) for d in shape) + ("," if len(shape) == 1 else ""))
    total = 10 + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + payload


def safetensors(tensors, metadata):
    """A safetensors file: tensors are (key, dtype, shape, bytes); the header
    padded with spaces so the data starts 64-byte aligned."""
    entries, pos = [], 0
    for key, dtype, shape, data in tensors:
        entries.append('"%s":{"dtype":"%s","shape":[%s],"data_offsets":[%d,%d]}'
                       % (key, dtype, ",".join(map(str, shape)), pos, pos + len(data)))
        pos += len(data)
    if metadata:
        entries.append('"__metadata__":{%s}' % ",".join('"%s":"%s"' % kv for kv in metadata.items()))
    header = ("{" + ",".join(entries) + "}").encode()
    header += b" " * (-(8 + len(header)) % 64)
    return struct.pack("<Q", len(header)) + header + b"".join(t[3] for t in tensors)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kiln-compile", required=True)
    ap.add_argument("--conformance", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    args.out = os.path.abspath(args.out)
    if os.sep in args.kiln_compile:
        args.kiln_compile = os.path.abspath(args.kiln_compile)

    dirs = {k: os.path.join(args.out, k) for k in ("parser", "module_loader", "input", "parameters", "bytecode")}
    for d in dirs.values():
        os.makedirs(d, exist_ok=True)
        for f in os.listdir(d):
            os.remove(os.path.join(d, f))

    # Bytecode reader: the portable artifacts beside the conformance suite.
    vhlo = os.path.join(os.path.dirname(os.path.abspath(args.conformance)), "vhlo")
    if os.path.isdir(vhlo):
        for name in sorted(os.listdir(vhlo)):
            if name.endswith(".mlir.bc"):
                shutil.copyfile(os.path.join(vhlo, name), os.path.join(dirs["bytecode"], name))

    # Parser: a few chunks of every conformance file, and the spec example.
    sources = {"spec_program.mlir": open(os.path.join(ROOT, "examples", "spec_program.mlir")).read()}
    if os.path.isdir(args.conformance):
        for name in sorted(os.listdir(args.conformance)):
            if not name.endswith(".mlir"):
                continue
            chunks = split_chunks(open(os.path.join(args.conformance, name), encoding="utf-8").read())
            for i, c in enumerate(chunks[:CHUNKS_PER_FILE]):
                if len(c.encode()) <= MAX_SEED_BYTES:
                    sources["%s.%d.mlir" % (name[:-5], i)] = c
    else:
        print("make_seeds: no conformance folder at %s; using the example only" % args.conformance,
              file=sys.stderr)
    # IREE's test forms (constants, parenthesized checks, functions written
    # as blocks), one function per seed.
    forms = open(os.path.join(ROOT, "tests", "data", "ops", "iree_test_forms.mlir"), encoding="utf-8").read()
    # The file's module globals go before each function that may use them.
    globals_text = "".join(line + "\n" for line in forms.splitlines()
                           if line.startswith(("ml_program.global ", "util.global ")))
    for i, fn in enumerate(forms.split("\nfunc.func ")[1:]):
        fn = "".join(line + "\n" for line in fn.splitlines()
                     if not line.startswith(("ml_program.global ", "util.global ")))
        sources["iree_test_forms.%d.mlir" % i] = globals_text + "func.func " + fn
    # Debug locations in every form MLIR prints.
    sources["debug_locations.mlir"] = open(os.path.join(ROOT, "tests", "data", "jax", "debug_locations.mlir"),
                                           encoding="utf-8").read()
    for name, text in sources.items():
        with open(os.path.join(dirs["parser"], name), "w", encoding="utf-8") as f:
            f.write(text)

    # Loader: compile the example and the chunks of LOADER_FILES.
    wanted = {"spec_program.mlir"} | {n for n in sources if n.split(".")[0] + ".mlir" in LOADER_FILES}
    compiled = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(wanted):
            out = os.path.join(dirs["module_loader"], name[:-5] + ".kiln")
            r = subprocess.run([args.kiln_compile, os.path.join(dirs["parser"], name), "-o", out,
                                "--target=cpu"], cwd=tmp, capture_output=True, text=True)
            if r.returncode == 0 and os.path.exists(out):
                compiled += 1
            elif os.path.exists(out):
                os.remove(out)

    # Inputs: one line of input_seeds.txt per file, and a few .npy files.
    n_inputs = 0
    with open(os.path.join(HERE, "input_seeds.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            with open(os.path.join(dirs["input"], "line%03d" % n_inputs), "w", encoding="utf-8") as g:
                g.write(line)
            n_inputs += 1
    npys = {
        "f32_2x3": npy("<f4", [2, 3], struct.pack("<6f", 1, 2, 3, 4, 5, 6)),
        "i64_4": npy("<i8", [4], struct.pack("<4q", 1, -2, 3, -4)),
        "b1_scalar": npy("|b1", [], b"\x01"),
        "c64_2": npy("<c8", [2], struct.pack("<4f", 1, 2, 3, 4)),
        "u16_2x2": npy("<u2", [2, 2], struct.pack("<4H", 1, 2, 3, 65535)),
    }
    for name, data in npys.items():
        with open(os.path.join(dirs["input"], "npy_" + name), "wb") as g:
            g.write(b"@" + data)

    # Parameter files: a few small safetensors files (external weights).
    sts = {
        "two_f32": safetensors([("w", "F32", [2, 3], struct.pack("<6f", 1, 2, 3, 4, 5, 6)),
                                ("b", "F32", [3], struct.pack("<3f", 7, 8, 9))], {"producer": "seed"}),
        "mixed": safetensors([("a\u00e9", "BF16", [2], b"\x80\x3f\x00\x40"), ("i", "I64", [1], struct.pack("<q", -1)),
                              ("flag", "BOOL", [4], b"\x01\x00\x01\x00"), ("empty", "F16", [0, 2], b"")], {}),
        "empty": safetensors([], {}),
    }
    for name, data in sts.items():
        with open(os.path.join(dirs["parameters"], name + ".safetensors"), "wb") as g:
            g.write(data)

    print("make_seeds: %d parser seeds, %d module seeds (of %d tried), %d input seeds, %d parameter seeds"
          % (len(sources), compiled, len(wanted), n_inputs + len(npys), len(sts)))
    if compiled == 0:
        print("make_seeds: kiln-compile compiled nothing; the loader fuzzer starts from an empty corpus",
              file=sys.stderr)


if __name__ == "__main__":
    main()
