#!/usr/bin/env bash
# Installs the Debian 12 packages remat-opt needs, if any is missing.
#   scripts/install-deps.sh [--build-only | --sanitizers]
# Without an option: what the build and the tests need.
# --build-only: what configuring and building need, without the tests'
# Python packages (torch, torchvision, matplotlib, networkx and their
# dependencies; docs/Testing.md, "CI budget and set-up time"); scripts/demo.sh.
# --sanitizers: also clang-22 and its sanitizer and libFuzzer runtimes, for
# scripts/sanitize.sh and scripts/fuzz.sh.
set -euo pipefail

packages=(
  cmake ninja-build ccache g++ pkg-config python3
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools
  coinor-libcbc-dev coinor-libclp-dev
  googletest libgtest-dev
  libboost-graph-dev
  # data-parallel steps: remat-run links MPI, the tests start ranks with mpirun
  libopenmpi-dev openmpi-bin
)
# remat-import-torch and its tests (Debian's torch 1.13, torchvision 0.14);
# matplotlib: remat-report's pictures; networkx: PyTorch's min-cut
# partitioner in bench/models.py. Not needed to build: CMake looks for none.
python_packages=(python3-torch python3-torchvision python3-matplotlib
                 python3-networkx)

case "${1:-}" in
  "") packages+=("${python_packages[@]}") ;;
  --build-only) ;;
  --sanitizers)
    packages+=("${python_packages[@]}" clang-22 libclang-rt-22-dev) ;;
  *) echo "usage: $0 [--build-only | --sanitizers]" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "remat-opt: installing missing packages: ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi
"${sudo_cmd[@]}" apt-get update -q
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
