#!/usr/bin/env bash
# The scalar-loop benchmark: N Collatz steps in a StableHLO `while` over
# scalar i64 tensors (benchmarks/collatz.mlir, N given with --input) run by
# vm-bench, beside the same loop in Lua 5.4, in one run. Prints ns per
# iteration for both and their ratio; checks both end on the same value.
#   benchmarks/collatz.sh [N]        (default 1000000)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000000}
command -v lua5.4 >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq lua5.4 >/dev/null; }
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target kiln-compile vm-run vm-bench >/dev/null
./build/kiln-compile benchmarks/collatz.mlir -o build/collatz.kiln --target=cpu 2>/dev/null
kiln_value=$(./build/vm-run build/collatz.kiln --input=i64="$N" | sed 's/.*=//')
bench=$(./build/vm-bench build/collatz.kiln --function=main --input=i64="$N" --iterations=3 --warmup=1)
median_ms=$(echo "$bench" | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p')
read -r lua_value lua_ns < <(lua5.4 benchmarks/collatz.lua "$N")
[ "$kiln_value" = "$lua_value" ] || { echo "collatz: Kiln ended on $kiln_value, Lua on $lua_value" >&2; exit 1; }
kiln_ns=$(awk -v ms="$median_ms" -v n="$N" 'BEGIN { printf "%.1f", ms * 1e6 / n }')
echo "collatz N=$N (both end on $kiln_value)"
echo "  kiln (vm-bench median of 3): $kiln_ns ns/iteration"
echo "  lua5.4:                      $lua_ns ns/iteration"
awk -v k="$kiln_ns" -v l="$lua_ns" 'BEGIN { printf "  kiln / lua: %.2fx\n", k / l }'
