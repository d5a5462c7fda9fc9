#!/usr/bin/env bash
# The arm64 check: cross-builds the runtime, the tools and the runtime's unit
# tests for aarch64 (cmake/aarch64-linux-gnu.cmake, scripts/setup.sh --arm64),
# runs the unit tests under qemu-aarch64 (an SVE CPU with 128-bit vectors,
# every Highway target; the kernel tests again with 512-bit vectors; the
# int8 kernels again on CPUs with fewer features), then shows that module files are
# portable: compiles the shared conformance suite once on this x86-64 machine
# and runs vm-check on every module natively and under qemu-aarch64.
#
#   scripts/arm64_check.sh [FILE.mlir ...]   (default: every file of the suite)
#
# Builds the x86-64 tools in build/ as scripts/test.sh does. Prints both
# counts and exits non-zero unless the two runs print the same PASS/FAIL line
# for every test function of every module, tests/data/integer_ops.mlir
# gives identical results, and the MLP with external weights gives the bits
# it gives with inline constants on each machine.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SUITE=$ROOT/../shared/conformance/stablehlo-interpret
HOST=$ROOT/build
ARM=$ROOT/build-arm64
WORK=$ARM/conformance
QEMU=(qemu-aarch64 -L /)   # loader and libraries of Debian multiarch; see the toolchain file

bash scripts/setup.sh --arm64
cmake -S . -B "$ARM" -G Ninja --toolchain cmake/aarch64-linux-gnu.cmake \
  -DCMAKE_BUILD_TYPE=Release -DKILN_BUILD_COMPILER=OFF -DKILN_BUILD_TESTS=ON >/dev/null
cmake --build "$ARM" -j"$(nproc)"
# The runtime's unit tests (kernels against kernels/reference, the VM) under
# qemu's max CPU with 128-bit SVE vectors, where ForEachTarget (tests/kernels/
# cpu/hwy_test_util.h) runs each Highway kernel test on every target compiled
# in (SVE2_128, SVE2, SVE, NEON) against one run of the reference. A kernel
# test against the reference is slow under the emulator, hence the long
# per-test limit; each test binary runs as a few shards, one process each
# (kiln_add_gtests in tests/CMakeLists.txt).
echo "arm64 unit tests under qemu-aarch64 -cpu max, 128-bit SVE (every Highway target):"
if ! (cd "$ARM" && QEMU_CPU=max,sve-default-vector-length=16 ctest -j"$(nproc)" --timeout 1200 \
        --output-on-failure >"$ARM/ctest-max.log" 2>&1); then
  cat "$ARM/ctest-max.log"; exit 1
fi
grep -E "tests passed" "$ARM/ctest-max.log"
# Longer vectors: the kernel tests again with 512-bit SVE (qemu's default
# length for its max CPU; 16 f32 lanes, as AVX-512), on the best target
# (SVE2), which catches code that assumes a lane count. Not the
# contractions (dot_general, convolution and their packed weights): the
# emulator runs their SVE multiply-add loops about 20 times slower per lane
# at 256 bits and more than at 128 (the unit tests took 472 s at 512 bits,
# 124 s at 128), and their panel widths at 16 lanes are those the x86-64
# build's AVX-512 target runs natively.
echo "arm64 kernel tests under qemu-aarch64 -cpu max, 512-bit SVE (best target, no contractions):"
LONG_FILTER='-CpuDotGeneral*:CpuConvolution*:CpuKernelState*'
SHARDS=4
for ((shard = 0; shard < SHARDS; shard += $(nproc))); do
  pids=()
  for ((s = shard; s < shard + $(nproc) && s < SHARDS; ++s)); do
    GTEST_TOTAL_SHARDS=$SHARDS GTEST_SHARD_INDEX=$s KILN_TEST_BEST_TARGET_ONLY=1 QEMU_CPU=max \
      "${QEMU[@]}" "$ARM/tests/kiln_cpu_test" --gtest_brief=1 --gtest_filter="$LONG_FILTER" \
      >"$ARM/sve512-$s.log" 2>&1 &
    pids+=($!)
  done
  for ((i = 0; i < ${#pids[@]}; ++i)); do
    if ! wait "${pids[i]}"; then
      cat "$ARM/sve512-$((shard + i)).log"; echo "arm64_check: kernel tests failed with 512-bit SVE" >&2; exit 1
    fi
  done
done
for ((s = 0; s < SHARDS; ++s)); do
  echo "  shard $s: $(grep -E '^\[=+\].*ran' "$ARM/sve512-$s.log")"
done
# What the CPU model decides beyond Highway's target: the int8 GEMM's form,
# by the CPU's features (kernels/cpu/gemm_int8.cc). SMMLA (I8MM) ran above
# on qemu's max CPU; here SDOT (a Cortex-A76: dot product, no I8MM) and the
# widening form (a Cortex-A57, NEON alone), side by side, with the check
# that Highway's dispatch picks NEON on a CPU without SVE.
INT8_TESTS='CpuDotGeneralInt8.*:CpuConvolutionInt8.*:CpuHighwayTargets.*'
declare -A int8_pids
for cpu in cortex-a76 cortex-a57; do
  QEMU_CPU=$cpu "${QEMU[@]}" "$ARM/tests/kiln_cpu_test" --gtest_brief=1 \
    --gtest_filter="$INT8_TESTS" >"$ARM/int8-$cpu.log" 2>&1 &
  int8_pids[$cpu]=$!
done
for cpu in cortex-a76 cortex-a57; do
  wait "${int8_pids[$cpu]}" || { cat "$ARM/int8-$cpu.log"; echo "arm64_check: int8 kernel tests failed on $cpu" >&2; exit 1; }
done
for cpu in cortex-a76 cortex-a57; do
  echo "arm64 int8 kernel tests under qemu-aarch64 -cpu $cpu: $(tail -1 "$ARM/int8-$cpu.log")"
done
# The x86-64 tools, in the release build directory that scripts/test.sh uses
# (configured the same way, so that its later build reuses this work).
cmake -S . -B "$HOST" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$HOST" -j"$(nproc)" --target kiln-compile vm-check vm-run

files=("$@")
if [ ${#files[@]} -eq 0 ]; then files=("$SUITE"/*.mlir "$SUITE"/chlo/*.mlir); fi

rm -rf "$WORK"; mkdir -p "$WORK"
# Split every file into its chunks (separated by lines `// -----`).
for f in "${files[@]}"; do
  base=$(basename "$(dirname "$f")")_$(basename "$f" .mlir)
  awk -v out="$WORK/$base" 'BEGIN { n = 0; file = sprintf("%s.%03d.mlir", out, n) }
       /^\/\/ -----/ { close(file); n++; file = sprintf("%s.%03d.mlir", out, n); next }
       { print > file }' "$f"
done

# Compile once, here. A chunk the compiler refuses (an op or type not
# supported yet) has no module and so runs nowhere; it is counted apart.
compiled=0; refused=0
for m in "$WORK"/*.mlir; do
  if "$HOST/kiln-compile" "$m" -o "${m%.mlir}.kiln" --no-fold --target=cpu >/dev/null 2>"${m%.mlir}.err"; then
    compiled=$((compiled + 1))
  else
    refused=$((refused + 1))
  fi
done

# Run the modules on both machines, in as many batches as there are cores:
# one vm-check process per batch (a process start under qemu costs about
# 0.2 s, more than most modules take to run); each module's PASS/FAIL lines
# follow its "== PATH" line. A batch whose last line is not vm-check's
# "N modules: ..." sum crashed partway.
mapfile -t modules < <(ls "$WORK"/*.kiln)
batches=$(nproc)
per_batch=$(( (${#modules[@]} + batches - 1) / batches ))
for ((i = 0; i < batches; i++)); do
  part=("${modules[@]:i*per_batch:per_batch}")
  [ ${#part[@]} -eq 0 ] && continue
  ( "$HOST/vm-check" "${part[@]}" >"$WORK/batch$i.x86" 2>&1 || true
    "${QEMU[@]}" "$ARM/vm-check" "${part[@]}" >"$WORK/batch$i.arm64" 2>&1 || true ) &
done
wait
for out in "$WORK"/batch*.x86 "$WORK"/batch*.arm64; do
  if ! tail -1 "$out" | grep -qE "^[0-9]+ modules"; then
    echo "arm64_check: vm-check did not finish its batch ($out):" >&2; tail -5 "$out" >&2; exit 1
  fi
done

count() { cat "$WORK"/*."$1" | grep -cE "^$2 " || true; }
x86_pass=$(count x86 PASS); x86_fail=$(count x86 FAIL)
arm_pass=$(count arm64 PASS); arm_fail=$(count arm64 FAIL)
echo "arm64_check: ${#files[@]} files, $compiled modules compiled on x86-64, $refused chunks refused by the compiler"
echo "x86-64 (native):      $x86_pass passed, $x86_fail failed"
echo "arm64 (qemu-aarch64): $arm_pass passed, $arm_fail failed"

# Integer ops over pseudo-random run-time inputs (division by zero, shifts
# past the bit width and wraparound included): results must be identical.
vals() {  # N SEED MOD OFFSET: N integers in [-OFFSET, MOD-OFFSET), Park-Miller draws
  awk -v n="$1" -v seed="$2" -v mod="$3" -v off="$4" 'BEGIN { x = seed
    for (i = 0; i < n; i++) { x = (x * 16807) % 2147483647; y = x; x = (x * 16807) % 2147483647
      printf("%s%d", i ? "," : "", ((y % 65536) * 65536 + (x % 65536)) % mod - off) } }'
}
"$HOST/kiln-compile" tests/data/integer_ops.mlir -o "$WORK/integer_ops.bin" --no-fold --target=cpu 2>/dev/null
INPUTS=(--input=64xi32="$(vals 64 1 4294967296 2147483648)" --input=64xi32="$(vals 64 7 70 35)"
        --input=64xi64="$(vals 64 3 4294967296 2147483648)" --input=64xui8="$(vals 64 5 256 0)")
"$HOST/vm-run" "$WORK/integer_ops.bin" "${INPUTS[@]}" >"$WORK/integer_ops.x86"
"${QEMU[@]}" "$ARM/vm-run" "$WORK/integer_ops.bin" "${INPUTS[@]}" >"$WORK/integer_ops.arm64"
if ! cmp -s "$WORK/integer_ops.x86" "$WORK/integer_ops.arm64"; then
  echo "arm64_check: tests/data/integer_ops.mlir gives different results on arm64:" >&2
  diff "$WORK/integer_ops.x86" "$WORK/integer_ops.arm64" | head -5 >&2
  exit 1
fi
echo "integer_ops.mlir: $(wc -l <"$WORK/integer_ops.x86") results bit-identical on x86-64 and arm64"

# External weights (docs/parameters.md): the MLP with its weights in a
# safetensors file gives the bits the same MLP with inline constants gives,
# on each machine (float results may differ between the two machines' SIMD
# targets, so each is compared with itself).
python3 examples/gen_mlp.py "$WORK/mlp.src"
"$HOST/kiln-compile" "$WORK/mlp.src" -o "$WORK/mlp_inline.bin" --target=cpu
"$HOST/kiln-compile" "$WORK/mlp.src" -o "$WORK/mlp_ext.bin" --target=cpu --externalize=1K \
  --params-out="$WORK/mlp.safetensors"
MLP_IN=(--input="$(python3 examples/gen_mlp.py --input 1)")
for m in x86 arm64; do
  run=("$HOST/vm-run"); [ "$m" = arm64 ] && run=("${QEMU[@]}" "$ARM/vm-run")
  "${run[@]}" "$WORK/mlp_inline.bin" "${MLP_IN[@]}" >"$WORK/mlp_inline.$m"
  "${run[@]}" "$WORK/mlp_ext.bin" "${MLP_IN[@]}" --parameters="$WORK/mlp.safetensors" >"$WORK/mlp_ext.$m"
  if ! cmp -s "$WORK/mlp_inline.$m" "$WORK/mlp_ext.$m" || [ ! -s "$WORK/mlp_inline.$m" ]; then
    echo "arm64_check: the MLP with external weights differs from inline constants on $m" >&2
    exit 1
  fi
done
echo "mlp: external weights bit-identical to inline constants on x86-64 and on arm64"

differ=0
for x86 in "$WORK"/batch*.x86; do
  arm=${x86%.x86}.arm64
  if ! diff <(grep -E '^(==|PASS|FAIL) ' "$x86") <(grep -E '^(==|PASS|FAIL) ' "$arm") >"$WORK/differs.txt"; then
    echo "differs (x86-64 <, arm64 >):"; head -10 "$WORK/differs.txt"
    differ=$((differ + 1))
  fi
done
if [ "$differ" -ne 0 ] || [ "$x86_pass" -ne "$arm_pass" ]; then
  echo "arm64_check: $differ batches of modules differ between x86-64 and arm64" >&2
  exit 1
fi
echo "arm64_check: identical results on x86-64 and arm64"
