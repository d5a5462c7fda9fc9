#!/usr/bin/env bash
# The data-parallel training step (examples/train_step/, docs/collectives.md):
# one process on the whole batch must match numpy; 2 replicas, each on half
# the batch with the gradients all_reduced, must match the one process.
#   check_train_step.sh PYTHON KILN_COMPILE VM_RUN WORK_DIR [MPIRUN]
# Without MPIRUN the replicas are threads of one vm-run; with it, 2 ranks.
set -euo pipefail
PY=$1 KC=$2 RUN=$3 WORK=$4 MPIRUN=${5:-}
HERE=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$WORK"
cd "$WORK"
"$PY" "$HERE/examples/train_step/gen_train_step.py" .
"$KC" train_step.mlir -o train_step.kiln
WEIGHTS=(--input=@w1.npy --input=@b1.npy --input=@w2.npy --input=@b2.npy)
"$RUN" train_step.kiln --function=step_whole "${WEIGHTS[@]}" --input=@x.npy --input=@t.npy \
  --expected-output=@numpy_w1.npy --expected-output=@numpy_b1.npy \
  --expected-output=@numpy_w2.npy --expected-output=@numpy_b2.npy --atol=1e-5 --rtol=1e-5 \
  --output=@whole_w1.npy --output=@whole_b1.npy --output=@whole_w2.npy --output=@whole_b2.npy \
  --print-max-elements=0
LAUNCH=()
[ -n "$MPIRUN" ] && LAUNCH=("$MPIRUN" --allow-run-as-root --oversubscribe -np 2)
"${LAUNCH[@]}" "$RUN" train_step.kiln --function=step --replicas=2 "${WEIGHTS[@]}" \
  --input=@x.{process}.npy --input=@t.{process}.npy \
  --expected-output=@whole_w1.npy --expected-output=@whole_b1.npy \
  --expected-output=@whole_w2.npy --expected-output=@whole_b2.npy --atol=1e-6 --rtol=1e-5 \
  --print-max-elements=0 </dev/null
