// RUN: remat-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(remat-free-after-last-use))' | FileCheck %s

// A buffer read by a call that returns a scalar: freed right after the call.
// (Upstream optimize-allocation-liveness takes the f32 result for an alias of
// the buffer and moves the dealloc after the return: invalid IR.)
// CHECK-LABEL: func.func @step
// CHECK:       %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK:       call @sum(%[[A]])
// CHECK-NEXT:  memref.dealloc %[[A]] : memref<4xf32>
// CHECK-NEXT:  %[[B:.*]] = memref.alloc() : memref<4xf32>
// CHECK:       memref.dealloc %[[B]] : memref<4xf32>
// CHECK-NEXT:  return
func.func private @sum(memref<4xf32>) -> f32
func.func @step(%x: memref<4xf32>) -> f32 {
  %a = memref.alloc() : memref<4xf32>
  linalg.exp ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
  %r = call @sum(%a) : (memref<4xf32>) -> f32
  %b = memref.alloc() : memref<4xf32>
  linalg.fill ins(%r : f32) outs(%b : memref<4xf32>)
  %s = call @sum(%b) : (memref<4xf32>) -> f32
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return %s : f32
}

// -----

// A view keeps its buffer live; a memref a call returns may alias it too.
// CHECK-LABEL: func.func @aliases
// CHECK:       %[[A:.*]] = memref.alloc() : memref<16xf32>
// CHECK:       %[[V:.*]] = memref.subview %[[A]]
// CHECK:       %[[R:.*]] = call @pass
// CHECK-NEXT:  linalg.copy ins(%[[R]]
// CHECK-NEXT:  memref.dealloc %[[A]] : memref<16xf32>
// CHECK-NEXT:  return
func.func private @pass(memref<4xf32, strided<[1]>>) -> memref<4xf32, strided<[1]>>
func.func @aliases(%x: memref<4xf32>) {
  %a = memref.alloc() : memref<16xf32>
  %v = memref.subview %a[0] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1]>>
  %r = call @pass(%v) : (memref<4xf32, strided<[1]>>) -> memref<4xf32, strided<[1]>>
  linalg.copy ins(%r : memref<4xf32, strided<[1]>>) outs(%x : memref<4xf32>)
  memref.dealloc %a : memref<16xf32>
  return
}
