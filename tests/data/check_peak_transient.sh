#!/usr/bin/env bash
# Memory planning's acceptance figure, read from vm-dump as a user reads it:
# compiles MLIR (with planning), finds FUNCTION's line
# "peak transient: N bytes (unplanned: M)" and checks N <= M * PERCENT / 100.
# Prints both figures and the ratio either way.
#   check_peak_transient.sh KILN_COMPILE VM_DUMP IN.mlir OUT.kiln FUNCTION PERCENT
set -euo pipefail
compile=$1 dump=$2 in=$3 out=$4 fn=$5 percent=$6
mkdir -p "$(dirname "$out")"
"$compile" "$in" -o "$out" --target=cpu
# awk reads to the end: leaving early would end vm-dump with SIGPIPE (pipefail).
line=$("$dump" "$out" | awk -v fn="$fn" '$1 == "function" {want = !found && ($2 == fn || ($2 == "private" && $3 == fn)); next}
                                          want && /peak transient:/ {print; want = 0; found = 1}')
if [[ ! $line =~ peak\ transient:\ ([0-9]+)\ bytes\ \(unplanned:\ ([0-9]+)\) ]]; then
  echo "no peak transient line for function $fn"
  exit 1
fi
n=${BASH_REMATCH[1]} m=${BASH_REMATCH[2]}
echo "$fn: peak $n bytes, unplanned $m bytes ($((n * 100 / m))%; bound $percent%)"
(( m > 0 && n * 100 <= m * percent ))
