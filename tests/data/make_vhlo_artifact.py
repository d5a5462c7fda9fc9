#!/usr/bin/env python3
"""Writes a tiny StableHLO portable artifact (VHLO in MLIR bytecode, bytecode
version 1, as StableHLO 0.10 wrote them) for the end-to-end test of
kiln-compile's bytecode reader, without stablehlo-translate or JAX:

  module @jit_f attributes {mhlo.num_partitions = 1 : i32} {
  func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
    %c = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
    %s = stablehlo.add %a, %b
    %p = stablehlo.multiply %s, %c
    return %p
  }
  }

  make_vhlo_artifact.py OUT.mlir.bc
"""
import struct
import sys


def varint(v):
    # PrefixVarInt: n-1 zero bits then a one in the low bits of the first byte.
    for n in range(1, 9):
        if v < (1 << (7 * n)):
            return ((v << n) | (1 << (n - 1))).to_bytes(n, "little")
    return b"\x00" + v.to_bytes(8, "little")


def svarint(v):
    return varint((v << 1) ^ (v >> 63) if v >= 0 else ((-v - 1) << 1) | 1)


def section(sid, data):
    return bytes([sid]) + varint(len(data)) + data


strings = ["builtin", "vhlo", "module", "func_v1", "add_v1", "multiply_v1", "constant_v1", "return_v1",
           "sym_name", "function_type", "sym_visibility", "arg_attrs", "res_attrs", "main", "", "value",
           "jit_f", "mhlo.num_partitions"]
S = {s: i for i, s in enumerate(strings)}
enc = [s.encode() + b"\0" for s in strings]
string_section = varint(len(strings)) + b"".join(varint(len(e)) for e in reversed(enc)) + b"".join(enc)

# Dialects 0 builtin, 1 vhlo (no version); op names grouped by dialect.
OPS = ["module", "func_v1", "add_v1", "multiply_v1", "constant_v1", "return_v1"]
dialect_section = varint(2) + varint(S["builtin"] << 1) + varint(S["vhlo"] << 1)
dialect_section += varint(0) + varint(1) + varint(S["module"])
dialect_section += varint(1) + varint(5) + b"".join(varint(S[o]) for o in OPS[1:])

# Types (vhlo): 0 f32, 1 tensor<4xf32>, 2 (tensor, tensor) -> tensor, 3 i32.
types = [varint(4), varint(20) + varint(1) + svarint(4) + varint(0),
         varint(8) + varint(2) + varint(1) + varint(1) + varint(1) + varint(1), varint(13)]
data = struct.pack("<4f", 1.0, 2.0, 3.0, 4.0)
# Attributes: builtin 0..6, vhlo 7..11, builtin dictionaries 12..13, then
# the module's: builtin strings 14..16, the vhlo integer 17, its dictionary 18.
attrs = [varint(15)] + [varint(2) + varint(S[n]) for n in
                        ("sym_name", "function_type", "sym_visibility", "arg_attrs", "res_attrs", "value")]
attrs += [varint(14) + varint(S["main"]), varint(17) + varint(2), varint(14) + varint(S[""]),
          varint(1) + varint(0), varint(15) + varint(1) + varint(len(data)) + data]
# Dictionaries sorted by name: arg_attrs, function_type, res_attrs, sym_name, sym_visibility.
func_dict = [(4, 10), (2, 8), (5, 10), (1, 7), (3, 9)]
attrs += [varint(1) + varint(len(func_dict)) + b"".join(varint(k) + varint(v) for k, v in func_dict),
          varint(1) + varint(1) + varint(6) + varint(11)]
attrs += [varint(2) + varint(S[n]) for n in ("mhlo.num_partitions", "sym_name", "jit_f")]
attrs += [varint(9) + varint(3) + svarint(1)]  # #vhlo.integer_v1<1 : i32>
attrs += [varint(1) + varint(2) + varint(14) + varint(17) + varint(15) + varint(16)]
attr_type = b"".join(attrs) + b"".join(types)


def group(dialect, entries):
    return varint(dialect) + varint(len(entries)) + b"".join(varint((len(e) << 1) | 1) for e in entries)


offsets = varint(len(attrs)) + varint(len(types))
offsets += group(0, attrs[0:7]) + group(1, attrs[7:12]) + group(0, attrs[12:17]) + group(1, attrs[17:18])
offsets += group(0, attrs[18:19]) + group(1, types)


def op(name, mask, attrs=None, results=(), operands=(), regions=None):
    out = varint(OPS.index(name)) + bytes([mask]) + varint(0)  # location: attribute 0 (unknown)
    if attrs is not None:
        out += varint(attrs)
    if results:
        out += varint(len(results)) + b"".join(varint(t) for t in results)
    if operands:
        out += varint(len(operands)) + b"".join(varint(v) for v in operands)
    if regions is not None:
        out += varint((1 << 1) | 1) + regions  # one region, isolated from above
    return out


# Values of the function body: 0, 1 arguments; 2 constant; 3 add; 4 multiply.
body = varint(1) + varint(5) + varint((4 << 1) | 1) + varint(2) + (varint(1) + varint(0)) * 2
body += op("constant_v1", 0x03, attrs=13, results=[1])
body += op("add_v1", 0x06, results=[1], operands=[0, 1])
body += op("multiply_v1", 0x06, results=[1], operands=[3, 2])
body += op("return_v1", 0x04, operands=[4])
module_body = varint(1) + varint(0) + varint(1 << 1) + op("func_v1", 0x11, attrs=12, regions=body)
ir = varint(1 << 1) + op("module", 0x11, attrs=18, regions=module_body)

out = b"ML\xefR" + varint(1) + b"StableHLO_v0.10.0\0"
out += section(0, string_section) + section(1, dialect_section) + section(2, attr_type) + section(3, offsets)
out += section(4, ir)
open(sys.argv[1], "wb").write(out)
