#!/usr/bin/env bash
# The soak check (docs/testing.md, "Soak"): compiles the MLP example for
# every target and calls it CALLS times through the C API with kiln-soak on
# DEVICE, which exits non-zero when the RSS, the open file descriptors, the
# threads or the device's live memory grow after warm-up.
# Further arguments go to kiln-soak.
#   check_soak.sh SOURCE_DIR KILN_COMPILE KILN_SOAK WORK_DIR DEVICE CALLS [ARG...]
set -euo pipefail
src=$1 compile=$2 soak=$3 work=$4 device=$5 calls=$6
shift 6
mkdir -p "$work"
python3 "$src/examples/gen_mlp.py" "$work/mlp.mlir"
"$compile" "$work/mlp.mlir" -o "$work/mlp.kiln" --target=all 2>/dev/null
"$soak" "$work/mlp.kiln" --device="$device" --calls="$calls" --samples=5 "$@"
