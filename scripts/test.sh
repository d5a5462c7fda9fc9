#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite; ends with ctest's summary.
#   scripts/test.sh              release build in build/
#   scripts/test.sh --sanitize   AddressSanitizer + UBSan build in build-asan/
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

BUILD_DIR=build
EXTRA=()
if [ "${1:-}" = "--sanitize" ]; then
  BUILD_DIR=build-asan
  EXTRA=(-DKILN_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo)
  # With clang (scripts/setup.sh installs it): its sanitizers, a second
  # compiler's view of the code beside the release build's GCC, a build
  # about a third quicker, and the libFuzzer targets in the same build
  # (scripts/fuzz_smoke.sh with FUZZ_BUILD_DIR=build-asan runs them).
  if command -v clang++ >/dev/null; then
    export CC=clang CXX=clang++
    EXTRA+=(-DKILN_BUILD_FUZZERS=ON)
  fi
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fi

cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release "${EXTRA[@]}" >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)"
cd "$BUILD_DIR"
# The end-to-end tests run in both CPU driver modes (inline and deferred)
# by themselves; see tests/CMakeLists.txt.
ctest -j"$(nproc)" --output-on-failure
