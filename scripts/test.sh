#!/usr/bin/env bash
# Installs what is missing, builds everything, and runs every test: the lit
# suite (passes, tools, CPU execution) and the unit tests, through ctest.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${REMAT_BUILD_DIR:-$root/build}

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
cd "$build"
ctest --output-on-failure -j "${REMAT_JOBS:-$(nproc)}"
