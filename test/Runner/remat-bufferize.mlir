// RUN: remat-opt %s --split-input-file --remat-bufferize=arena=false | FileCheck %s
// RUN: remat-opt %s --split-input-file --remat-bufferize="early-dealloc=false arena=false" | FileCheck %s --check-prefix=LATE
// RUN: remat-opt %s --split-input-file --remat-bufferize="buffer-alignment=64 arena=false" | FileCheck %s --check-prefix=ALIGN
// RUN: remat-opt %s --split-input-file --remat-bufferize="deallocate=false arena=false" | FileCheck %s --check-prefix=NODEALLOC
// RUN: remat-opt %s --split-input-file --remat-bufferize | FileCheck %s --check-prefix=ARENA

// By default the buffers then move into one arena (remat-plan-arena,
// docs/Arena.md; test/Transforms/remat-plan-arena.mlir tests it): a and c
// at offset 0, b at 64, the deallocations gone, the arena returned with c.
// ARENA-LABEL: func.func @chain(
// ARENA-SAME:      remat.arena_bytes = 128
// ARENA:         %[[ARENA:.*]] = memref.alloc() : memref<128xi8>
// ARENA-COUNT-3: memref.view %[[ARENA]]
// ARENA-NOT:     memref.dealloc
// ARENA:         return

// Every tensor result written into a tensor.empty becomes one exact-size
// allocation (no alignment request by default), and each temporary is freed
// right after its last use -- the memory model of the planner. The returned
// buffer is not freed (the caller owns it).

// CHECK-LABEL: func.func @chain(
// CHECK-SAME:      %[[X:.*]]: memref<16xf32>) -> memref<16xf32>
// CHECK:         %[[A:.*]] = memref.alloc() : memref<16xf32>
// CHECK-NEXT:    linalg.add ins(%[[X]], %[[X]] : {{.*}}) outs(%[[A]] :
// CHECK-NEXT:    %[[B:.*]] = memref.alloc() : memref<16xf32>
// CHECK-NEXT:    linalg.mul ins(%[[A]], %[[A]] : {{.*}}) outs(%[[B]] :
// CHECK-NEXT:    memref.dealloc %[[A]]
// CHECK-NEXT:    %[[C:.*]] = memref.alloc() : memref<16xf32>
// CHECK-NEXT:    linalg.sub ins(%[[B]], %[[X]] : {{.*}}) outs(%[[C]] :
// CHECK-NEXT:    memref.dealloc %[[B]]
// CHECK-NEXT:    return %[[C]]

// Upstream ownership-based deallocation alone frees at the end of the block.
// LATE-LABEL: func.func @chain(
// LATE:         linalg.sub
// LATE-NEXT:    memref.dealloc
// LATE-NEXT:    memref.dealloc
// LATE-NEXT:    return

// ALIGN-LABEL: func.func @chain(
// ALIGN-COUNT-3: memref.alloc() {alignment = 64 : i64} : memref<16xf32>

// NODEALLOC-LABEL: func.func @chain(
// NODEALLOC-NOT:   memref.dealloc
// NODEALLOC:       return
func.func @chain(%x: tensor<16xf32>) -> tensor<16xf32> {
  %e1 = tensor.empty() : tensor<16xf32>
  %a = linalg.add ins(%x, %x : tensor<16xf32>, tensor<16xf32>) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %e2 = tensor.empty() : tensor<16xf32>
  %b = linalg.mul ins(%a, %a : tensor<16xf32>, tensor<16xf32>) outs(%e2 : tensor<16xf32>) -> tensor<16xf32>
  %e3 = tensor.empty() : tensor<16xf32>
  %c = linalg.sub ins(%b, %x : tensor<16xf32>, tensor<16xf32>) outs(%e3 : tensor<16xf32>) -> tensor<16xf32>
  return %c : tensor<16xf32>
}

// -----

// A view keeps its source alive: the 8x2 buffer is freed after the last use
// of its collapsed 16-element view, not after the op that produced it.

// CHECK-LABEL: func.func @view_keeps_source_alive(
// CHECK:         %[[A:.*]] = memref.alloc() : memref<8x2xf32>
// CHECK:         %[[V:.*]] = memref.collapse_shape %[[A]]
// CHECK:         %[[B:.*]] = memref.alloc() : memref<16xf32>
// CHECK-NEXT:    linalg.add ins(%[[V]], %[[V]] : {{.*}}) outs(%[[B]] :
// CHECK-NEXT:    memref.dealloc %[[A]]
// CHECK-NEXT:    return %[[B]]
func.func @view_keeps_source_alive(%x: tensor<8x2xf32>) -> tensor<16xf32> {
  %e1 = tensor.empty() : tensor<8x2xf32>
  %a = linalg.add ins(%x, %x : tensor<8x2xf32>, tensor<8x2xf32>) outs(%e1 : tensor<8x2xf32>) -> tensor<8x2xf32>
  %v = tensor.collapse_shape %a [[0, 1]] : tensor<8x2xf32> into tensor<16xf32>
  %e2 = tensor.empty() : tensor<16xf32>
  %b = linalg.add ins(%v, %v : tensor<16xf32>, tensor<16xf32>) outs(%e2 : tensor<16xf32>) -> tensor<16xf32>
  return %b : tensor<16xf32>
}
