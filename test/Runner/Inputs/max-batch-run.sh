#!/usr/bin/env bash
# Runs a step planned with mode=max-batch (test/Runner/max-batch.mlir) at the
# batch it records (remat.batch) and at one sample more, and the unplanned
# step at that batch. Prints one line per check; exits non-zero on failure.
#
# Usage: max-batch-run.sh SOURCE PLANNED TMP BUDGET PARAM_BYTES LIBDIR
#                         RUNNER_UTILS C_RUNNER_UTILS
# @main of SOURCE and PLANNED runs 987654321 rows, replaced here by the batch.
# The parameters are constants of the driver (globals, not heap): the
# measured heap peak plus PARAM_BYTES is what the budget bounds.
set -euo pipefail
source=$1 planned=$2 tmp=$3 budget=$4 params=$5 libdir=$6 utils=$7 cutils=$8
libs="$libdir/libremat_alloc_tracker.so,$utils,$cutils"

batch=$(grep -o 'remat.batch = [0-9]*' "$planned" | grep -o '[0-9]*$')

run() { # FILE ROWS OUT [OPTIONS]: lower (remat-lower-to-cpu{OPTIONS}) and
        # run FILE at ROWS rows
  sed "s/987654321/$2/g" "$1" | remat-opt --remat-lower-to-cpu="${4:-}" \
    | REMAT_ALLOC_TRACKER_REPORT=1 stdbuf -o0 mlir-runner -e main \
        -entry-point-result=void -shared-libs="$libs" >"$3.out" 2>"$3.err"
}

# The budget bounds the step's live bytes: measured with each buffer on its
# own (arena=false). In one arena (the default) the whole arena stays
# allocated after the step until @run frees the results, and @run's
# printing allocates on top of it (docs/Arena.md, "Results").
run "$planned" "$batch" "$tmp.planned" arena=false
peak=$(grep -o 'peak_bytes=[0-9]*' "$tmp.planned.err" | grep -o '[0-9]*$')
if [ $((peak + params)) -gt "$budget" ]; then
  echo "batch $batch: measured peak $peak + parameters $params > budget $budget"
  exit 1
fi
echo "batch $batch: measured peak $peak + parameters $params <= budget $budget"

# The planned step in its arena computes the bits of the unplanned one on
# its own.
run "$planned" "$batch" "$tmp.planned"
run "$source" "$batch" "$tmp.unplanned" arena=false
# The values, without the buffer addresses of printMemrefI32's headers.
values() { grep -v '^Unranked Memref' "$1"; }
if ! diff -q <(values "$tmp.planned.out") <(values "$tmp.unplanned.out") \
    >/dev/null; then
  echo "results: planned != unplanned"
  exit 1
fi
echo "results: planned == unplanned"

# The guard's message is printed by puts before the abort.
if run "$planned" "$((batch + 1))" "$tmp.over" 2>/dev/null; then
  echo "batch $batch + 1: not refused"
  exit 1
fi
echo "batch $batch + 1: $(grep -o 'dimension 0 of argument.*assumed' "$tmp.over.out" "$tmp.over.err" | head -1 | cut -d: -f2-)"
