# Sourced by scripts/sanitize.sh and scripts/fuzz.sh: the configure step of
# a clang-22 build with AddressSanitizer and UndefinedBehaviorSanitizer, and
# the runtime options both use.
#
#   configure_sanitized ROOT BUILD [CMAKE-ARGUMENT...]
# installs clang-22 and its runtimes if missing (scripts/install-deps.sh), then
# configures BUILD once (nothing if it holds a build.ninja already).
# REMAT_LLVM_BIN names the LLVM tools (default /usr/lib/llvm-22/bin).

llvm=${REMAT_LLVM_BIN:-/usr/lib/llvm-22/bin}

configure_sanitized() {
  local root=$1 build=$2
  shift 2
  export CCACHE_BASEDIR=$root
  "$root/scripts/install-deps.sh" --sanitizers
  [ -f "$build/build.ninja" ] && return 0
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="$llvm/clang" -DCMAKE_CXX_COMPILER="$llvm/clang++" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DLLVM_USE_SANITIZER="Address;Undefined" "$@"
}

# Leaks of process-lifetime registries are not bugs of ours. LLVM's
# BumpPtrAllocator poisons new slabs in our instrumented code, and the
# uninstrumented libMLIR.so allocates from them without unpoisoning: manual
# poisoning is off so that this does not read as use-after-poison.
sanitizer_asan_options=detect_leaks=0:allow_user_poisoning=0
