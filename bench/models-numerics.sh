#!/usr/bin/env bash
# The five real torchvision models through the MLIR path at a small
# configuration (batch 2, 10 classes, 32x32 or 64x64): import in float64,
# verify in remat-opt, numerics against PyTorch's float64 step (rtol 1e-5,
# or within 4x of PyTorch's own change under a 1e-15 perturbation of its
# inputs: resnet50 amplifies rounding beyond any fixed rtol); then import
# in float32 and rematerialize at 50 % and at the smallest feasible budget
# (bitwise identical to the original run, measured peak within the budget).
# Prints one block per model with the measured errors and the wall time of
# each stage; exits non-zero when any check fails. Outside CI (minutes per
# model). docs/Importer.md ("The five models") has the table.
#
#   bench/models-numerics.sh [build-dir] [model[:resolution] ...]
#
# Default resolutions: 64x64 for mobilenet_v2 and resnet50, whose last batch
# norms normalize only 2 values each at 32x32 (too ill-conditioned to compare,
# docs/Importer.md), 32x32 for the others. REMAT_OPT_LEVEL (default 0) is
# remat-run's --opt-level: LLVM's -O2 on these one-function steps costs more
# than the runs themselves.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift || true
models=("$@")
[ ${#models[@]} -gt 0 ] ||
  models=(resnet18 mobilenet_v2:64 resnet50:64 vgg16 vit_b_16)
opt_level=${REMAT_OPT_LEVEL:-0}
py=/usr/bin/python3
importer="$root/tools/remat-import-torch/remat-import-torch.py"
numerics="$root/tools/remat-import-torch/check-numerics.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0

stage() { # stage LABEL CMD...: runs CMD, prints its key lines and time
  local label=$1 start end rc
  shift
  start=$(date +%s)
  "$@" >"$work/out" 2>&1
  rc=$?
  end=$(date +%s)
  echo "  $label: $(grep -E 'worst|PASS|FAIL|bitwise|infeasible|error' \
    "$work/out" | tr '\n' ' ')($((end - start)) s, exit $rc)"
  [ $rc -eq 0 ] || {
    status=1
    grep -E 'MISMATCH' "$work/out" | head -5 | sed 's/^/    /'
    tail -3 "$work/out" | sed 's/^/    /'
  }
}

for arg in "${models[@]}"; do
  m=${arg%%:*}
  res=32
  [ "$m" = "$arg" ] || res=${arg#*:}
  config=(--num-classes 10 --batch 2 --resolution "$res")
  echo "== $m (batch 2, ${res}x${res}, 10 classes)"
  for dt in f64 f32; do
    stage "import $dt" "$py" "$importer" --model "$m" "${config[@]}" \
      --dtype $dt --emit-mlir "$work/$m.$dt.mlir"
    stage "verify $dt" "$build/bin/remat-opt" "$work/$m.$dt.mlir" -o /dev/null
  done
  # Float64 checks the lowering, against rounding-level conditioning.
  stage "numerics f64" "$py" "$numerics" --model "$m" "${config[@]}" \
    --dtype f64 --mlir "$work/$m.f64.mlir" \
    --remat-run "$build/bin/remat-run" --opt-level "$opt_level" \
    --rtol 1e-5 --perturb 1e-15 --slack 4
  stage "remat 50%,min f32" "$py" "$root/test/Integration/remat_check.py" \
    "$work/$m.f32.mlir" --budgets=50%,min --opt-level "$opt_level" \
    --remat-opt "$build/bin/remat-opt" --remat-run "$build/bin/remat-run"
done
exit $status
