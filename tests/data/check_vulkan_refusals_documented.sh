#!/usr/bin/env bash
# Every op that the vulkan target refuses in tests/data/ops/*.mlir (the chlo
# ops JAX emits, the accuracy, deprecated, dynamic, quantized and spec
# example programs) is named in docs/vulkan.md's "Not yet" section and in
# docs/ops.md. The run must have passed programs (so the check cannot pass
# by running nothing); a run that refuses nothing passes.
#   check_vulkan_refusals_documented.sh SOURCE_DIR KILN_CONFORMANCE WORK_DIR
set -euo pipefail
src=$1 conformance=$2 work=$3
mkdir -p "$work"
"$conformance" "$src/tests/data/ops" --device=vulkan --reasons >"$work/reasons.txt" 2>&1
refused=$(sed -nE "s/^ *unsupported x[0-9]+: ([a-z_]+[.][a-z_0-9]+) .*/\1/p" "$work/reasons.txt" | sort -u)
passed=$(sed -nE 's/^conformance: ([0-9]+) passed.*/\1/p' "$work/reasons.txt")
[ "${passed:-0}" -gt 0 ] || { echo "no program of tests/data/ops passed on vulkan" >&2; cat "$work/reasons.txt" >&2; exit 1; }
if [ -z "$refused" ]; then
  echo "the vulkan target refuses nothing in tests/data/ops ($passed passed)"
  exit 0
fi
not_yet=$(awk '/^## Not yet/ {on=1; next} /^## / {on=0} on' "$src/docs/vulkan.md")
missing=()
for op in $refused; do
  grep -qw -- "$op" <<<"$not_yet" || missing+=("$op (docs/vulkan.md, Not yet)")
  grep -qF -- "\`$op\`" "$src/docs/ops.md" || missing+=("$op (docs/ops.md)")
done
if [ ${#missing[@]} -gt 0 ]; then
  printf 'refused on vulkan but not documented: %s\n' "${missing[@]}" >&2
  exit 1
fi
echo "documented: $(echo $refused)"
