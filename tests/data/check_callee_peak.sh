#!/usr/bin/env bash
# vm-dump's "with callees" line (docs/memory.md, "The figures"), read as a
# user reads it: for tests/data/callee_peak.mlir, @main's figures with its
# callee must be its own plus @helper's (one call site), and @loop, which
# calls itself, must print no bound.
#   check_callee_peak.sh KILN_COMPILE VM_DUMP IN.mlir OUT.kiln
set -euo pipefail
compile=$1 dump=$2 in=$3 out=$4
mkdir -p "$(dirname "$out")"
"$compile" "$in" -o "$out" --target=cpu
text=$("$dump" "$out")
# The line after "function [private] NAME" that starts with PREFIX.
line_of() {
  awk -v fn="$1" -v prefix="$2" '$1 == "function" {want = ($2 == fn || ($2 == "private" && $3 == fn)); next}
                                 want && index($0, prefix) == 1 {print; want = 0}' <<<"$text"
}
figures() {  # "N M" from "...: N bytes (unplanned: M)..."
  [[ $1 =~ :\ ([0-9]+)\ bytes\ \(unplanned:\ ([0-9]+)\) ]] || { echo "no figures in '$1'" >&2; exit 1; }
  echo "${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"
}
read -r main_n main_m <<<"$(figures "$(line_of main '  peak transient:')")"
read -r helper_n helper_m <<<"$(figures "$(line_of helper '  peak transient:')")"
read -r total_n total_m <<<"$(figures "$(line_of main '  with callees:')")"
echo "main $main_n ($main_m), helper $helper_n ($helper_m), main with callees $total_n ($total_m)"
(( main_n > 0 && helper_n > 0 ))
(( total_n == main_n + helper_n && total_m == main_m + helper_m ))
if [[ -n $(line_of helper '  with callees:') ]]; then echo "helper calls nothing but has a with-callees line"; exit 1; fi
loop=$(line_of loop '  with callees:')
echo "loop: $loop"
[[ $loop == "  with callees: unbounded"* ]]
