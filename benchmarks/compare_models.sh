#!/usr/bin/env bash
# The model suite (examples/models/) in Kiln beside PyTorch eager and ONNX
# Runtime, side by side in one run, at 1 and 2 threads, batch 1 and 64.
#
#   bash benchmarks/compare_models.sh [compare_models.py options]
#       (e.g. --threads 1,2 --rounds 5 --models transformer,gru)
#
# Installs what it needs -- Debian's python3-numpy, libopenblas0-pthread, python3-torch,
# python3-onnx, nodejs and npm, and npm's onnxruntime-node into
# build-peers/node (git-ignored) -- deliberately not part of
# scripts/setup.sh, so CI does not pay for torch; builds Kiln (Release) in
# build-bench/, then runs benchmarks/compare_models.py, which checks that
# the three runtimes agree with numpy and prints a markdown table of medians
# and per-round ratios (docs/performance.md, "Models").
set -euo pipefail
cd "$(dirname "$0")/.."
PY=/usr/bin/python3  # Debian's python, which sees Debian's numpy, torch and onnx

need=()
# libopenblas0-pthread: Debian's torch is built against the generic BLAS
# (BLAS_INFO=generic); without OpenBLAS installed as that BLAS, its matmuls run
# netlib's reference loops (0.3 GFLOP/s here) and torch's rows mean nothing.
for pkg in python3-numpy libopenblas0-pthread python3-torch python3-onnx; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
# Node and npm by command, not by package: a nodejs from another source
# (NodeSource's) bundles npm and conflicts with Debian's npm package.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  need+=(nodejs npm)
fi
if ((${#need[@]})); then
  echo "installing ${need[*]}" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${need[@]}"
fi
if [ ! -d build-peers/node/node_modules/onnxruntime-node ]; then
  mkdir -p build-peers/node
  # --ignore-scripts: the package carries its CPU binaries; its install
  # script only fetches the CUDA provider (from nuget), which we don't use.
  (cd build-peers/node && npm install --no-audit --no-fund --ignore-scripts onnxruntime-node >&2)
fi

export CMAKE_CXX_COMPILER_LAUNCHER="${CMAKE_CXX_COMPILER_LAUNCHER:-$(command -v ccache || true)}"
cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DKILN_BUILD_BENCHMARKS=ON \
  -DKILN_BUILD_TESTS=OFF >/dev/null
cmake --build build-bench -j2 --target kiln-compile vm-bench vm-run >/dev/null

exec "$PY" -W ignore benchmarks/compare_models.py --build build-bench --work build-peers "$@"
