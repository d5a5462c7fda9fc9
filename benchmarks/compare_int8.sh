#!/bin/sh
# The int8 GEMM 1024^3 and the int8 convolutions beside Kiln's f32 rows and
# PyTorch's oneDNN int8 Linear and Conv2d, in one run (docs/performance.md,
# "int8 GEMM", "int8 convolution"). Usage, from the
# repository root after building kiln-kernel-bench (KILN_BUILD_BENCHMARKS=ON):
#   sh benchmarks/compare_int8.sh [build]
# The pool of the "2" rows is KILN_THREADS (default: one worker per core).
set -e
B=${1:-build}
"$B/kiln-kernel-bench" --benchmark_filter='BM_CpuDotGeneralInt8|BM_CpuDotGeneralF32/1024|BM_CpuDotGeneralF32Threads/1024|BM_CpuConvInt8|BM_CpuConv56x56Threads/[02]' \
  --benchmark_repetitions=5 --benchmark_report_aggregates_only=true 2>&1 | grep -E 'median'
# The peers' machines pin OpenBLAS to AVX2; the peer runs without the pin.
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 benchmarks/int8_peer.py 1 2
