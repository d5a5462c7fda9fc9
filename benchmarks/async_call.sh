#!/usr/bin/env bash
# What an asynchronous call costs beside a synchronous one (vm/kiln.h,
# kiln_session_call_async + kiln_fence_wait against kiln_session_call), in
# one run on one session (benchmarks/async_call.c): on an add of two
# tensor<4xf32> (the per-call overhead) and on
# benchmarks/programs/elementwise_chain.mlir (1M f32). Builds the C program
# against build/libkiln.so.
#   benchmarks/async_call.sh [ROUNDS [CALLS]]     (default 21 rounds of 2000 calls)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-21} CALLS=${2:-2000}
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target kiln-compile kiln_shared >/dev/null
work=build/async_call
mkdir -p "$work"
cat >"$work/add4.mlir" <<'MLIR'
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
MLIR
./build/kiln-compile "$work/add4.mlir" -o "$work/add4.kiln" --target=cpu 2>/dev/null
./build/kiln-compile benchmarks/programs/elementwise_chain.mlir -o "$work/chain.kiln" --target=cpu 2>/dev/null
cc -O2 -Wall -Werror -I. -o "$work/async_call" benchmarks/async_call.c -Lbuild -lkiln -Wl,-rpath,"$PWD/build"
"$work/async_call" "$work/add4.kiln" main 4 "$ROUNDS" "$CALLS"
"$work/async_call" "$work/chain.kiln" main 1048576 "$ROUNDS" $((CALLS / 100 > 0 ? CALLS / 100 : 1))
