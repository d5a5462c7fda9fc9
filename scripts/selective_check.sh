#!/usr/bin/env bash
# CI check of the selective, minimal runtime (scripts/selective_build.sh):
# builds it for examples/mlp.mlir, runs the C API example on it against the
# generator's own numbers (tests/data/check_c_example.sh), requires the
# stripped binary to stay within 400 KB (docs/deploying.md says what it
# holds), and requires a module that needs a
# kernel outside the selection to be refused by name, and one with module
# globals (which mlp.kiln lacks) to be refused too.
set -euo pipefail
cd "$(dirname "$0")/.."
work=build/selective-check
mkdir -p "$work"
cmake --build build --target kiln-compile vm-dump >/dev/null
python3 examples/gen_mlp.py "$work/mlp.mlir"
./build/kiln-compile "$work/mlp.mlir" -o "$work/mlp.kiln" --target=cpu 2>/dev/null
bash scripts/selective_build.sh "$work/mlp.kiln" x86_64
bin=build-selective-x86_64/run_mlp.stripped
bash tests/data/check_c_example.sh "$PWD" "$PWD/build/kiln-compile" "$PWD/$bin" "$work/example"
size=$(stat -c %s "$bin")
if [ "$size" -gt 409600 ]; then
  echo "selective_check: $bin is $size bytes, over 400 KB" >&2; exit 1
fi
./build/kiln-compile examples/spec_program.mlir -o "$work/spec.kiln" --target=cpu 2>/dev/null
if "$bin" "$work/spec.kiln" 2>"$work/refused.txt"; then
  echo "selective_check: a module needing stablehlo.dot ran on a runtime built without it" >&2; exit 1
fi
grep -q "no kernel 'stablehlo.dot'.*selective build" "$work/refused.txt" || { cat "$work/refused.txt" >&2; exit 1; }
# mlp.kiln has no module globals, so the runtime is built without them and
# refuses a module that has some, saying so.
printf '%s\n' 'ml_program.global private mutable @g(dense<1.0> : tensor<f32>) : tensor<f32>' \
  'func.func @main() -> tensor<f32> {' '  %0 = ml_program.global_load @g : tensor<f32>' '  return %0 : tensor<f32>' '}' \
  >"$work/globals.mlir"
./build/kiln-compile "$work/globals.mlir" -o "$work/globals.kiln" --target=cpu 2>/dev/null
if "$bin" "$work/globals.kiln" 2>"$work/refused.txt"; then
  echo "selective_check: a module with globals ran on a runtime built without them" >&2; exit 1
fi
grep -q "the module has globals, which this runtime is built without" "$work/refused.txt" || { cat "$work/refused.txt" >&2; exit 1; }
echo "selective_check: $size bytes stripped; mlp matches; other kernels and module globals refused by name"
