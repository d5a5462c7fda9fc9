#!/usr/bin/env bash
# The Quickstart's first command (scripts/run_example.sh) builds every tool
# that README.md and docs/*.md then run from build/ (./build/vm-bench, ...)
# or describe under README's Tools, so none of those commands meets
# "No such file" after it.
#   check_quickstart_tools.sh SOURCE_DIR
set -euo pipefail
src=$1
targets=$(sed -nE 's/^cmake --build build .*--target (.*)$/\1/p' "$src/scripts/run_example.sh")
[ -n "$targets" ] || { echo "scripts/run_example.sh has no 'cmake --build build ... --target' line" >&2; exit 1; }
used=$({ grep -ohE '(^|[^-_a-z])build/(kiln-compile|vm-[a-z]+)' "$src/README.md" "$src"/docs/*.md |
           sed -E 's#.*build/##'
         sed -nE 's/^### (kiln-compile|vm-[a-z]+)$/\1/p' "$src/README.md"; } | sort -u)
[ -n "$used" ] || { echo "found no tool in README.md or docs/" >&2; exit 1; }
missing=()
for tool in $used; do
  case " $targets " in *" $tool "*) ;; *) missing+=("$tool") ;; esac
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "scripts/run_example.sh does not build: ${missing[*]} (it builds: $targets)" >&2
  exit 1
fi
echo "run_example.sh builds every tool the docs use: $(echo $used)"
