#!/usr/bin/env bash
# ThreadSanitizer over the tests of threads: the C API's asynchronous calls,
# threads on one session and on sessions sharing a device (inline and
# deferred CPU drivers), the in-process collectives, the thread pool and the
# HAL's semaphores (docs/testing.md, "ThreadSanitizer").
#
# build-tsan/ holds the runtime without the compiler, at -O1; the release
# build's kiln-compile (built in build/ if missing, as scripts/test.sh
# configures it) compiles the tests' modules. Exits non-zero on any report.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=$(nproc)

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$JOBS" --target kiln-compile
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKILN_TSAN=ON \
  -DKILN_BUILD_COMPILER=OFF -DKILN_ENABLE_VULKAN=OFF -DKILN_BUILD_TOOLS=OFF -DKILN_BUILD_SHARED=OFF \
  -DKILN_HOST_COMPILE="$PWD/build/kiln-compile" >/dev/null
TESTS=(kiln_tsan_test kiln_vm_test kiln_hal_cpu_test kiln_hal_cts_test)
cmake --build build-tsan -j"$JOBS" --target "${TESTS[@]}"

export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
failed=()
run() {
  local label=$1; shift
  echo "--- tsan: $label"
  if ! "$@" --gtest_brief=1; then failed+=("$label"); fi
}
run "C API threads (inline CPU driver)" build-tsan/tests/kiln_tsan_test
KILN_CPU_MODE=deferred run "C API threads (deferred CPU driver)" build-tsan/tests/kiln_tsan_test
run "collectives and VM" build-tsan/tests/kiln_vm_test
run "thread pool" build-tsan/tests/kiln_hal_cpu_test
run "HAL conformance (semaphores, queues)" build-tsan/tests/kiln_hal_cts_test
if [ ${#failed[@]} -gt 0 ]; then
  echo "tsan: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "tsan: every test binary passed with no report"
