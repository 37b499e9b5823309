#!/usr/bin/env bash
# Installs what is missing, builds remat-opt, and runs the main job on a
# bundled example: annotate costs, analyse peak memory, plan and apply
# rematerialization under a budget, then run the original and the
# rematerialized step on the CPU and compare results and measured peaks.
#
#   scripts/demo.sh [example.mlir] [budget]     (default: resnet8_b64, 70%)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${REMAT_BUILD_DIR:-$root/build}
example=${1:-$root/examples/generated/resnet8_b64.mlir}
budget=${2:-70%}

"$root/scripts/install-deps.sh" --build-only
"$root/scripts/build.sh" remat-opt remat-run remat_alloc_tracker

bin=$build/bin
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo
echo "== 1. Costs and phases (remat-annotate-costs, remat-infer-phases): first annotated ops"
"$bin/remat-opt" "$example" --remat-annotate-costs --remat-infer-phases \
  | python3 -c '
import re, sys
shown = 0
for line in sys.stdin:
    op = re.search(r"= ([a-z_]+\.[a-z_.]+)", line)
    cost = re.search(r"#remat\.cost<[^>]*>", line)
    phase = re.search(r"#remat\.phase<(\w+)>", line)
    if op and cost and shown < 5:
        print(f"  {op.group(1):<16} {cost.group(0)}  {phase.group(1) if phase else str()}")
        shown += 1
'

echo
echo "== 2. Peak memory of the program as written (remat-memory-report)"
"$bin/remat-opt" "$example" --remat-annotate-costs \
  "--remat-memory-report=output=$work/before.json" -o /dev/null
python3 - "$work/before.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))["functions"][0]
print(f"  @{f['name']}: peak {f['peak_bytes']} bytes at op #{f['peak_op_index']} "
      f"({f['peak_op']}); resident arguments {f['resident_bytes']} bytes")
for v in f["live_at_peak"][:3]:
    print(f"    live at peak: {v['bytes']:>8} bytes  {v['op']}")
PY

echo
echo "== 3. Plan and rematerialize under budget=$budget (remat-pipeline)"
if ! "$bin/remat-opt" "$example" "--remat-pipeline=budget=$budget" \
    -o "$work/remat.mlir" 2>"$work/remat.err"; then
  # An infeasible budget names the smallest feasible one; say so, not just 1.
  echo "demo: --remat-pipeline=budget=$budget failed on $example:" >&2
  grep -E ': (error|note): ' "$work/remat.err" | sed 's/^[^ ]*: //' >&2 ||
    cat "$work/remat.err" >&2
  exit 1
fi
grep 'remark:' "$work/remat.err" | sed 's/^[^ ]*: remark: /  /'

echo
echo "== 4. Run both on the CPU (remat-run): bitwise identity and measured heap peak"
"$bin/remat-run" --json "$example" > "$work/before-run.json"
"$bin/remat-run" --json "$work/remat.mlir" > "$work/after-run.json"
python3 - "$work/before-run.json" "$work/after-run.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
same = [x["fnv1a64"] for x in a["results"]] == [x["fnv1a64"] for x in b["results"]]
def total(r):  # the model counts arguments as resident
    return r["peak_bytes"] + r["input_bytes"]
print(f"  results bitwise identical: {'yes' if same else 'NO'} ({len(a['results'])} results)")
print(f"  measured peak (heap + inputs): {total(a)} -> {total(b)} bytes "
      f"({100.0 * total(b) / total(a):.1f}%)")
sys.exit(0 if same else 1)
PY
