// libremat_alloc_tracker in a host other than remat-run: mlir-runner loads
// it with -shared-libs, and REMAT_ALLOC_TRACKER_REPORT makes it print its
// counters when the process exits.

// RUN: remat-opt %s --remat-lower-to-cpu \
// RUN:   | env REMAT_ALLOC_TRACKER_REPORT=1 mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%remat_lib_dir/libremat_alloc_tracker.so 2>&1 \
// RUN:   | FileCheck %s
// RUN: remat-opt %s --remat-lower-to-cpu \
// RUN:   | env REMAT_ALLOC_TRACKER_REPORT=json mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%remat_lib_dir/libremat_alloc_tracker.so 2>&1 \
// RUN:   | FileCheck %s --check-prefix=JSON
// RUN: remat-opt %s --remat-lower-to-cpu=arena=false \
// RUN:   | env REMAT_ALLOC_TRACKER_REPORT=1 mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%remat_lib_dir/libremat_alloc_tracker.so 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OWN
// RUN: remat-opt %s --remat-lower-to-cpu \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%remat_lib_dir/libremat_alloc_tracker.so 2>&1 \
// RUN:   | FileCheck %s --check-prefix=QUIET --allow-empty

// @chain computes a, b, c (16 x f32 = 64 bytes each); a dies once b is
// computed, b once c is. In one arena (the default, docs/Arena.md) a sits
// at 0, b at 64 and c at 0 again: one allocation of 128 bytes, which @chain
// returns with c in it and @main frees once. The constant input is a
// global, not a heap buffer.
// CHECK: remat-alloc-tracker: peak_bytes=128 current_bytes=0 num_allocs=1 num_frees=1 total_bytes=128 unknown_frees=0
// JSON: {"peak_bytes": 128, "current_bytes": 0, "num_allocs": 1, "num_frees": 1, "total_bytes": 128, "unknown_frees": 0, "rss_growth_bytes": {{[0-9]+}}}
// Each buffer on its own (arena=false): a, b, c are allocated, a is freed
// after b is computed and b after c: live 64, 128, 64, 128, 64; @main frees
// the returned c.
// OWN: remat-alloc-tracker: peak_bytes=128 current_bytes=0 num_allocs=3 num_frees=3 total_bytes=192 unknown_frees=0
// QUIET-NOT: remat-alloc-tracker

func.func @chain(%x: tensor<16xf32>) -> tensor<16xf32> {
  %e1 = tensor.empty() : tensor<16xf32>
  %a = linalg.add ins(%x, %x : tensor<16xf32>, tensor<16xf32>) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %e2 = tensor.empty() : tensor<16xf32>
  %b = linalg.mul ins(%a, %a : tensor<16xf32>, tensor<16xf32>) outs(%e2 : tensor<16xf32>) -> tensor<16xf32>
  %e3 = tensor.empty() : tensor<16xf32>
  %c = linalg.sub ins(%b, %x : tensor<16xf32>, tensor<16xf32>) outs(%e3 : tensor<16xf32>) -> tensor<16xf32>
  return %c : tensor<16xf32>
}

func.func @main() {
  %x = arith.constant dense<1.0> : tensor<16xf32>
  %c = func.call @chain(%x) : (tensor<16xf32>) -> tensor<16xf32>
  return
}
