#!/usr/bin/env bash
# Installs a build into a fresh prefix and builds tests/install/consumer, a
# project outside the tree, against it with find_package(Kiln CONFIG) and
# pkg-config (docs/embedding.md, "Installing"), then runs what it built:
# the C++ API compiling and running a function in-process, and the C API
# example on the static minimal runtime and on libkiln.so, and again through
# vm/kiln.hpp (C++17) on libkiln.so, each compared with the in-tree
# example's output.
#   check_install.sh SOURCE_DIR BUILD_DIR WORK_DIR RUN_MLP MODULE.kiln
set -euo pipefail
src=$1 build=$2 work=$3 run_mlp=$4 module=$5
rm -rf "$work" && mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
for f in include/kiln/vm/kiln.h include/kiln/vm/kiln.hpp include/kiln/vm/context.h include/kiln/kiln_version.h \
         include/kiln/schema/module_generated.h lib/libkiln.so lib/libkiln_vm_core.a \
         lib/cmake/Kiln/KilnConfig.cmake lib/cmake/Kiln/KilnConfigVersion.cmake lib/pkgconfig/kiln.pc \
         bin/kiln-compile bin/vm-run; do
  [ -e "$prefix/$f" ] || { echo "not installed: $f" >&2; exit 1; }
done
# libkiln.so exports the C API and nothing else.
others=$(nm -D --defined-only "$prefix/lib/libkiln.so" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | grep -v '^kiln_' || true)
[ -z "$others" ] || { echo "libkiln.so exports more than kiln_*:" >&2; echo "$others" | head >&2; exit 1; }
echo "installed: $(find "$prefix" -type f | wc -l) files; libkiln.so exports $(nm -D --defined-only "$prefix/lib/libkiln.so" | grep -c ' kiln_') kiln_* symbols"

PKG_CONFIG_PATH="$prefix/lib/pkgconfig" cmake -S "$src/tests/install/consumer" -B "$work/consumer" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" -DKILN_SOURCE_DIR="$src" \
  ${CONSUMER_CMAKE_ARGS:-} >"$work/configure.log" || { cat "$work/configure.log" >&2; exit 1; }
cmake --build "$work/consumer" >"$work/build.log" || { cat "$work/build.log" >&2; exit 1; }
echo "consumer project built against the installed tree"

"$work/consumer/compile_and_run"
"$run_mlp" "$module" >"$work/want.out"
for exe in run_mlp_minimal run_mlp_shared run_mlp_hpp; do
  "$work/consumer/$exe" "$module" >"$work/$exe.out"
  cmp -s "$work/want.out" "$work/$exe.out" || { echo "$exe differs from the in-tree example" >&2; diff "$work/want.out" "$work/$exe.out" >&2; exit 1; }
  echo "$exe: same output as the in-tree example ($(tail -c 40 "$work/$exe.out" | tr '\n' ' '))"
done
# The shared one really uses libkiln.so. (ldd's output is captured first:
# under pipefail, `ldd | grep -q` fails whenever grep exits before ldd has
# written its last line and ldd dies of SIGPIPE, which happened under load.)
libs=$(ldd "$work/consumer/run_mlp_shared")
grep -q "libkiln.so" <<<"$libs" || { echo "run_mlp_shared does not load libkiln.so:" >&2; echo "$libs" >&2; exit 1; }
# The Python package, where the build has it: importable from the prefix.
init=$(find "$prefix" -path '*/kiln/__init__.py' | head -1)
if [ -n "$init" ]; then
  PYTHONPATH=$(dirname "$(dirname "$init")") /usr/bin/python3 -c '
import kiln, numpy as np
m = kiln.load(kiln.compile("func.func public @f(%a: tensor<3xf32>) -> tensor<3xf32> {\n  %0 = stablehlo.add %a, %a : tensor<3xf32>\n  return %0 : tensor<3xf32>\n}\n", target="cpu"))
assert kiln.__file__.startswith("'"$prefix"'"), kiln.__file__
np.testing.assert_array_equal(m.f(np.arange(3, dtype=np.float32)), [0, 2, 4])
print("python package: imported from the install prefix and ran")'
fi
# docs/embedding.md's complete C program, against libkiln.so through kiln.pc.
awk '/<!-- embedding example/ {armed=1; next}
     armed && /^```c$/ {inside=1; next}
     inside && /^```$/ {exit}
     inside {print}' "$src/docs/embedding.md" >"$work/embedding.c"
[ -s "$work/embedding.c" ] || { echo "docs/embedding.md has no example block" >&2; exit 1; }
PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
export PKG_CONFIG_PATH
# shellcheck disable=SC2046
cc -Wall -Werror -o "$work/embedding" "$work/embedding.c" $(pkg-config --cflags --libs kiln) -Wl,-rpath,"$prefix/lib"
(cd "$work" && cp "$module" mlp.kiln && ./embedding >embedding.out) || { cat "$work/embedding.out" >&2; exit 1; }
grep -q "^p\[0\] = " "$work/embedding.out" && grep -q "stablehlo.dot_general" "$work/embedding.out" &&
  /usr/bin/python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['traceEvents']; assert any(x.get('cat')=='dispatch' for x in e)" "$work/trace.json" ||
  { cat "$work/embedding.out" >&2; exit 1; }
echo "docs/embedding.md's example: built with pkg-config, ran, wrote a trace"
# Its asynchronous example (section "Asynchronous calls, cancellation and
# deadlines"), the same way: the async result is the sync one's.
awk '/<!-- async example/ {armed=1; next}
     armed && /^```c$/ {inside=1; next}
     inside && /^```$/ {exit}
     inside {print}' "$src/docs/embedding.md" >"$work/embedding_async.c"
[ -s "$work/embedding_async.c" ] || { echo "docs/embedding.md has no async example block" >&2; exit 1; }
# shellcheck disable=SC2046
cc -Wall -Werror -o "$work/embedding_async" "$work/embedding_async.c" $(pkg-config --cflags --libs kiln) -Wl,-rpath,"$prefix/lib"
(cd "$work" && ./embedding_async >embedding_async.out) || { cat "$work/embedding_async.out" >&2; exit 1; }
sync_p0=$(sed -n 's/^p\[0\] = //p' "$work/embedding.out")
grep -qx "async p\[0\] = $sync_p0" "$work/embedding_async.out" &&
  grep -Eq "^cancelled call: (.*cancelled.*|ended first)$" "$work/embedding_async.out" ||
  { echo "docs/embedding.md's async example: unexpected output" >&2; cat "$work/embedding_async.out" >&2; exit 1; }
echo "docs/embedding.md's async example: built with pkg-config, ran, same result as the sync call"
