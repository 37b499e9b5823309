// RUN: remat-opt %s --split-input-file --remat-lower-host-memory | FileCheck %s

// The host copies of a bufferized step (memory space 1, docs/Offload.md) are
// counted on the function, then become plain buffers: 64 bytes live at most
// (the two copies overlap), 4 copies of 32 bytes each.
// CHECK-LABEL: func.func @two_copies
//  CHECK-SAME:   remat.host_copies = array<i64: 64, 4, 128>
//   CHECK-NOT:   memref<8xf32, 1>
//       CHECK:   %[[H:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   memref.copy %{{.*}}, %[[H]] : memref<8xf32> to memref<8xf32>
func.func @two_copies(%a: memref<8xf32>, %b: memref<8xf32>, %c: memref<8xf32>, %d: memref<8xf32>) {
  %h1 = memref.alloc() : memref<8xf32, 1>
  memref.copy %a, %h1 : memref<8xf32> to memref<8xf32, 1>
  %h2 = memref.alloc() : memref<8xf32, 1>
  memref.copy %b, %h2 : memref<8xf32> to memref<8xf32, 1>
  memref.copy %h1, %c : memref<8xf32, 1> to memref<8xf32>
  memref.dealloc %h1 : memref<8xf32, 1>
  memref.copy %h2, %d : memref<8xf32, 1> to memref<8xf32>
  memref.dealloc %h2 : memref<8xf32, 1>
  return
}

// -----

// A dynamic host copy counts at the function's size hint (4 x 4 floats).
// CHECK-LABEL: func.func @dynamic
//  CHECK-SAME:   remat.host_copies = array<i64: 64, 2, 128>
func.func @dynamic(%a: memref<?x4xf32>, %n: index) attributes {remat.dynamic_size_hint = 4 : i64} {
  %h = memref.alloc(%n) : memref<?x4xf32, 1>
  memref.copy %a, %h : memref<?x4xf32> to memref<?x4xf32, 1>
  memref.copy %h, %a : memref<?x4xf32, 1> to memref<?x4xf32>
  memref.dealloc %h : memref<?x4xf32, 1>
  return
}

// -----

// Without host copies nothing is recorded.
// CHECK-LABEL: func.func @none
//   CHECK-NOT:   remat.host_copies
func.func @none(%a: memref<8xf32>) {
  return
}
