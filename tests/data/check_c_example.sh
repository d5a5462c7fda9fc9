#!/usr/bin/env bash
# The C API example end to end: generates and compiles examples/mlp.mlir,
# runs examples/c_api/run_mlp on it, and compares its ten probabilities with
# the generator's own computation (gen_mlp.py --expect 1), then checks that
# a bad module file is refused through the C API with a message.
#   check_c_example.sh SOURCE_DIR KILN_COMPILE RUN_MLP WORK_DIR
set -euo pipefail
src=$1 compile=$2 run_mlp=$3 work=$4
mkdir -p "$work"
python3 "$src/examples/gen_mlp.py" "$work/mlp.mlir"
"$compile" "$work/mlp.mlir" -o "$work/mlp.kiln" --target=cpu 2>/dev/null
"$run_mlp" "$work/mlp.kiln" >"$work/run_mlp.out"
python3 "$src/examples/gen_mlp.py" --expect 1 >"$work/expect.out"
python3 - "$work/run_mlp.out" "$work/expect.out" <<'PY'
import sys
got = open(sys.argv[1]).read().split()
want = [float(x) for x in open(sys.argv[2]).read().split()]
assert got[-2] == "class", got
probs = [float(x) for x in got[:-2]]
assert len(probs) == 10 == len(want), (probs, want)
bad = [(k, p, w) for k, (p, w) in enumerate(zip(probs, want)) if abs(p - w) > 1e-5]
assert not bad, bad
best = max(range(10), key=lambda k: want[k])
assert int(got[-1]) == best, (got[-1], best)
print("run_mlp matches the generator: class", best)
PY
head -c 100 "$work/mlp.kiln" >"$work/truncated.kiln"
if "$run_mlp" "$work/truncated.kiln" 2>"$work/err.out"; then
  echo "a truncated module was accepted" >&2; exit 1
fi
grep -q "run_mlp: loading the module: .*truncated or corrupted" "$work/err.out" || { cat "$work/err.out" >&2; exit 1; }
echo "truncated module refused: $(cat "$work/err.out")"
