#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) in build-fuzz/,
# generates their seed corpora, and runs each for a short time.
#   scripts/fuzz_smoke.sh [SECONDS]     (default 20 per fuzzer; or FUZZ_SECONDS=N)
# Exits non-zero if a fuzzer finds a crash, a leak, a timeout or an
# out-of-memory; the reproducer is kept under build-fuzz/fuzz-findings/.
# Long local runs: docs/fuzzing.md.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER_FUZZER=${1:-${FUZZ_SECONDS:-20}}
BUILD_DIR=build-fuzz
JOBS=$(nproc)

if ! command -v clang++ >/dev/null; then
  echo "fuzz_smoke: clang++ not found (scripts/setup.sh installs clang and libclang-rt-14-dev)" >&2
  exit 1
fi

# Only what the fuzzers and the seed generation need: no tests, no Vulkan.
CC=clang CXX=clang++ cmake -S . -B "$BUILD_DIR" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
  -DKILN_BUILD_FUZZERS=ON -DKILN_BUILD_TESTS=OFF -DKILN_ENABLE_VULKAN=OFF >/dev/null

FUZZERS=(module_loader_fuzzer input_fuzzer)
TARGETS=(module_loader_fuzzer input_fuzzer kiln-compile)
# The parser fuzzer needs the compiler library; report rather than hide it
# if that does not build.
cmake --build "$BUILD_DIR" -j"$JOBS" --target "${TARGETS[@]}"
if cmake --build "$BUILD_DIR" -j"$JOBS" --target parser_fuzzer; then
  FUZZERS=(module_loader_fuzzer parser_fuzzer input_fuzzer)
else
  echo "fuzz_smoke: parser_fuzzer did not build (see above)" >&2
  exit 1
fi

cmake --build "$BUILD_DIR" --target kiln-fuzz-seeds | grep "make_seeds" || true

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:symbolize=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
FINDINGS="$BUILD_DIR/fuzz-findings"
mkdir -p "$FINDINGS"
failed=()
for f in "${FUZZERS[@]}"; do
  name=${f%_fuzzer}
  seeds="$BUILD_DIR/fuzz-seeds/$name"
  corpus="$BUILD_DIR/fuzz-corpus/$name"     # grows across local runs; seeds stay as generated
  mkdir -p "$corpus"
  log="$BUILD_DIR/fuzz-$name.log"
  echo "--- $f: ${SECONDS_PER_FUZZER}s, seeds: $(ls "$seeds" | wc -l)"
  rc=0
  "$BUILD_DIR/$f" "$corpus" "$seeds" \
    -max_total_time="$SECONDS_PER_FUZZER" -timeout=10 -rss_limit_mb=4096 \
    -artifact_prefix="$FINDINGS/$name-" -print_final_stats=1 >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 || true)
  if [ "$rc" -eq 0 ]; then
    echo "$f: ${execs:-?} executions (${rate:-?}/s), ${cov:-cov: ?}, nothing found"
  else
    failed+=("$f")
    echo "$f: FOUND a problem (exit $rc) after ${execs:-?} executions; log: $log"
    grep -E '^==[0-9]+==ERROR|runtime error|^SUMMARY|ALARM|out-of-memory|deadly signal' "$log" | head -5 || true
    grep -E '^    #[0-9]+ ' "$log" | head -12 || true
    ls -1 "$FINDINGS"/"$name"-* 2>/dev/null | sed 's/^/reproducer: /' || true
  fi
done

if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz_smoke: findings in ${failed[*]}; reproduce with: $BUILD_DIR/FUZZER REPRODUCER" >&2
  exit 1
fi
echo "fuzz_smoke: ${#FUZZERS[@]} fuzzers ran ${SECONDS_PER_FUZZER}s each, nothing found"
