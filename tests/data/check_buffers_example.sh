#!/usr/bin/env bash
# docs/embedding.md's buffers example (the C block after its "buffers
# example" marker) built against libkiln.so in the build folder and run on
# tests/data/decoder_step.mlir: 256 steps with the cache on the device, each
# downloading only its 32 logits (128 bytes), and the last logit 0 equal to
# the full recompute's (vm-run on @full).
#   check_buffers_example.sh SOURCE_DIR KILN_COMPILE VM_RUN LIB_DIR WORK_DIR
set -euo pipefail
src=$1 compile=$2 vm_run=$3 lib=$4 work=$5
rm -rf "$work" && mkdir -p "$work"
awk '/<!-- buffers example/ {armed=1; next}
     armed && /^```c$/ {inside=1; next}
     inside && /^```$/ {exit}
     inside {print}' "$src/docs/embedding.md" >"$work/buffers.c"
[ -s "$work/buffers.c" ] || { echo "docs/embedding.md has no buffers example block" >&2; exit 1; }
cc -std=c99 -Wall -Werror -o "$work/buffers" "$work/buffers.c" -I"$src" -L"$lib" -lkiln -Wl,-rpath,"$lib"
"$compile" "$src/tests/data/decoder_step.mlir" -o "$work/decoder_step.kiln" --target=cpu 2>/dev/null
out=$(cd "$work" && ./buffers)
echo "$out"
tokens=$(/usr/bin/python3 -c 'print(",".join(str((t * 7 + 3) % 32) for t in range(256)))')
full=$("$vm_run" "$work/decoder_step.kiln" --function=full --input="256xi32=$tokens")
/usr/bin/python3 - "$out" "$full" <<'PY'
import re, sys
out, full = sys.argv[1], sys.argv[2]
m = re.match(r"downloads: 256 \(32768 bytes\), logits\[0\] = (\S+)$", out.strip())
assert m, "unexpected output: " + out
want = float(full.strip().split("=", 1)[1].split(",")[0])  # 32xf32=v0,v1,...
got = float(m.group(1))
assert abs(got - want) <= 1e-4 * max(1.0, abs(want)), (got, want)
print("buffers example: 256 steps, logits[0] = %g matches full()" % got)
PY
