#!/usr/bin/env bash
# The one-command GPU check (docs/GPU.md): builds what the GPU path needs,
# runs the GPU tests (lowering + execution), and prints a benchmark table:
# per example and budget, the predicted peak, the measured peak device bytes,
# and the step time with and without rematerialization. A few minutes on an
# H200. Needs a CUDA GPU for the execution part; without one it stops after
# the lowering tests with exit status 3.
#
#   scripts/gpu-check.sh            # build dir: $REMAT_BUILD_DIR or ./build
#   REMAT_GPU_CHECK_SOLVER=chen-greedy-topo REMAT_GPU_CHECK_REPEAT=5 \
#   REMAT_GPU_CHECK_BUDGETS="100% 90% 70% 50%" scripts/gpu-check.sh
#
# On a GPU machine without the LLVM/MLIR toolchain, build here and copy the
# binaries (and the shared libraries they load) there; then
# REMAT_GPU_CHECK_PREBUILT=1 skips the build and the lit tests (which need
# the build tree) and runs the benchmark on $REMAT_BUILD_DIR/bin.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${REMAT_BUILD_DIR:-$root/build}
export REMAT_BUILD_DIR=$build
solver=${REMAT_GPU_CHECK_SOLVER:-chen-greedy-topo}
repeat=${REMAT_GPU_CHECK_REPEAT:-5}
budgets=${REMAT_GPU_CHECK_BUDGETS:-"100% 90% 80% 70% 50%"}
examples=${REMAT_GPU_CHECK_EXAMPLES:-"examples/mlp.mlir examples/cnn.mlir examples/residual.mlir examples/generated/resnet8.mlir examples/generated/transformer2.mlir examples/generated/unet3.mlir"}
lit=${LLVM_EXTERNAL_LIT:-/usr/lib/llvm-22/bin/lit}

if [ -z "${REMAT_GPU_CHECK_PREBUILT:-}" ]; then
  echo "== build"
  "$root/scripts/build.sh" remat-opt remat-run remat-gpu-run remat_cuda_runtime

  echo "== GPU tests"
  "$lit" -v "$build/test/GPU"
fi

if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu-check: no CUDA GPU (nvidia-smi -L failed): execution tests were" \
       "unsupported and there is no benchmark to run" >&2
  exit 3
fi
nvidia-smi -L

echo "== benchmark (solver $solver, median of $repeat runs)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rows="$tmp/rows.tsv"
: > "$rows"
for ex in $examples; do
  name=$(basename "$ex" .mlir)
  "$build/bin/remat-gpu-run" "$root/$ex" --json --repeat="$repeat" > "$tmp/$name.base.json"
  for budget in $budgets; do
    out="$tmp/$name.$(echo "$budget" | tr -d '%').mlir"
    if ! "$build/bin/remat-opt" "$root/$ex" \
        --remat-pipeline="budget=$budget solver=$solver" -o "$out" \
        2> "$tmp/remarks.txt"; then
      printf '%s\t%s\tinfeasible\n' "$name" "$budget" >> "$rows"
      continue
    fi
    predicted=$(sed -n 's/.*predicted peak \([0-9]*\) bytes.*/\1/p' "$tmp/remarks.txt" | head -1)
    "$build/bin/remat-gpu-run" "$out" --json --repeat="$repeat" > "$out.json"
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$budget" "${predicted:-?}" \
      "$tmp/$name.base.json" "$out.json" >> "$rows"
  done
done

python3 - "$rows" <<'PY'
import json, sys
print("%-14s %6s %10s %12s %12s %10s %10s %9s %10s %8s" % (
    "example", "budget", "predicted", "device_peak", "no-remat_pk",
    "ms_remat", "ms_base", "overhead", "kernel_ms", "bitwise"))
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    if f[2] == "infeasible":
        print("%-14s %6s %10s" % (f[0], f[1], "infeasible"))
        continue
    base, remat = json.load(open(f[3])), json.load(open(f[4]))
    same = all(a["fnv1a64"] == b["fnv1a64"]
               for a, b in zip(base["results"], remat["results"]))
    t, t0 = remat["time_ms_median"], base["time_ms_median"]
    print("%-14s %6s %10s %12d %12d %10.3f %10.3f %8.1f%% %10.3f %8s" % (
        f[0], f[1], f[2], remat["peak_device_bytes"], base["peak_device_bytes"],
        t, t0, 100.0 * (t - t0) / t0 if t0 else 0.0,
        remat["kernel_ms_median"], "yes" if same else "NO"))
print("predicted: remat-opt's predicted peak (resident arguments included);")
print("device_peak / no-remat_pk: bytes live through our CUDA runtime, inputs")
print("included, with / without the plan; times: median step wall time.")
PY
