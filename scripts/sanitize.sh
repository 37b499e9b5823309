#!/usr/bin/env bash
# Builds everything with clang-22, AddressSanitizer and
# UndefinedBehaviorSanitizer (any report aborts) in a build directory of its
# own, then runs every unit test and the lit suite without its long tests
# (`--param long=0`: whole models, multi-rank runs, large steps; the plain
# run runs them, short tests reach the same C++, and the two long tests
# whose C++ no short test reaches run anyway). Tests that
# the build cannot run report themselves UNSUPPORTED as in any build (GPU
# execution without a GPU, the importer without python3-torch). The stock,
# uninstrumented mlir-opt and mlir-runner that load our instrumented
# libraries (the plugin, the allocation tracker) run with the ASan runtime
# preloaded (test/lit.cfg.py). The Python tools (importer, report) are not
# instrumented; the remat tools they start are. Slow: the build alone takes
# long on few cores. docs/Testing.md.
#
# usage: scripts/sanitize.sh [LIT-FILTER]   (a lit --filter regex, optional)
# LIT_OPTS="--param long=1" runs the long tests too (lit reads LIT_OPTS
# after its command line).
# REMAT_SANITIZE_BUILD_DIR may name scripts/fuzz.sh's build directory, which
# has the same sanitizers (plus coverage instrumentation).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${REMAT_SANITIZE_BUILD_DIR:-$root/build-sanitize}
jobs=${REMAT_JOBS:-$(nproc)}

# shellcheck source=scripts/sanitizer-config.sh
. "$root/scripts/sanitizer-config.sh"
configure_sanitized "$root" "$build"
ninja -C "$build" -j "$jobs"

export ASAN_OPTIONS=${ASAN_OPTIONS:-$sanitizer_asan_options:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

status=0
(cd "$build" && ctest --output-on-failure -j "$jobs" -E '^(lit|install)$') ||
  status=1
filter=()
[ $# -gt 0 ] && filter=(--filter "$1")
"$llvm/lit" "$build/test" -j "$jobs" --param long=0 "${filter[@]}" ||
  status=1
exit $status
