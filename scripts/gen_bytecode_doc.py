#!/usr/bin/env python3
"""Writes the instruction table of docs/bytecode.md from vm/opcodes.def, the
one instruction table (code, mnemonic, operand kinds, effect), so the page
cannot drift from the code.

  gen_bytecode_doc.py [ROOT]           rewrites the table in ROOT/docs/bytecode.md
  gen_bytecode_doc.py --check [ROOT]   exits 1 if the page is out of date

ROOT is the source tree (default: this script's parent folder). The table
sits between the two marker lines below; the rest of the page is prose kept
by hand. The test bytecode_doc_current (tests/CMakeLists.txt) runs --check.
Plain Python, no third-party modules.
"""
import os
import re
import sys

BEGIN = "<!-- BEGIN instruction table: generated from vm/opcodes.def by scripts/gen_bytecode_doc.py -->"
END = "<!-- END instruction table -->"
ROW = re.compile(r'^KILN_OPCODE\((\w+),\s*(\d+),\s*"([^"]*)",\s*"([^"]*)",\s*"([^"]*)"\)\s*$')
KINDS = {
    "i": "i64 reg", "r": "ref reg", "c": "constant", "e": "executable", "f": "function",
    "s": "string", "t": "type", "u": "u32", "p": "target", "k": "i64 imm", "g": "global",
    "I": "i64 reg list", "R": "ref reg list",
}


def read_rows(def_path):
    rows = []
    for number, line in enumerate(open(def_path, encoding="utf-8"), 1):
        if not line.startswith("KILN_OPCODE("):
            continue
        m = ROW.match(line)
        if not m:
            sys.exit(f"{def_path}:{number}: a KILN_OPCODE row this script cannot read")
        name, code, mnemonic, kinds, effect = m.groups()
        unknown = [k for k in kinds if k not in KINDS]
        if unknown:
            sys.exit(f"{def_path}:{number}: unknown operand kind(s) {''.join(unknown)}")
        rows.append((int(code), mnemonic, kinds, effect))
    return rows


def table(rows):
    names = "abcdefgh"
    out = ["| code | mnemonic | operands | effect |", "| --- | --- | --- | --- |"]
    for code, mnemonic, kinds, effect in rows:
        operands = ", ".join(f"{names[j]}: {KINDS[k]}" for j, k in enumerate(kinds)) or "-"
        effect = effect.replace("|", "\\|")
        out.append(f"| {code} | `{mnemonic}` | {operands} | {effect} |")
    return "\n".join(out)


def render(page, rows):
    if BEGIN not in page or END not in page:
        sys.exit("docs/bytecode.md: the instruction-table markers are missing")
    head, rest = page.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return head + BEGIN + "\n" + table(rows) + "\n" + END + tail


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    def_path = os.path.join(root, "vm", "opcodes.def")
    doc_path = os.path.join(root, "docs", "bytecode.md")
    page = open(doc_path, encoding="utf-8").read()
    wanted = render(page, read_rows(def_path))
    if check:
        if wanted != page:
            print("docs/bytecode.md is out of date with vm/opcodes.def: run scripts/gen_bytecode_doc.py",
                  file=sys.stderr)
            return 1
        return 0
    if wanted != page:
        open(doc_path, "w", encoding="utf-8").write(wanted)
    print("wrote docs/bytecode.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
