#!/bin/sh
# The int8 MobileNet-v2 block beside its f32 twin (examples/int8_block/,
# docs/performance.md "int8 convolution"), batch 1 and 64, 1 and 2
# threads, in one run: vm-bench medians of each. Usage, from the repository
# root after building (scripts/test.sh or cmake --build build):
#   sh benchmarks/int8_block.sh [build] [iterations]
set -e
B=${1:-build}
N=${2:-50}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
/usr/bin/python3 examples/int8_block/gen_int8_block.py "$D" >/dev/null
for v in int8 f32; do
  "$B/kiln-compile" "$D/${v}_block.mlir" -o "$D/$v.kiln" --target=cpu
done
for t in 1 2; do
  for b in 1 64; do
    fn=main
    [ "$b" = 64 ] && fn=main_b64
    for v in int8 f32; do
      if [ "$v" = int8 ]; then x="${b}x16x16x32xi8=3"; else x="${b}x16x16x32xf32=0.5"; fi
      printf '%-4s batch %-2s %s thread(s): ' "$v" "$b" "$t"
      "$B/vm-bench" "$D/$v.kiln" --function=$fn --input=$x --iterations="$N" --threads="$t" | head -1 | sed 's/.*runs, //'
    done
  done
done
