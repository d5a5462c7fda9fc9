#!/bin/sh
# Kiln's bf16 matmul and convolution beside PyTorch's oneDNN bf16 kernels and
# Kiln's own f32 rows, in one run (docs/performance.md, "bf16 GEMM"):
# dot_general 1024^3 (bf16 operands; f32 and bf16 results; f32 operands)
# and the 1x56x56x64 -> 64 3x3 convolution NHWC (bf16 and f32), each at 1
# and 2 threads: vm-bench medians (20 calls). Usage, from the repository
# root after building:
#   sh benchmarks/compare_bf16.sh [build]
set -e
B=${1:-build}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
for t in bf16 f32; do
  for r in f32 $t; do
    cat > "$D/dot_${t}_$r.mlir" <<MLIR
func.func @main(%a: tensor<1024x1024x$t>, %b: tensor<1024x1024x$t>) -> tensor<1024x1024x$r> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<1024x1024x$t>, tensor<1024x1024x$t>) -> tensor<1024x1024x$r>
  return %0 : tensor<1024x1024x$r>
}
MLIR
  done
  cat > "$D/conv_$t.mlir" <<MLIR
func.func @main(%x: tensor<1x56x56x64x$t>, %w: tensor<3x3x64x64x$t>) -> tensor<1x56x56x64x$t> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x56x56x64x$t>, tensor<3x3x64x64x$t>) -> tensor<1x56x56x64x$t>
  return %0 : tensor<1x56x56x64x$t>
}
MLIR
done
for f in "$D"/*.mlir; do "$B/kiln-compile" "$f" -o "${f%.mlir}.kiln" --target=cpu; done
for th in 1 2; do
  for m in dot_bf16_f32 dot_bf16_bf16 dot_f32_f32; do
    t=${m#dot_}; t=${t%_*}
    printf 'kiln %-14s 1024^3 threads=%s: ' "$m" "$th"
    "$B/vm-bench" "$D/$m.kiln" --input=1024x1024x$t=0.5 --input=1024x1024x$t=0.25 --iterations=20 --threads=$th | head -1 | sed 's/.*runs, //'
  done
  for t in bf16 f32; do
    printf 'kiln conv_%-9s 56x56x64 threads=%s: ' "$t" "$th"
    "$B/vm-bench" "$D/conv_$t.kiln" --input=1x56x56x64x$t=0.5 --input=3x3x64x64x$t=0.25 --iterations=20 --threads=$th | head -1 | sed 's/.*runs, //'
  done
done
# The peers' machines pin OpenBLAS to AVX2; the peer runs without the pin.
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 benchmarks/bf16_peer.py 1 2
