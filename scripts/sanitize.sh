#!/usr/bin/env bash
# Builds everything with clang-22, AddressSanitizer and
# UndefinedBehaviorSanitizer (any report aborts) in a build directory of its
# own, then runs the unit tests and the lit suite except the tests that
# cannot run instrumented: the PyTorch importer and report (Python loading
# the tools' libraries), the plugin (loaded into the uninstrumented
# mlir-opt) and the GPU tests. Slow: the build alone takes long on few cores.
# docs/Testing.md.
#
# usage: scripts/sanitize.sh [LIT-FILTER]   (a lit --filter regex, optional)
# A subset, where the whole build takes too long: REMAT_SANITIZE_TARGETS
# (ninja targets, default: all; the unit-test executables among them are
# run instead of ctest), for example
#   REMAT_SANITIZE_TARGETS="remat-opt remat-solve RematSolverTests" \
#   scripts/sanitize.sh 'remat-solve|Transforms'
# REMAT_SANITIZE_BUILD_DIR may name scripts/fuzz.sh's build directory, which
# has the same sanitizers (plus coverage instrumentation).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${REMAT_SANITIZE_BUILD_DIR:-$root/build-sanitize}
llvm=${REMAT_LLVM_BIN:-/usr/lib/llvm-22/bin}
jobs=${REMAT_JOBS:-$(nproc)}

export CCACHE_BASEDIR=$root
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="$llvm/clang" -DCMAKE_CXX_COMPILER="$llvm/clang++" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DLLVM_USE_SANITIZER="Address;Undefined"
fi
read -r -a targets <<<"${REMAT_SANITIZE_TARGETS:-}"
ninja -C "$build" -j "$jobs" "${targets[@]}"

# Leaks of process-lifetime registries are not bugs of ours. LLVM's
# BumpPtrAllocator poisons new slabs in our instrumented code, and the
# uninstrumented libMLIR.so allocates from them without unpoisoning: manual
# poisoning is off so that this does not read as use-after-poison.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allow_user_poisoning=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

status=0
if [ ${#targets[@]} -eq 0 ]; then
  (cd "$build" && ctest --output-on-failure -j "$jobs" -E '^(lit|install)$') ||
    status=1
else
  for target in "${targets[@]}"; do
    exe=$(find "$build/unittests" -type f -name "$target" -perm -u+x | head -1)
    if [ -n "$exe" ]; then
      echo "== $target"
      "$exe" --gtest_brief=1 || status=1
    fi
  done
fi
filter=()
[ $# -gt 0 ] && filter=(--filter "$1")
"$llvm/lit" "$build/test" -j "$jobs" "${filter[@]}" \
  --filter-out 'Importer|Report|Plugin|GPU' || status=1
exit $status
