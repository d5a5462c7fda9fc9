#!/bin/bash
# Times kiln-kernel-bench binaries side by side on a noisy machine: runs each
# in turn for several rounds (the rounds alternate the binaries, so a slow
# phase of the machine hits all of them) and prints, per benchmark and
# binary, the median and the minimum of the rounds' medians (wall time).
#
#   benchmarks/alternate_kernel_bench.sh FILTER ROUNDS BINARY...
#   KILN_THREADS=2 benchmarks/alternate_kernel_bench.sh 'RowBlock|Memcpy' 4 old/kiln-kernel-bench build/kiln-kernel-bench
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 FILTER ROUNDS BINARY..." >&2
  exit 2
fi
filter=$1 rounds=$2
shift 2
for ((r = 0; r < rounds; ++r)); do
  for bin in "$@"; do
    "$bin" --benchmark_filter="$filter" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true 2>/dev/null |
      awk -v b="$bin" '/_median/ { sub(/\/real_time_median|_median/, "", $1); print b, $1, $2, $3 }'
  done
done | python3 -c '
import collections, statistics, sys
rows = collections.defaultdict(list)
unit = {}
for line in sys.stdin:
    binary, name, time, u = line.split()
    rows[(name, binary)].append(float(time))
    unit[(name, binary)] = u
for (name, binary), times in sorted(rows.items()):
    print(f"{name:50s} {binary:40s} median {statistics.median(times):9.3f} min {min(times):9.3f} {unit[(name, binary)]}  ({len(times)} rounds)")
'
