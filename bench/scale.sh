#!/usr/bin/env bash
# Prints the scale table of docs/Benchmarks-remat.md: --remat-pipeline
# (without the MILP) on generated residual-MLP training steps of about
# 1,000 / 5,000 / 20,000 top-level ops: wall time, peak resident memory and
# the slowest passes (from --mlir-timing).
#   bench/scale.sh [build-dir] [pipeline-options] [generator-options]
# e.g. bench/scale.sh build "budget=70%" "--batch 64 --hidden 128"
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
options=${2:-}
genopts=${3:-}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "| blocks | top-level ops | IR (KB) | time (s) | peak RSS (MiB) | select-checkpoints (s) | rematerialize (s) | plan |"
echo "|---:|---:|---:|---:|---:|---:|---:|---|"
# About 52 top-level ops per residual block.
for blocks in 19 96 384; do
  # shellcheck disable=SC2086
  python3 "$root/examples/gen/gen_training_step.py" resnet --blocks "$blocks" \
    $genopts >"$out/step.mlir"
  ops=$(grep -c '^  %' "$out/step.mlir")
  kb=$(($(wc -c <"$out/step.mlir") / 1024))
  /usr/bin/time -f '%e %M' -o "$out/time" \
    "$build/bin/remat-opt" "$out/step.mlir" --remat-pipeline="$options" \
    --mlir-timing -o /dev/null 2>"$out/err" || true
  read -r seconds kib < <(tail -1 "$out/time")
  pass() { grep -m1 " $1\$" "$out/err" | awk '{print $1}'; }
  plan=$(grep -o "remark: remat plan: [^;]*" "$out/err" | head -1 |
    sed 's/remark: remat plan: //' || true)
  [ -n "$plan" ] || plan="error: $(grep -m1 -o 'error: .\{0,100\}' "$out/err" || true)"
  echo "| $blocks | $ops | $kb | $seconds | $((kib / 1024)) |" \
    "$(pass RematSelectCheckpoints) | $(pass RematRematerialize) | $plan |"
done
