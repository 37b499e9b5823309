// RUN: remat-opt %s --split-input-file --remat-overlap-host-copies | FileCheck %s

// Steps as gpu-async-region leaves them (gpu.memset stands for a kernel).
// An offload from the arena runs on a stream of its own: it forks after the
// op that made its source; an op on other bytes of the arena goes on without
// waiting, the first op on the copy's bytes waits for it (a new stream that
// waits for both), and every stream left is destroyed before the return.

// CHECK-LABEL: func.func @offload
//       CHECK:   %[[T2:.*]] = gpu.memset async [%{{.*}}] %[[A:.*]], %{{.*}}
//       CHECK:   %[[S:.*]] = gpu.wait async [%[[T2]], %[[T2]]]
//       CHECK:   %[[C:.*]] = gpu.memcpy async [%[[S]]] %{{.*}}, %[[A]]
//       CHECK:   %[[T4:.*]] = gpu.memset async [%[[T2]]] %[[B:.*]], %{{.*}}
//       CHECK:   %[[J:.*]] = gpu.wait async [%[[T4]], %[[C]]]
//       CHECK:   %[[T5:.*]] = gpu.memset async [%[[J]]]
//       CHECK:   %[[T6:.*]] = gpu.dealloc async [%[[T5]]]
//       CHECK:   gpu.wait [%[[T6]]]
//  CHECK-NEXT:   memref.dealloc
//  CHECK-NEXT:   gpu.wait [%[[T4]], %[[C]]]
//  CHECK-NEXT:   return
func.func @offload(%f: f32) {
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %h = memref.alloc() {remat.pinned_host} : memref<64xi8>
  %t0 = gpu.wait async
  %arena, %t1 = gpu.alloc async [%t0] () : memref<512xi8>
  %a = memref.view %arena[%c0][] : memref<512xi8> to memref<16xf32>
  %t2 = gpu.memset async [%t1] %a, %f : memref<16xf32>, f32
  %ha = memref.view %h[%c0][] : memref<64xi8> to memref<16xf32>
  %t3 = gpu.memcpy async [%t2] %ha, %a : memref<16xf32>, memref<16xf32>
  %b = memref.view %arena[%c256][] : memref<512xi8> to memref<16xf32>
  %t4 = gpu.memset async [%t3] %b, %f : memref<16xf32>, f32
  %c = memref.view %arena[%c0][] : memref<512xi8> to memref<8xf32>
  %t5 = gpu.memset async [%t4] %c, %f : memref<8xf32>, f32
  %t6 = gpu.dealloc async [%t5] %arena : memref<512xi8>
  gpu.wait [%t6]
  memref.dealloc %h : memref<64xi8>
  return
}

// -----

// The free of an offloaded buffer follows its copy on the copy's stream, so
// the compute stream goes on; the prefetch after it forks after that free
// too (copies keep their order), and the first op on the prefetched buffer
// waits for it.

// CHECK-LABEL: func.func @prefetch_after_offload
//       CHECK:   %[[T2:.*]] = gpu.memset async
//       CHECK:   %[[S1:.*]] = gpu.wait async [%[[T2]], %[[T2]]]
//       CHECK:   %[[C1:.*]] = gpu.memcpy async [%[[S1]]]
//       CHECK:   %[[D:.*]] = gpu.dealloc async [%[[C1]]]
//       CHECK:   %[[B:.*]], %[[T5:.*]] = gpu.alloc async [%[[T2]]]
//       CHECK:   %[[S2:.*]] = gpu.wait async [%[[T5]], %[[D]]]
//       CHECK:   %[[C2:.*]] = gpu.memcpy async [%[[S2]]] %[[B]]
//       CHECK:   %[[X:.*]], %[[T7:.*]] = gpu.alloc async [%[[T5]]]
//       CHECK:   %[[T8:.*]] = gpu.memset async [%[[T7]]] %[[X]]
//       CHECK:   %[[J:.*]] = gpu.wait async [%[[T8]], %[[C2]]]
//       CHECK:   %[[T9:.*]] = gpu.memset async [%[[J]]] %[[B]]
//       CHECK:   gpu.wait [%[[T9]]]
//  CHECK-NEXT:   gpu.wait [%[[T8]], %[[D]], %[[C2]]]
//  CHECK-NEXT:   return
func.func @prefetch_after_offload(%f: f32) -> memref<16xf32> {
  %c0 = arith.constant 0 : index
  %h = memref.alloc() {remat.pinned_host} : memref<64xi8>
  %hv = memref.view %h[%c0][] : memref<64xi8> to memref<16xf32>
  %t0 = gpu.wait async
  %a, %t1 = gpu.alloc async [%t0] () : memref<16xf32>
  %t2 = gpu.memset async [%t1] %a, %f : memref<16xf32>, f32
  %t3 = gpu.memcpy async [%t2] %hv, %a : memref<16xf32>, memref<16xf32>
  %t4 = gpu.dealloc async [%t3] %a : memref<16xf32>
  %b, %t5 = gpu.alloc async [%t4] () : memref<16xf32>
  %t6 = gpu.memcpy async [%t5] %b, %hv : memref<16xf32>, memref<16xf32>
  %x, %t7 = gpu.alloc async [%t6] () : memref<16xf32>
  %t8 = gpu.memset async [%t7] %x, %f : memref<16xf32>, f32
  %t9 = gpu.memset async [%t8] %b, %f : memref<16xf32>, f32
  gpu.wait [%t9]
  return %b : memref<16xf32>
}

// -----

// A copy right after the start of a chain forks from nothing (the new stream
// has nothing to wait for); a host call on the host buffer waits for the
// copy on the host first, which destroys its stream.

// CHECK-LABEL: func.func @host_release
//       CHECK:   %[[T0:.*]] = gpu.wait async
//  CHECK-NEXT:   %[[S:.*]] = gpu.wait async
//  CHECK-NEXT:   %[[C:.*]] = gpu.memcpy async [%[[S]]]
//  CHECK-NEXT:   gpu.wait [%[[T0]]]
//  CHECK-NEXT:   %[[CAST:.*]] = memref.cast
//  CHECK-NEXT:   gpu.wait [%[[C]]]
//  CHECK-NEXT:   gpu.host_unregister %[[CAST]]
//  CHECK-NEXT:   memref.dealloc
//  CHECK-NEXT:   return
func.func @host_release(%a: memref<16xf32>) {
  %h = memref.alloc() {remat.pinned_host} : memref<16xf32>
  %t0 = gpu.wait async
  %t1 = gpu.memcpy async [%t0] %h, %a : memref<16xf32>, memref<16xf32>
  gpu.wait [%t1]
  %cast = memref.cast %h : memref<16xf32> to memref<*xf32>
  gpu.host_unregister %cast : memref<*xf32>
  memref.dealloc %h : memref<16xf32>
  return
}

// -----

// Function arguments may be one buffer: an op on another argument waits for
// an offload from an argument.

// CHECK-LABEL: func.func @arguments_may_alias
//       CHECK:   %[[C:.*]] = gpu.memcpy async
//       CHECK:   %[[J:.*]] = gpu.wait async [%[[T1:.*]], %[[C]]]
//       CHECK:   gpu.memset async [%[[J]]] %{{.*}}, %{{.*}} : memref<16xf32>
func.func @arguments_may_alias(%a: memref<16xf32>, %b: memref<16xf32>, %f: f32) {
  %h = memref.alloc() {remat.pinned_host} : memref<16xf32>
  %t0 = gpu.wait async
  %t1 = gpu.memset async [%t0] %a, %f : memref<16xf32>, f32
  %t2 = gpu.memcpy async [%t1] %h, %a : memref<16xf32>, memref<16xf32>
  %t3 = gpu.memset async [%t2] %b, %f : memref<16xf32>, f32
  gpu.wait [%t3]
  return
}

// -----

// A copy with memory that is not page-locked (an upload of a global) stays
// on the compute stream, as do the copies of a function of several blocks.

// CHECK-LABEL: func.func @not_overlapped
//   CHECK-NOT:   gpu.wait async [
//       CHECK:   return
//   CHECK-NOT:   gpu.wait async [
//       CHECK:   return
func.func @not_overlapped(%a: memref<16xf32>, %cond: i1) {
  %h = memref.alloc() : memref<16xf32>
  %p = memref.alloc() {remat.pinned_host} : memref<16xf32>
  %t0 = gpu.wait async
  %t1 = gpu.memcpy async [%t0] %h, %a : memref<16xf32>, memref<16xf32>
  cf.cond_br %cond, ^bb1, ^bb2
^bb1:
  %t2 = gpu.memcpy async [%t1] %p, %a : memref<16xf32>, memref<16xf32>
  gpu.wait [%t2]
  return
^bb2:
  gpu.wait [%t1]
  return
}
