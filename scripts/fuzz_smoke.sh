#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan, coverage) in
# build-fuzz/, generates their seed corpora, and runs each briefly.
#   scripts/fuzz_smoke.sh [SECONDS]     (default 20 per fuzzer; or FUZZ_SECONDS=N)
# Prints each fuzzer's executions; exits non-zero if one finds a crash, a
# leak, a timeout or an out-of-memory (the reproducer is kept under
# build-fuzz/fuzz-findings/), or if a fuzzer does not build.
# Known, not yet fixed findings are suppressed in tests/fuzz/ubsan_known_issues.supp.
# Long local runs: docs/fuzzing.md.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER_FUZZER=${1:-${FUZZ_SECONDS:-20}}
# FUZZ_BUILD_DIR: an existing clang build configured with KILN_BUILD_FUZZERS
# (CI passes build-asan, the sanitizer build of scripts/test.sh --sanitize);
# by default a build of the fuzzers alone in build-fuzz/.
BUILD_DIR=${FUZZ_BUILD_DIR:-build-fuzz}
FUZZ_DIR=$BUILD_DIR/tests/fuzz
JOBS=$(nproc)

if ! command -v clang++ >/dev/null; then
  echo "fuzz_smoke: clang++ not found (scripts/setup.sh installs clang and libclang-rt-14-dev)" >&2
  exit 1
fi

# Only what the fuzzers and the seeds need: no tests, no Vulkan; -O1 and
# line tables keep the instrumented build short.
if [ -z "${FUZZ_BUILD_DIR:-}" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$BUILD_DIR" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
    -DKILN_BUILD_FUZZERS=ON -DKILN_BUILD_TESTS=OFF -DKILN_ENABLE_VULKAN=OFF >/dev/null
elif ! grep -q '^KILN_BUILD_FUZZERS:BOOL=ON' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null; then
  echo "fuzz_smoke: $BUILD_DIR is not a build with KILN_BUILD_FUZZERS=ON (clang)" >&2
  exit 1
fi

problems=()
FUZZERS=(module_loader_fuzzer parameters_fuzzer input_fuzzer)
cmake --build "$BUILD_DIR" -j"$JOBS" --target module_loader_fuzzer parameters_fuzzer input_fuzzer
# The parser fuzzer and kiln-compile need the compiler library.
if cmake --build "$BUILD_DIR" -j"$JOBS" --target parser_fuzzer bytecode_fuzzer kiln-compile >"$BUILD_DIR/compiler-build.log" 2>&1; then
  FUZZERS=(module_loader_fuzzer parameters_fuzzer parser_fuzzer bytecode_fuzzer input_fuzzer)
else
  echo "fuzz_smoke: the compiler does not build with clang; parser_fuzzer NOT BUILT:" >&2
  grep -m3 -E 'error:' "$BUILD_DIR/compiler-build.log" >&2 || tail -5 "$BUILD_DIR/compiler-build.log" >&2
  problems+=("parser_fuzzer (not built)")
fi

# Seeds: kiln-compile from this build, else one a g++ build left (CI's
# earlier stages), else KILN_COMPILE.
KC=${KILN_COMPILE:-}
for c in "$BUILD_DIR/kiln-compile" build-asan/kiln-compile build/kiln-compile; do
  if [ -z "$KC" ] && [ -x "$c" ]; then KC=$c; fi
done
if [ -z "$KC" ]; then
  echo "fuzz_smoke: no kiln-compile found; the loader fuzzer starts without compiled modules" >&2
  KC=false
fi
python3 tests/fuzz/make_seeds.py --kiln-compile "$KC" \
  --conformance ../shared/conformance/stablehlo-interpret --out "$BUILD_DIR/fuzz-seeds"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:symbolize=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions=$PWD/tests/fuzz/ubsan_known_issues.supp
FINDINGS="$BUILD_DIR/fuzz-findings"
mkdir -p "$FINDINGS"
# One fuzzer per core at a time (each is single-threaded), reported in order.
run_fuzzer() {
  local f=$1 name=${1%_fuzzer}
  local seeds="$BUILD_DIR/fuzz-seeds/$name"
  local corpus="$BUILD_DIR/fuzz-corpus/$name"   # grows across local runs; seeds stay as generated
  mkdir -p "$corpus"
  local rc=0
  "$FUZZ_DIR/$f" "$corpus" "$seeds" \
    -max_total_time="$SECONDS_PER_FUZZER" -timeout=10 -rss_limit_mb=4096 \
    -artifact_prefix="$FINDINGS/$name-" -print_final_stats=1 >"$BUILD_DIR/fuzz-$name.log" 2>&1 || rc=$?
  echo "$rc" >"$BUILD_DIR/fuzz-$name.rc"
}
rm -f "$BUILD_DIR"/fuzz-*.rc
running=0
for f in "${FUZZERS[@]}"; do
  run_fuzzer "$f" &
  running=$((running + 1))
  if [ "$running" -ge "$JOBS" ]; then wait -n || true; running=$((running - 1)); fi
done
wait
for f in "${FUZZERS[@]}"; do
  name=${f%_fuzzer}
  seeds="$BUILD_DIR/fuzz-seeds/$name"
  log="$BUILD_DIR/fuzz-$name.log"
  rc=$(cat "$BUILD_DIR/fuzz-$name.rc" 2>/dev/null || echo missing)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 || true)
  if [ "$rc" = 0 ]; then
    echo "$f: ${execs:-?} executions in ${SECONDS_PER_FUZZER}s (${rate:-?}/s), ${cov:-cov: ?}, $(ls "$seeds" | wc -l) seeds: nothing found"
  else
    problems+=("$f (finding)")
    echo "$f: FOUND a problem (exit $rc) after ${execs:-?} executions; full log: $log"
    grep -E 'ERROR: |runtime error|^SUMMARY' "$log" | head -4 || true
    grep -E '^    #[0-9]+ .* in (kiln|LLVMFuzzer)' "$log" | head -8 || true
    grep -Eo "Test unit written to .*" "$log" | sed 's/^Test unit written to /reproducer: /' || true
  fi
done

if [ ${#problems[@]} -ne 0 ]; then
  echo "fuzz_smoke: FAILED: ${problems[*]}" >&2
  echo "fuzz_smoke: reproduce a finding with: $FUZZ_DIR/FUZZER REPRODUCER (same ASAN_OPTIONS/UBSAN_OPTIONS)" >&2
  exit 1
fi
echo "fuzz_smoke: ${#FUZZERS[@]} fuzzers ran ${SECONDS_PER_FUZZER}s each; nothing found"
