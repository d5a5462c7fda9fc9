#!/usr/bin/env bash
# Measures Kiln beside the peers a user would otherwise pick, side by side in
# one run, with the same thread count: numpy on OpenBLAS and PyTorch eager.
#
#   bash benchmarks/compare_peers.sh [THREADS]      (default 2)
#
# Installs what it needs (Debian: python3-numpy, libopenblas0-pthread,
# python3-threadpoolctl, python3-torch) -- deliberately not part of
# scripts/setup.sh, so CI does not pay for torch -- builds Kiln (Release,
# benchmarks on) in build-bench/, then runs benchmarks/compare_peers.py,
# which prints a markdown table of medians and ratios (docs/performance.md).
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS="${1:-2}"
PY=/usr/bin/python3  # Debian's python, which sees Debian's numpy and torch

need=()
for pkg in python3-numpy libopenblas0-pthread python3-threadpoolctl python3-torch; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if ((${#need[@]})); then
  echo "installing ${need[*]}" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${need[@]}"
fi

export CMAKE_CXX_COMPILER_LAUNCHER="${CMAKE_CXX_COMPILER_LAUNCHER:-$(command -v ccache || true)}"
cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DKILN_BUILD_BENCHMARKS=ON \
  -DKILN_BUILD_TESTS=OFF >/dev/null
cmake --build build-bench -j2 --target kiln-kernel-bench kiln-compile vm-bench >/dev/null

exec "$PY" benchmarks/compare_peers.py --build build-bench --threads "$THREADS"
