#!/usr/bin/env bash
# Regenerates docs/ops.md from what the code does: runs the shared
# conformance suite on the CPU and on the Vulkan device (lavapipe where no GPU
# is present) with --op-status, then scripts/gen_ops_doc.py.
set -euo pipefail
cd "$(dirname "$0")/.."
SUITE=../shared/conformance/stablehlo-interpret
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target kiln-conformance
./build/tests/kiln-conformance "$SUITE" tests/data/ops --device=cpu --op-status=build/ops_cpu.tsv | tail -1
./build/tests/kiln-conformance "$SUITE" tests/data/ops --device=vulkan --op-status=build/ops_vulkan.tsv | tail -1
python3 scripts/gen_ops_doc.py ../shared/reference/stablehlo-spec.md docs/ops.md \
  cpu=build/ops_cpu.tsv vulkan=build/ops_vulkan.tsv
echo "wrote docs/ops.md"
