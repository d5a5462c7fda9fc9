#!/usr/bin/env bash
# docs/performance.md's Vulkan section says how many dispatches
# benchmarks/programs/elementwise_chain.mlir takes; this counts them in
# vm-dump's listing of the compiled module and requires the docs to say
# "into N dispatch(es)" with that count in words.
#   check_chain_dispatches_documented.sh SOURCE_DIR KILN_COMPILE VM_DUMP WORK_DIR
set -euo pipefail
src=$1 compile=$2 dump=$3 work=$4
mkdir -p "$work"
"$compile" "$src/benchmarks/programs/elementwise_chain.mlir" -o "$work/chain.kiln" 2>/dev/null
n=$("$dump" "$work/chain.kiln" | grep -cE '^ +[0-9]+: dispatch ')
words=(zero one two three four five six seven eight nine)
[ "$n" -ge 1 ] && [ "$n" -lt ${#words[@]} ] || { echo "unexpected dispatch count $n" >&2; exit 1; }
section=$(awk '/^## Vulkan device/ {on=1; next} /^## / {on=0} on' "$src/docs/performance.md" | tr '\n' ' ')
grep -qE "into ${words[$n]} dispatch" <<<"$section" ||
  { echo "docs/performance.md does not say the chain takes ${words[$n]} dispatch(es) (vm-dump shows $n)" >&2; exit 1; }
echo "elementwise_chain: $n dispatch(es), as docs/performance.md says"
