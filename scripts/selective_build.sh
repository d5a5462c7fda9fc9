#!/usr/bin/env bash
# A selective, minimal runtime for one module: only the kernels the module
# uses (KILN_KERNELS), the CPU device alone (no Vulkan), no collectives or
# process grids (KILN_WITH_COLLECTIVES=OFF), module globals only if the
# module has some (KILN_WITH_GLOBALS), one Highway target chosen at
# compile time, size-optimized with link-time optimization and section
# garbage collection. Builds the C API example (examples/c_api/run_mlp.c)
# against it and prints its stripped size.
#
#   scripts/selective_build.sh MODULE.kiln [x86_64|arm64]     (default x86_64)
#
# x86_64 targets AVX2 machines (x86-64-v3 with AES and CLMUL, which
# Highway's AVX2 target requires); arm64 targets NEON. Needs the host tools
# in build/ (scripts/test.sh or scripts/run_example.sh builds them) for
# vm-dump, which lists the module's kernels; arm64 needs scripts/setup.sh --arm64.
set -euo pipefail
cd "$(dirname "$0")/.."
module=${1:?usage: selective_build.sh MODULE.kiln [x86_64|arm64]}
arch=${2:-x86_64}

cmake --build build --target vm-dump >/dev/null
kernels=$(./build/vm-dump "$module" | awk '/^exe#/ { print $3 }' | sort -u | paste -sd ';')  # "exe#N: kernel NAME ..."
[ -n "$kernels" ] || { echo "selective_build: $module uses no kernels" >&2; exit 1; }
# A contraction with its requantize folded in (product_* attributes,
# docs/quantization.md) requantizes through uniform_quantize's code.
if ./build/vm-dump "$module" | grep -q "product_scales="; then
  kernels=$(printf '%s\n' "$kernels" stablehlo.uniform_quantize | tr ';' '\n' | sort -u | paste -sd ';')
fi
# A row block runs its units through their own kernels where its fast path
# does not apply (docs/kernels.md, "Row blocks"): they are built in with it.
case ";$kernels;" in
  *";kiln.row_block;"*)
    kernels=$(printf '%s\n' "$kernels" kiln.elementwise stablehlo.reduce stablehlo.broadcast_in_dim stablehlo.reshape |
      tr ';' '\n' | sort -u | paste -sd ';') ;;
esac

# Module globals (ml_program.global) only when the module has some.
globals=OFF
if ./build/vm-dump "$module" | grep -q "^global#"; then globals=ON; fi

flags="-ffunction-sections -fdata-sections -DHWY_COMPILE_ONLY_STATIC=1"
extra=()
strip=strip
case "$arch" in
  x86_64) flags="$flags -march=x86-64-v3 -mpclmul -maes" ;;
  arm64) extra=(--toolchain cmake/aarch64-linux-gnu.cmake); strip=aarch64-linux-gnu-strip ;;
  *) echo "selective_build: unknown architecture '$arch'" >&2; exit 1 ;;
esac
dir=build-selective-$arch
cmake -S . -B "$dir" -G Ninja "${extra[@]}" -DCMAKE_BUILD_TYPE=MinSizeRel \
  -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=ON -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-Wl,--gc-sections" -DKILN_KERNELS="$kernels" \
  -DKILN_ENABLE_VULKAN=OFF -DKILN_WITH_GLOBALS=$globals -DKILN_WITH_COLLECTIVES=OFF -DKILN_WITH_MPI=OFF -DKILN_BUILD_SHARED=OFF \
  -DKILN_BUILD_COMPILER=OFF -DKILN_BUILD_TOOLS=OFF -DKILN_BUILD_TESTS=OFF >/dev/null
cmake --build "$dir" -j"$(nproc)" --target kiln-example-run-mlp >/dev/null
"$strip" -o "$dir/run_mlp.stripped" "$dir/kiln-example-run-mlp"
echo "selective_build: kernels $kernels"
echo "selective_build: $dir/run_mlp.stripped ($arch): $(stat -c %s "$dir/run_mlp.stripped") bytes stripped"
