#!/usr/bin/env bash
# Sets up, builds the compiler and every tool (kiln-compile, vm-run,
# vm-check, vm-dump, vm-bench: README's commands run them from build/),
# compiles examples/mlp.mlir and runs @main on the CPU device with a
# deterministic nonzero input, printing the result.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target kiln-compile vm-run vm-check vm-dump vm-bench
python3 examples/gen_mlp.py examples/mlp.mlir
./build/kiln-compile examples/mlp.mlir -o build/mlp.kiln --target=cpu
./build/vm-run build/mlp.kiln --function=main --input="$(python3 examples/gen_mlp.py --input 1)"
