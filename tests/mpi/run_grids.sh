#!/usr/bin/env bash
# Runs every conformance chunk that has an interpreter.run_parallel grid
# under `mpirun -np <grid size>` with vm-check (one grid process per rank),
# and checks that every test function passes. Open MPI as root needs
# --allow-run-as-root; --oversubscribe allows more ranks than cores.
#   run_grids.sh MPIRUN VM_CHECK KILN_CONFORMANCE CONFORMANCE_DIR WORK_DIR
set -euo pipefail
MPIRUN=$1 VM_CHECK=$2 RUNNER=$3 SUITE=$4 WORK=$5
FILES=(all_gather all_reduce all_to_all collective_broadcast collective_permute collective_reduce
       reduce_scatter replica_id partition_id send_recv infeed outfeed printing)
paths=()
for f in "${FILES[@]}"; do paths+=("$SUITE/$f.mlir"); done
"$RUNNER" "${paths[@]}" --emit="$WORK" >/dev/null
passed=0 expected=0 chunks=0
while read -r kiln ranks tests; do
  expected=$((expected + tests))
  chunks=$((chunks + 1))
  out=$("$MPIRUN" --allow-run-as-root --oversubscribe -np "$ranks" "$VM_CHECK" "$kiln" --collective-timeout=60 2>&1 </dev/null) || {
    echo "FAIL (exit status) mpirun -np $ranks vm-check $kiln"; echo "$out"; exit 1; }
  # vm-check adds ", N skipped" for public functions with arguments.
  summary=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' | sed -E 's/, [0-9]+ skipped$//' || true)
  if [ "$(echo "$summary" | wc -l)" != 1 ] || [ "$summary" != "$tests passed, 0 failed" ]; then
    echo "FAIL mpirun -np $ranks vm-check $kiln: expected '$tests passed, 0 failed' once (rank 0 only)"; echo "$out"; exit 1
  fi
  passed=$((passed + tests))
done < "$WORK/manifest.txt"
echo "mpi grids: $chunks chunks, $passed of $expected test functions passed"
[ "$passed" = "$expected" ] && [ "$chunks" -gt 0 ]
