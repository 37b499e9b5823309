#!/usr/bin/env bash
# Prints the rematerialization benchmark table of docs/Benchmarks-remat.md:
# for every example and budget, predicted and measured peak, recompute FLOPs
# and measured time overhead, solve time, bitwise identity of the results.
#   bench/remat-table.sh [build-dir] [solver]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
solver=${2:-local-search}
echo "| Example | Budget | Predicted peak (B) | Measured peak (B) | Recompute FLOPs | Time overhead | Solve time | Bitwise identical |"
echo "|---|---|---|---|---|---|---|---|"
for step in "$root"/examples/*.mlir "$root"/examples/generated/*.mlir; do
  case "$step" in *.run.mlir) continue ;; esac
  python3 "$root/test/Integration/remat_check.py" "$step" --markdown \
    --solver "$solver" --repeat 20 --bound 1.0 \
    --remat-opt "$build/bin/remat-opt" --remat-run "$build/bin/remat-run" \
    2>/dev/null || true
done
