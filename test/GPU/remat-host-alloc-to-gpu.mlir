// RUN: remat-opt %s --split-input-file --remat-host-alloc-to-gpu | FileCheck %s
// RUN: remat-opt %s --split-input-file --remat-host-alloc-to-gpu --gpu-async-region | FileCheck %s --check-prefix=ASYNC

// Allocations and frees placed by bufferization become device allocations
// and frees at the same program points; linalg ops are untouched.

// CHECK-LABEL: func.func @alloc_dealloc
//  CHECK-SAME:   (%[[ARG:.*]]: memref<16xf32>)
//       CHECK:   %[[A:.*]] = gpu.alloc () : memref<16xf32>
//       CHECK:   linalg.fill ins(%{{.*}} : f32) outs(%[[A]] : memref<16xf32>)
//       CHECK:   %[[B:.*]] = gpu.alloc () : memref<16xf32>
//       CHECK:   linalg.add ins(%[[A]], %[[ARG]] : {{.*}}) outs(%[[B]] : memref<16xf32>)
//       CHECK:   gpu.dealloc %[[A]] : memref<16xf32>
//       CHECK:   return %[[B]]
//   CHECK-NOT:   memref.alloc
//   CHECK-NOT:   memref.dealloc

// The ops are synchronous; gpu-async-region chains them on one stream.
// ASYNC-LABEL: func.func @alloc_dealloc
//       ASYNC:   %[[T0:.*]] = gpu.wait async
//       ASYNC:   %[[A:.*]], %[[T1:.*]] = gpu.alloc async [%[[T0]]] () : memref<16xf32>
//       ASYNC:   gpu.dealloc async [%{{.*}}] %[[A]] : memref<16xf32>
//       ASYNC:   gpu.wait [%{{.*}}]
//       ASYNC:   return
func.func @alloc_dealloc(%arg: memref<16xf32>) -> memref<16xf32> {
  %cst = arith.constant 1.0 : f32
  %a = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<16xf32>)
  %b = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  linalg.add ins(%a, %arg : memref<16xf32>, memref<16xf32>) outs(%b : memref<16xf32>)
  memref.dealloc %a : memref<16xf32>
  return %b : memref<16xf32>
}

// -----

// Dynamic sizes and symbol operands carry over.

// CHECK-LABEL: func.func @dynamic
//  CHECK-SAME:   (%[[N:.*]]: index, %[[S:.*]]: index)
//       CHECK:   %[[A:.*]] = gpu.alloc (%[[N]]) : memref<?x4xf32>
//       CHECK:   %[[B:.*]] = gpu.alloc (%[[N]])[%[[S]]] : memref<?xf32, #{{.*}}>
//       CHECK:   gpu.dealloc %[[B]]
//       CHECK:   gpu.dealloc %[[A]]
func.func @dynamic(%n: index, %s: index) {
  %a = memref.alloc(%n) : memref<?x4xf32>
  %b = memref.alloc(%n)[%s] : memref<?xf32, affine_map<(d0)[s0] -> (d0 + s0)>>
  memref.dealloc %b : memref<?xf32, affine_map<(d0)[s0] -> (d0 + s0)>>
  memref.dealloc %a : memref<?x4xf32>
  return
}

// -----

// memref.copy would be a host memcpy on device pointers: it becomes a
// linalg.copy (a kernel after lowering), also on strided views.

// CHECK-LABEL: func.func @copy
//       CHECK:   %[[A:.*]] = gpu.alloc () : memref<8x8xf32>
//       CHECK:   %[[V:.*]] = memref.subview %[[A]][0, 0] [4, 4] [1, 1]
//       CHECK:   linalg.copy ins(%{{.*}} : memref<4x4xf32>) outs(%[[V]] : memref<4x4xf32, strided<[8, 1]>>)
//   CHECK-NOT:   memref.copy
func.func @copy(%src: memref<4x4xf32>) -> memref<8x8xf32> {
  %a = memref.alloc() : memref<8x8xf32>
  %v = memref.subview %a[0, 0] [4, 4] [1, 1] : memref<8x8xf32> to memref<4x4xf32, strided<[8, 1]>>
  memref.copy %src, %v : memref<4x4xf32> to memref<4x4xf32, strided<[8, 1]>>
  return %a : memref<8x8xf32>
}

// -----

// A bufferized constant is uploaded once into a device buffer, freed before
// every return.

memref.global "private" constant @cst : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>

// CHECK-LABEL: func.func @global
//       CHECK:   %[[G:.*]] = memref.get_global @cst : memref<4xf32>
//       CHECK:   %[[D:.*]] = gpu.alloc () : memref<4xf32>
//       CHECK:   gpu.memcpy %[[D]], %[[G]] : memref<4xf32>, memref<4xf32>
//       CHECK:   linalg.add ins(%[[D]], %{{.*}} : {{.*}}) outs(%{{.*}} : memref<4xf32>)
//       CHECK:   cf.cond_br
//       CHECK:   gpu.dealloc %[[D]] : memref<4xf32>
//  CHECK-NEXT:   return
//       CHECK:   gpu.dealloc %[[D]] : memref<4xf32>
//  CHECK-NEXT:   return
func.func @global(%x: memref<4xf32>, %c: i1) {
  %g = memref.get_global @cst : memref<4xf32>
  linalg.add ins(%g, %x : memref<4xf32>, memref<4xf32>) outs(%x : memref<4xf32>)
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  return
^bb2:
  return
}

// -----

memref.global "private" constant @one : memref<f32> = dense<1.0>

// A returned constant belongs to the caller: no free before that return.

// CHECK-LABEL: func.func @returned_global
//       CHECK:   %[[D:.*]] = gpu.alloc () : memref<f32>
//       CHECK:   gpu.memcpy %[[D]]
//   CHECK-NOT:   gpu.dealloc
//       CHECK:   return %[[D]]
func.func @returned_global() -> memref<f32> {
  %g = memref.get_global @one : memref<f32>
  return %g : memref<f32>
}

// -----

// Scalar code inside linalg payloads and metadata queries on the host are
// fine; nothing else changes.

// CHECK-LABEL: func.func @no_buffers_created
//       CHECK:   memref.dim
//       CHECK:   linalg.generic
//       CHECK:     arith.mulf
//   CHECK-NOT:   gpu.alloc
func.func @no_buffers_created(%x: memref<?xf32>) -> index {
  %c0 = arith.constant 0 : index
  %d = memref.dim %x, %c0 : memref<?xf32>
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      outs(%x : memref<?xf32>) {
  ^bb0(%o: f32):
    %m = arith.mulf %o, %o : f32
    linalg.yield %m : f32
  }
  return %d : index
}

// -----

// A host copy (memory space 1, what remat.offload bufferizes to,
// docs/Offload.md) stays in host memory: one host arena, registered with the
// driver at the entry until the return, holds every host copy at an offset
// (64-byte aligned; the recorded host peak is the arena's bytes); copies to
// and from it become gpu.memcpy; device buffers become gpu.alloc as before.

// CHECK-LABEL: func.func @offload_copy
//  CHECK-SAME:   (%[[ARG:.*]]: memref<16xf32>)
//  CHECK-SAME:   remat.host_copies = array<i64: 64, 2, 128>
//       CHECK:   %[[H:.*]] = memref.alloc() {alignment = 64 : i64, remat.pinned_host} : memref<64xi8>
//       CHECK:   %[[HC:.*]] = memref.cast %[[H]] : memref<64xi8> to memref<*xi8>
//       CHECK:   gpu.host_register %[[HC]] : memref<*xi8>
//       CHECK:   %[[D:.*]] = gpu.alloc () : memref<16xf32>
//       CHECK:   %[[V:.*]] = memref.view %[[H]][%{{.*}}][] : memref<64xi8> to memref<16xf32>
//       CHECK:   gpu.memcpy %[[V]], %[[D]] : memref<16xf32>, memref<16xf32>
//       CHECK:   gpu.dealloc %[[D]]
//       CHECK:   %[[B:.*]] = gpu.alloc () : memref<16xf32>
//       CHECK:   gpu.memcpy %[[B]], %[[V]] : memref<16xf32>, memref<16xf32>
//       CHECK:   gpu.host_unregister %{{.*}} : memref<*xi8>
//  CHECK-NEXT:   memref.dealloc %[[H]] : memref<64xi8>
//  CHECK-NEXT:   return
//   CHECK-NOT:   memref<16xf32, 1>
// The host waits for the copies before it releases the host arena.
// ASYNC-LABEL: func.func @offload_copy
//       ASYNC:   gpu.host_register
//       ASYNC:   gpu.memcpy async
//       ASYNC:   gpu.dealloc async
//       ASYNC:   %[[T:.*]] = gpu.memcpy async
//  ASYNC-NEXT:   memref.cast
//  ASYNC-NEXT:   gpu.wait [%[[T]]]
//  ASYNC-NEXT:   gpu.host_unregister
//  ASYNC-NEXT:   memref.dealloc
func.func @offload_copy(%arg: memref<16xf32>) -> memref<16xf32> {
  %a = memref.alloc() : memref<16xf32>
  linalg.add ins(%arg, %arg : memref<16xf32>, memref<16xf32>) outs(%a : memref<16xf32>)
  %h = memref.alloc() : memref<16xf32, 1>
  memref.copy %a, %h : memref<16xf32> to memref<16xf32, 1>
  memref.dealloc %a : memref<16xf32>
  %b = memref.alloc() : memref<16xf32>
  memref.copy %h, %b : memref<16xf32, 1> to memref<16xf32>
  memref.dealloc %h : memref<16xf32, 1>
  return %b : memref<16xf32>
}

// -----

// Host copies live at different times share the arena's bytes: the second
// is offloaded after the first came back.
// CHECK-LABEL: func.func @host_copies_share_bytes
//  CHECK-SAME:   remat.host_copies = array<i64: 64, 4, 256>
//       CHECK:   %[[H:.*]] = memref.alloc() {alignment = 64 : i64, remat.pinned_host} : memref<64xi8>
//       CHECK:   %[[C0:.*]] = arith.constant 0 : index
//       CHECK:   memref.view %[[H]][%[[C0]]][]
//       CHECK:   %[[C1:.*]] = arith.constant 0 : index
//       CHECK:   memref.view %[[H]][%[[C1]]][]
func.func @host_copies_share_bytes(%arg: memref<16xf32>) -> memref<16xf32> {
  %h = memref.alloc() : memref<16xf32, 1>
  memref.copy %arg, %h : memref<16xf32> to memref<16xf32, 1>
  %b = memref.alloc() : memref<16xf32>
  memref.copy %h, %b : memref<16xf32, 1> to memref<16xf32>
  memref.dealloc %h : memref<16xf32, 1>
  %h2 = memref.alloc() : memref<16xf32, 1>
  memref.copy %b, %h2 : memref<16xf32> to memref<16xf32, 1>
  memref.copy %h2, %b : memref<16xf32, 1> to memref<16xf32>
  memref.dealloc %h2 : memref<16xf32, 1>
  return %b : memref<16xf32>
}

// -----

// A host copy of dynamic size (planned at the function's size hint) cannot
// be placed in the arena: each host copy is then page-locked on its own
// until its free.
// CHECK-LABEL: func.func @dynamic_host_copy
//       CHECK:   %[[H:.*]] = memref.alloc(%{{.*}}) {remat.pinned_host} : memref<?xf32>
//       CHECK:   gpu.host_register %{{.*}} : memref<*xf32>
//       CHECK:   gpu.memcpy %[[H]]
//       CHECK:   gpu.memcpy %{{.*}}, %[[H]]
//       CHECK:   gpu.host_unregister
//  CHECK-NEXT:   memref.dealloc %[[H]] : memref<?xf32>
func.func @dynamic_host_copy(%arg: memref<?xf32>, %n: index) -> memref<?xf32>
    attributes {remat.dynamic_size_hint = 8 : i64} {
  %h = memref.alloc(%n) : memref<?xf32, 1>
  memref.copy %arg, %h : memref<?xf32> to memref<?xf32, 1>
  %b = memref.alloc(%n) : memref<?xf32>
  memref.copy %h, %b : memref<?xf32, 1> to memref<?xf32>
  memref.dealloc %h : memref<?xf32, 1>
  return %b : memref<?xf32>
}
