#!/usr/bin/env bash
# Every op that the vulkan target refuses in tests/data/ops/chlo_ops.mlir
# (the chlo ops JAX emits) is named in docs/vulkan.md's "Not yet" section and
# in docs/ops.md, and that file still has refusals to name (so the check
# cannot pass by finding nothing).
#   check_vulkan_refusals_documented.sh SOURCE_DIR KILN_COMPILE WORK_DIR
set -euo pipefail
src=$1 compile=$2 work=$3
mkdir -p "$work"
"$compile" "$src/tests/data/ops/chlo_ops.mlir" -o "$work/chlo_all.kiln" --target=all 2>"$work/warnings.txt"
refused=$(sed -nE "s/.*is unavailable on the vulkan device: ([a-z_]+[.][a-z_0-9]+) .*/\1/p" "$work/warnings.txt" | sort -u)
[ -n "$refused" ] || { echo "the vulkan target refuses nothing in chlo_ops.mlir: update this check" >&2; exit 1; }
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
