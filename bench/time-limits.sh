#!/usr/bin/env bash
# Prints the time-limit table of docs/Benchmarks-solvers.md: for every
# registered solver (and the min-budget search), the requested limit, the
# wall time taken, the CPU time (user; on a loaded machine much less than the
# wall time), the peak resident memory and the answer's status.
#   bench/time-limits.sh [build-dir] [graph] [limit-seconds] [budget]
# graph: a --generate spec of remat-solve, or a graph JSON file.
# Defaults: ./build, chain:50000, 10, 50%. One process per row, run in turn.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
graph=${2:-chain:50000}
limit=${3:-10}
budget=${4:-50%}
solve=$build/bin/remat-solve
input=(--generate="$graph")
[ -f "$graph" ] && input=("$graph")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

row() { # label, then remat-solve arguments
  local label=$1 seconds cpu kib status
  shift
  /usr/bin/time -f '%e %U %M' -o "$out/time" \
    "$solve" "${input[@]}" --budget="$budget" --time-limit="$limit" \
    --quiet -o "$out/plan.json" "$@" >/dev/null 2>"$out/err" || true
  read -r seconds cpu kib < <(tail -1 "$out/time")
  status=$(grep -o '"status": "[a-z]*"' "$out/plan.json" 2>/dev/null |
    head -1 | cut -d'"' -f4 || true)
  if [ -z "$status" ]; then
    status="no plan: $(sed -n 's/^remat-solve: error: //p' "$out/err" | head -1)"
  fi
  echo "| $label | $limit | $seconds | $cpu | $((kib / 1024)) | $status |"
  rm -f "$out/plan.json"
}

echo "| solver ($(basename "$graph"), budget $budget) | limit (s) | taken (s) | CPU (s) | peak RSS (MiB) | status |"
echo "|---|---:|---:|---:|---:|---|"
for solver in $("$solve" --list-solvers | awk '{print $1}'); do
  row "$solver" --solver="$solver"
done
row "auto, --mode=min-budget" --solver=auto --mode=min-budget
