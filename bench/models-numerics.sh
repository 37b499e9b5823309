#!/usr/bin/env bash
# The five real torchvision models through the MLIR path at a small
# configuration (batch 2, 32x32, 10 classes): import (float32 and float64),
# verify in remat-opt, numerics against PyTorch (float64 and float32),
# rematerialization at 50 % and at the smallest feasible budget (bitwise
# identical to the original run). Prints one block per model with the
# measured errors and the wall time of each stage; exits non-zero when any
# check fails. Outside CI (JIT compilation of the convolutions dominates:
# minutes per model). docs/Importer.md ("The five models") has the table.
#   bench/models-numerics.sh [build-dir] [model ...]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift || true
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(resnet18 mobilenet_v2 resnet50 vgg16 vit_b_16)
py=/usr/bin/python3
importer="$root/tools/remat-import-torch/remat-import-torch.py"
numerics="$root/tools/remat-import-torch/check-numerics.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
config=(--num-classes 10 --batch 2 --resolution 32)
status=0

stage() {  # stage LABEL CMD...: runs CMD, prints its last lines and time
  local label=$1 start end rc
  shift
  start=$(date +%s)
  "$@" >"$work/out" 2>&1
  rc=$?
  end=$(date +%s)
  echo "  $label: $(grep -E 'worst|numerics|bitwise|FAIL|error' "$work/out" | tr '\n' ' ')($((end - start)) s, exit $rc)"
  [ $rc -eq 0 ] || { status=1; tail -5 "$work/out" | sed 's/^/    /'; }
}

for m in "${models[@]}"; do
  echo "== $m (batch 2, 32x32, 10 classes)"
  for dt in f64 f32; do
    stage "import $dt" "$py" "$importer" --model "$m" "${config[@]}" --dtype $dt \
      --emit-mlir "$work/$m.$dt.mlir"
    stage "verify $dt" "$build/bin/remat-opt" "$work/$m.$dt.mlir" -o /dev/null
  done
  # f64 checks the lowering (tight); f32 against PyTorch's own float32 error.
  stage "numerics f64" "$py" "$numerics" --model "$m" "${config[@]}" --dtype f64 \
    --mlir "$work/$m.f64.mlir" --remat-run "$build/bin/remat-run" \
    --rtol 1e-5 --slack 0
  stage "numerics f32" "$py" "$numerics" --model "$m" "${config[@]}" \
    --mlir "$work/$m.f32.mlir" --remat-run "$build/bin/remat-run"
  stage "remat 50%,min f32" "$py" "$root/test/Integration/remat_check.py" \
    "$work/$m.f32.mlir" --budgets=50%,min \
    --remat-opt "$build/bin/remat-opt" --remat-run "$build/bin/remat-run"
done
exit $status
