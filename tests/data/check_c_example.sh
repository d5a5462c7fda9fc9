#!/usr/bin/env bash
# The C API example end to end: generates and compiles examples/mlp.mlir,
# runs examples/c_api/run_mlp on it, and compares its ten probabilities with
# the generator's own computation (gen_mlp.py --expect 1), then checks that
# a bad module file is refused through the C API with a message and its
# status code, and that --version prints the runtime's and the module
# format's versions. With LIB_DIR (the build folder holding the static
# libraries) it also builds the example out of tree with the link line
# docs/deploying.md gives (the shell block after its "out-of-tree link line"
# marker, run as written) and checks that binary the same way, on two CPU
# threads. LINK_FLAGS (optional) are added to each compiler call of that
# block: the sanitizer build's -fsanitize=... .
#   check_c_example.sh SOURCE_DIR KILN_COMPILE RUN_MLP WORK_DIR [LIB_DIR [LINK_FLAGS]]
set -euo pipefail
src=$1 compile=$2 run_mlp=$3 work=$4 lib_dir=${5:-} link_flags=${6:-}
mkdir -p "$work"
python3 "$src/examples/gen_mlp.py" "$work/mlp.mlir"
"$compile" "$work/mlp.mlir" -o "$work/mlp.kiln" --target=cpu 2>/dev/null
python3 "$src/examples/gen_mlp.py" --expect 1 >"$work/expect.out"

if [ -n "$lib_dir" ]; then
  block=$(awk '/<!-- out-of-tree link line/ {armed=1; next}
               armed && /^```sh$/ {inside=1; next}
               inside && /^```$/ {exit}
               inside {print}' "$src/docs/deploying.md")
  [ -n "$block" ] || { echo "docs/deploying.md has no out-of-tree link block" >&2; exit 1; }
  mkdir -p "$work/out_of_tree"
  # cc and c++ as the block calls them, with LINK_FLAGS added.
  (cd "$work/out_of_tree" && rm -f run_mlp run_mlp.o &&
   KILN="$src" B="$lib_dir" bash -ec "cc() { command cc $link_flags \"\$@\"; }; c++() { command c++ $link_flags \"\$@\"; }
$block")
  echo "built out of tree with docs/deploying.md's link line"
fi

check() {  # check RUN_MLP [DEVICE [CPU_THREADS]]: its output matches the generator's
  "$1" "$work/mlp.kiln" "${@:2}" >"$work/run_mlp.out"
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
}
check "$run_mlp"
version=$("$run_mlp" --version)
echo "$version" | grep -qE '^Kiln [0-9]+[.][0-9]+[.][0-9]+ [(]module format [0-9]+[.][0-9]+[)]$' ||
  { echo "unexpected --version output: $version" >&2; exit 1; }
echo "version: $version"

head -c 100 "$work/mlp.kiln" >"$work/truncated.kiln"
if "$run_mlp" "$work/truncated.kiln" 2>"$work/err.out"; then
  echo "a truncated module was accepted" >&2; exit 1
fi
# KILN_STATUS_DATA_LOSS is 15.
grep -q "run_mlp: loading the module: .*truncated or corrupted.* (status 15)" "$work/err.out" ||
  { cat "$work/err.out" >&2; exit 1; }
echo "truncated module refused: $(cat "$work/err.out")"

if [ -n "$lib_dir" ]; then
  check "$work/out_of_tree/run_mlp" cpu 2
fi
