#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang-22, AddressSanitizer and
# UndefinedBehaviorSanitizer in a build directory of their own, then runs each
# for SECONDS (default 60) from a seed corpus made of the repository's graph
# JSON files and MLIR tests. A run goes on after a crash (libFuzzer's fork
# mode), so that a crash in upstream MLIR's parser does not end it; every
# input that crashed is kept as <build>/fuzz/<target>/crash-*, and the script
# lists them and exits non-zero.
# docs/Testing.md says what each target checks.
#
# usage: scripts/fuzz.sh [SECONDS] [TARGET...]
#   TARGET: graph-json, ir-problem (default: both)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${REMAT_FUZZ_BUILD_DIR:-$root/build-fuzz}
jobs=${REMAT_JOBS:-$(nproc)}
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(graph-json ir-problem)

# shellcheck source=scripts/sanitizer-config.sh
. "$root/scripts/sanitizer-config.sh"
configure_sanitized "$root" "$build" -DREMAT_ENABLE_FUZZERS=ON
ninja -C "$build" -j "$jobs" "${targets[@]/#/remat-fuzz-}"

# Seeds: copies, since libFuzzer adds what it finds to the corpus directory.
seed() {
  local target=$1 pattern=$2 corpus=$build/fuzz/$1/corpus
  mkdir -p "$corpus"
  (cd "$root" && find examples test -name "$pattern" -size -64k) |
    while read -r file; do
      cp "$root/$file" "$corpus/seed-$(echo "$file" | tr '/' '_')"
    done
}

status=0
for target in "${targets[@]}"; do
  case $target in
  graph-json) seed "$target" '*.json' ;;
  ir-problem) seed "$target" '*.mlir' ;;
  *) echo "fuzz.sh: unknown target '$target' (graph-json, ir-problem)" >&2
     exit 1 ;;
  esac
  dir=$build/fuzz/$target
  echo "== remat-fuzz-$target for $seconds s"
  ASAN_OPTIONS=${ASAN_OPTIONS:-$sanitizer_asan_options} \
    "$build/bin/remat-fuzz-$target" "$dir/corpus" \
    -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$dir/" \
    -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 || status=1
done
crashes=$(find "$build/fuzz" -maxdepth 2 \( -name 'crash-*' -o \
  -name 'timeout-*' -o -name 'oom-*' \) | sort)
if [ -n "$crashes" ]; then
  echo "== inputs that crashed, timed out or ran out of memory:"
  echo "$crashes"
  status=1
fi
exit $status
