#!/usr/bin/env bash
# Installs a built tree into a temporary prefix and uses it as another
# project would (docs/Embedding.md):
#   1. cmake --install into PREFIX;
#   2. configures and builds examples/embedding against PREFIX alone
#      (find_package(Remat) from PREFIX/lib/cmake/remat), runs it on
#      examples/mlp.mlir and checks the result is bufferized and planned;
#   3. runs the installed RematPlugin.so in the stock mlir-opt and checks its
#      output equals the installed remat-opt's.
# Usage: scripts/check-install.sh [BUILD_DIR]   (ctest runs it as `install`)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${REMAT_BUILD_DIR:-$root/build}}
mlir_opt=${MLIR_OPT:-/usr/lib/llvm-22/bin/mlir-opt}
work=$(mktemp -d "${TMPDIR:-/tmp}/remat-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" >"$work/install.log"
for f in include/remat/Pipelines/Pipelines.h \
         include/remat/Transforms/Passes.h.inc \
         include/remat/Dialect/Remat/IR/RematOps.h.inc \
         lib/cmake/remat/RematConfig.cmake lib/cmake/remat/RematTargets.cmake \
         lib/libRematPipelines.a lib/RematPlugin.so bin/remat-opt \
         share/doc/remat/LICENSE; do
  [ -e "$prefix/$f" ] || { echo "check-install: $f not installed" >&2; exit 1; }
done
[ ! -e "$prefix/include/remat/Solver/Testing" ] ||
  { echo "check-install: Solver/Testing's headers installed" >&2; exit 1; }
echo "check-install: installed $(find "$prefix" -type f | wc -l) files into $prefix"

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
generator=()
if command -v ninja >/dev/null; then
  generator=(-G Ninja)
fi
cmake "${generator[@]}" -S "$root/examples/embedding" -B "$work/example" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
  "${launcher[@]}" >"$work/configure.log" ||
  { cat "$work/configure.log" >&2; exit 1; }
cmake --build "$work/example" >"$work/build.log" ||
  { cat "$work/build.log" >&2; exit 1; }

"$work/example/remat-embed" "$root/examples/cnn.mlir" 90% \
  >"$work/embed.mlir" 2>"$work/embed.err" ||
  { cat "$work/embed.err" >&2; exit 1; }
grep -q "memref<" "$work/embed.mlir" ||
  { echo "check-install: remat-embed output is not bufferized" >&2; exit 1; }
# What strip-attributes keeps for a later remat-plan-arena (the plan's
# arena, a dynamic-size hint) may stay; no other remat.* attribute.
if grep -o "tensor.empty\|remat\.[a-z_]*" "$work/embed.mlir" |
  grep -qv "^remat\.\(planned_arena\|dynamic_size_hint\)$"; then
  echo "check-install: remat-embed left tensor ops or remat attributes" >&2
  exit 1
fi
grep -q "within the budget" "$work/embed.err" ||
  { echo "check-install: no remat-verify-memory remark" >&2; exit 1; }
echo "check-install: remat-embed: $(grep -o 'peak memory .*' "$work/embed.err")"

pipeline='builtin.module(remat-pipeline{solver=local-search budget=90%})'
"$mlir_opt" "$root/examples/cnn.mlir" \
  --load-dialect-plugin="$prefix/lib/RematPlugin.so" \
  --load-pass-plugin="$prefix/lib/RematPlugin.so" \
  --pass-pipeline="$pipeline" -o "$work/stock.mlir" 2>"$work/stock.err" ||
  { cat "$work/stock.err" >&2; exit 1; }
"$prefix/bin/remat-opt" "$root/examples/cnn.mlir" \
  --pass-pipeline="$pipeline" -o "$work/ours.mlir" 2>"$work/ours.err" ||
  { cat "$work/ours.err" >&2; exit 1; }
diff "$work/stock.mlir" "$work/ours.mlir" >&2 ||
  { echo "check-install: stock mlir-opt + plugin differs from remat-opt" >&2; exit 1; }
echo "check-install: stock mlir-opt + installed plugin = installed remat-opt"
