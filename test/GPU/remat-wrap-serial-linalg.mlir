// RUN: remat-opt %s --split-input-file --remat-wrap-serial-linalg | FileCheck %s

// A full reduction (no parallel iterator) and an op on rank-0 memrefs get a
// one-iteration scf.parallel; an op with a parallel iterator does not.

// CHECK-LABEL: func.func @loss
//       CHECK:   %[[C0:.*]] = arith.constant 0 : index
//       CHECK:   %[[C1:.*]] = arith.constant 1 : index
//       CHECK:   scf.parallel (%{{.*}}) = (%[[C0]]) to (%[[C1]]) step (%[[C1]]) {
//  CHECK-NEXT:     linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<f32>)
//  CHECK-NEXT:     scf.reduce
//  CHECK-NEXT:   }
//       CHECK:   scf.parallel
//  CHECK-NEXT:     linalg.reduce ins(%{{.*}} : memref<8x4xf32>) outs(%{{.*}} : memref<f32>) dimensions = [0, 1]
//       CHECK:     scf.reduce
//  CHECK-NEXT:   }
//  CHECK-NEXT:   linalg.reduce ins(%{{.*}} : memref<8x4xf32>) outs(%{{.*}} : memref<4xf32>) dimensions = [0]
//       CHECK:   return
func.func @loss(%x: memref<8x4xf32>, %s: memref<f32>, %col: memref<4xf32>) {
  %cst = arith.constant 0.0 : f32
  linalg.fill ins(%cst : f32) outs(%s : memref<f32>)
  linalg.reduce ins(%x : memref<8x4xf32>) outs(%s : memref<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  linalg.reduce ins(%x : memref<8x4xf32>) outs(%col : memref<4xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  return
}

// -----

// Ops already inside a parallel loop, and ops on tensors, are left alone.

// CHECK-LABEL: func.func @untouched
//       CHECK:   scf.parallel
//  CHECK-NEXT:     linalg.fill
//  CHECK-NEXT:     scf.reduce
//  CHECK-NEXT:   }
//  CHECK-NEXT:   %[[T:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<f32>) -> tensor<f32>
//  CHECK-NEXT:   return %[[T]]
func.func @untouched(%s: memref<f32>, %t: tensor<f32>, %n: index) -> tensor<f32> {
  %cst = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    linalg.fill ins(%cst : f32) outs(%s : memref<f32>)
    scf.reduce
  }
  %r = linalg.fill ins(%cst : f32) outs(%t : tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
