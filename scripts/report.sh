#!/usr/bin/env bash
# Pictures of a rematerialization plan for a PyTorch model, in one command:
# imports one training step (remat-import-torch) and runs remat-report, which
# writes memory.png, curves.png, layers.png, index.html and summary.json.
#
#   scripts/report.sh resnet18 --budget=50%
#   scripts/report.sh MODEL [--out=DIR] [--batch=8] [--resolution=224]
#                     [--graph-from=mlir|aten] [--decompose] [--budget=50%] [--solver=auto]
#                     [--curves=a,b,...] [--points=8] [--time-limit=10]
#                     [--depth=2] [--format=png|svg]
#   scripts/report.sh --module=FILE.py:Class --input-shape=2x3x16x16 ...
#   scripts/report.sh --module=FILE.py:Class [--module-args=JSON]
#                     --input=NAME=DIMS[:DTYPE] ... [--loss=...] ...
#   scripts/report.sh ... --optimizer=adamw [--lr=...] ...   (its state resident)
#
# MODEL is a torchvision classification model. Needs the build (remat-opt, remat-solve
# in $REMAT_BUILD_DIR/bin or build/bin) and scripts/install-deps.sh's
# packages. docs/Report.md explains the pictures.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
python=/usr/bin/python3

usage() {
  sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

model=""
out=""
import_args=()
report_args=()
for arg in "$@"; do
  case "$arg" in
    -h|--help) usage ;;
    --out=*) out=${arg#--out=} ;;
    --batch=*|--resolution=*|--module=*|--input-shape=*|--num-classes=*)
      import_args+=("$arg") ;;
    --module-args=*|--input=*|--example-inputs=*|--loss=*|--dtype=*)
      import_args+=("$arg") ;;
    --optimizer=*|--lr=*|--momentum=*|--dampening=*|--betas=*|--eps=*|--weight-decay=*|--nesterov)
      import_args+=("$arg") ;;
    --decompose|--graph-from=*) import_args+=("$arg") ;;
    --budget=*|--solver=*|--curves=*|--points=*|--time-limit=*|--depth=*|--format=*|--remat-solve=*)
      report_args+=("$arg") ;;
    -*) echo "report.sh: error: unknown option '$arg'" >&2; usage ;;
    *)
      if [ -n "$model" ]; then
        echo "report.sh: error: two models given: '$model' and '$arg'" >&2
        usage
      fi
      model=$arg ;;
  esac
done

source_args=()
if [ -n "$model" ]; then
  source_args=(--model "$model")
  name=$model
elif printf '%s\n' "${import_args[@]}" | grep -q '^--module='; then
  name=$(printf '%s\n' "${import_args[@]}" | sed -n 's/^--module=.*:\(.*\)$/\1/p' | tr 'A-Z' 'a-z')
else
  echo "report.sh: error: give a torchvision model name or --module=FILE.py:Class" >&2
  usage
fi
out=${out:-report-$name}
mkdir -p "$out"

echo "report.sh: importing ${model:-$name} into $out/graph.json"
"$python" "$root/tools/remat-import-torch/remat-import-torch.py" \
  "${source_args[@]}" "${import_args[@]}" --emit-graph "$out/graph.json"
"$python" "$root/tools/remat-report/remat-report.py" "$out/graph.json" \
  --out "$out" "${report_args[@]}"
