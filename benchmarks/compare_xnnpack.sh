#!/bin/sh
# Kiln beside XNNPACK (Debian's libxnnpack-dev, 2022) on XNNPACK's operator
# shapes in f32, f16 and qs8, 1 and 2 threads, in one run
# (docs/performance.md, "Beside XNNPACK"): ../shared/peers/lowprec/xnn_bench.c
# built into a temporary directory and run first (its table: medians, with
# its own checks), then Kiln's programs of benchmarks/xnnpack_shapes.py
# (weights constant, qs8 requantized to i8 as XNNPACK's) by vm-bench
# (medians of 30 calls). Usage, from the repository root after building:
#   sh benchmarks/compare_xnnpack.sh [build]
# Needs libxnnpack-dev, libpthreadpool-dev and libcpuinfo-dev (apt-get).
set -e
B=${1:-build}
PEER=../shared/peers/lowprec
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
gcc -O2 -mf16c -DHAVE_CPUINFO -o "$D/xnn_bench" "$PEER/xnn_bench.c" -lXNNPACK -lpthreadpool -lcpuinfo -lpthread -lm
"$D/xnn_bench" 1 2 | grep -E '^\|'
/usr/bin/python3 benchmarks/xnnpack_shapes.py "$D"
for f in "$D"/*.mlir; do "$B/kiln-compile" "$f" -o "${f%.mlir}.kiln" --target=cpu; done
echo
echo "| op | dtype | T | Kiln median ms | rate |"
echo "|---|---|---:|---:|---:|"
for op in fc fc_m1 conv dwconv; do
  case $op in
    fc) x=1024x1024; ops=2147483648 ;;
    fc_m1) x=1x1024; ops=2097152 ;;
    conv) x=1x56x56x64; ops=231211008 ;;
    dwconv) x=1x112x112x32; ops=7225344 ;;
  esac
  for dt in f32 f16 qs8; do
    e=$dt v=0.5
    [ "$dt" = qs8 ] && e=i8 v=3
    for t in 1 2; do
      ms=$("$B/vm-bench" "$D/${op}_$dt.kiln" --input="${x}x$e=$v" --iterations=30 --threads=$t | head -1 |
           sed 's/.*median \([0-9.]*\) ms.*/\1/')
      echo "$op $dt $t $ms $ops" | awk '{printf "| %s | %s | %s | %.4f | %.1f G/s |\n", $1, $2, $3, $4, $5 / $4 / 1e6}'
    done
  done
done
