#!/usr/bin/env bash
# Kiln's Vulkan device beside the lavapipe harness of ../shared/peers/vulkan,
# side by side in one run: dot_general f32 1024^3 (and 512^3) against the
# harness's best GEMM variants, its elementwise chain and row sums against
# its best variants of those (in rounds), and examples/mlp.mlir on Vulkan
# against the CPU device (docs/performance.md, "Vulkan device (lavapipe)").
#
#   bash benchmarks/vulkan_gemm.sh [BUILD_DIR] [WORK_DIR]
#
# BUILD_DIR (default build) must hold kiln-compile and vm-bench. The harness
# is copied into WORK_DIR/peers (default: a fresh temporary folder) and built
# there with its own build.sh, limited to the variants compared here, so the
# shared copy is only read. KILN_PEERS_VULKAN overrides where it is read from.
# lavapipe splits each dispatch between 2 workers; on a busy machine one may
# do all the work, so compare ratios from the same run (and the harness's
# cpu_ms column).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="$(cd "${1:-build}" && pwd)"
WORK="${2:-$(mktemp -d)}"
mkdir -p "$WORK"
WORK="$(cd "$WORK" && pwd)"
PEERS="${KILN_PEERS_VULKAN:-../shared/peers/vulkan}"
VARIANTS="${KILN_PEER_VARIANTS:-gemm_glob_t8x8_wg8x1 gemm_glob_t8x8_wg8x1_tex gemm_glob_t16x8_wg8x4_tex gemm_glob_t32x32_wg8x1_tex ew_vec4_texin_wg1024 ew_vec4x4_texin_wg256 red_subgroup_wg8_tex red_row_wg8_tex}"

rm -rf "$WORK/peers"
cp -r "$PEERS" "$WORK/peers"
chmod -R u+w "$WORK/peers"
rm -rf "$WORK/peers/build" "$WORK/peers/results"
# Keep only the compared variants (build.sh compiles every line of variants.txt).
python3 - "$WORK/peers/variants.txt" $VARIANTS <<'PY'
import sys
path, keep = sys.argv[1], set(sys.argv[2:])
lines = open(path).read().splitlines()
out = [l for l in lines if l.split() and l.split()[0] in keep]
missing = keep - {l.split()[0] for l in out}
if missing: sys.exit("variants not in the harness: " + " ".join(sorted(missing)))
open(path, "w").write("\n".join(out) + "\n")
PY
(cd "$WORK/peers" && ./build.sh >/dev/null)

exec python3 benchmarks/vulkan_gemm.py --build "$BUILD" --work "$WORK" --variants $VARIANTS
