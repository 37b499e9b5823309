// RUN: remat-opt %s --remat-lower-to-cpu=arena=false | FileCheck %s
// RUN: remat-opt %s --remat-lower-to-cpu="arena=false use-aligned-alloc=true" | FileCheck %s --check-prefix=ALIGNED
// RUN: remat-opt %s --remat-lower-to-cpu="arena=false use-generic-functions=false" | FileCheck %s --check-prefix=LIBC
// RUN: remat-opt %s --pass-pipeline='builtin.module(remat-lower-to-cpu{buffer-alignment=64 early-dealloc=false arena=false})' | FileCheck %s --check-prefix=OPTS
// RUN: remat-opt %s --remat-lower-to-cpu | FileCheck %s --check-prefix=ARENA

// By default (docs/Arena.md) the three buffers are views into one arena of
// 128 bytes (a and c at offset 0, b at 64): one allocation, returned with c
// in it, never freed here; the function records the arena's size.
// ARENA-LABEL: llvm.func @chain(
// ARENA-SAME:    remat.arena_bytes = 128 : i64
// ARENA:         llvm.mlir.constant(128 : index)
// ARENA:         llvm.call @_mlir_memref_to_llvm_alloc
// ARENA-NOT:     llvm.call @_mlir_memref_to_llvm_alloc
// ARENA-NOT:     llvm.call @_mlir_memref_to_llvm_free
// ARENA:         llvm.return

// Each buffer on its own (arena=false), the whole module reaches the LLVM
// dialect, and every heap buffer goes through the generic allocation
// functions that libremat_alloc_tracker
// defines: alloc(a), alloc(b), free(a), alloc(c), free(b); c is returned.

// CHECK-NOT:   func.func
// CHECK-DAG:   llvm.func @_mlir_memref_to_llvm_free(!llvm.ptr)
// CHECK-DAG:   llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
// CHECK-LABEL: llvm.func @chain(
// CHECK:         llvm.call @_mlir_memref_to_llvm_alloc
// CHECK:         llvm.call @_mlir_memref_to_llvm_alloc
// CHECK:         llvm.call @_mlir_memref_to_llvm_free
// CHECK:         llvm.call @_mlir_memref_to_llvm_alloc
// CHECK:         llvm.call @_mlir_memref_to_llvm_free
// CHECK-NOT:     llvm.call @_mlir_memref_to_llvm_free
// CHECK:         llvm.return

// ALIGNED-LABEL: llvm.func @chain(
// ALIGNED-COUNT-2: llvm.call @_mlir_memref_to_llvm_aligned_alloc
// ALIGNED:         llvm.call @_mlir_memref_to_llvm_free
// ALIGNED:         llvm.call @_mlir_memref_to_llvm_aligned_alloc

// LIBC-NOT:   _mlir_memref_to_llvm
// LIBC-LABEL: llvm.func @chain(
// LIBC-COUNT-2: llvm.call @malloc
// LIBC:         llvm.call @free

// Deallocations at the end of the block: all three allocations come first.
// With alignment 64 the malloc path pads each request by 64 bytes.
// OPTS-LABEL: llvm.func @chain(
// OPTS:         llvm.mlir.constant(64 : index)
// OPTS-COUNT-3: llvm.call @_mlir_memref_to_llvm_alloc
// OPTS-COUNT-2: llvm.call @_mlir_memref_to_llvm_free
func.func @chain(%x: tensor<16xf32>) -> tensor<16xf32> {
  %e1 = tensor.empty() : tensor<16xf32>
  %a = linalg.add ins(%x, %x : tensor<16xf32>, tensor<16xf32>) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %e2 = tensor.empty() : tensor<16xf32>
  %b = linalg.mul ins(%a, %a : tensor<16xf32>, tensor<16xf32>) outs(%e2 : tensor<16xf32>) -> tensor<16xf32>
  %e3 = tensor.empty() : tensor<16xf32>
  %c = linalg.sub ins(%b, %x : tensor<16xf32>, tensor<16xf32>) outs(%e3 : tensor<16xf32>) -> tensor<16xf32>
  return %c : tensor<16xf32>
}
