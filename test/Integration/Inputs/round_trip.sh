#!/usr/bin/env bash
# The documented round trip against the pipeline: usage
#   round_trip.sh STEP.mlir WORKDIR SOLVER BUDGET ARENA
# exports STEP's graph with the pipeline, plans it with remat-solve
# (--solver, --budget, --arena), applies the schedule file with
# `schedule=`, and plans STEP with the pipeline directly
# (solver=, budget=, arena=). The two IRs must be byte-identical: the plan,
# its `remat.plan` record, the rematerialized ops and the arena. Prints one
# line per step and fails on the first difference.
set -euo pipefail
step=$1 work=$2 solver=$3 budget=$4 arena=$5
name="$(basename "$step" .mlir).$solver.${budget//%/pct}.arena-$arena"
mkdir -p "$work"
graph="$work/$name.graph.json"
schedule="$work/$name.schedule.json"
remat-opt "$step" --remat-pipeline="export-graph=$graph arena=$arena" -o /dev/null
remat-solve "$graph" --solver="$solver" --budget="$budget" --arena="$arena" \
  --quiet -o "$schedule"
remat-opt "$step" --remat-pipeline="schedule=$schedule arena=$arena" \
  -o "$work/$name.applied.mlir" 2>/dev/null
remat-opt "$step" \
  --remat-pipeline="solver=$solver budget=$budget arena=$arena" \
  -o "$work/$name.solved.mlir" 2>/dev/null
grep -q "remat.plan = " "$work/$name.solved.mlir" ||
  grep -q "remat.arena_bytes" "$work/$name.solved.mlir"
if ! cmp -s "$work/$name.applied.mlir" "$work/$name.solved.mlir"; then
  echo "round trip differs from the pipeline: $name"
  diff "$work/$name.applied.mlir" "$work/$name.solved.mlir" | head -20
  exit 1
fi
echo "same: $name"
