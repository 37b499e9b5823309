// RUN: remat-opt %s --split-input-file --remat-fold-partial-sum-inits | FileCheck %s

// shard-partition's init of a partial sum: the original init (a zero fill)
// on the first process, a new zero fill elsewhere. Both are zero: the
// matmul accumulates into the outer fill.
// CHECK-LABEL: func.func @zero_init
// CHECK:         %[[Z:.*]] = linalg.fill
// CHECK-NOT:     scf.if
// CHECK:         linalg.matmul {{.*}} outs(%[[Z]] : tensor<4x4xf32>)
func.func @zero_init(%a: tensor<4x2xf32>, %b: tensor<2x4xf32>, %first: i1) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %i = scf.if %first -> (tensor<4x4xf32>) {
    scf.yield %z : tensor<4x4xf32>
  } else {
    %e2 = tensor.empty() : tensor<4x4xf32>
    %zero2 = arith.constant 0.0 : f32
    %z2 = linalg.fill ins(%zero2 : f32) outs(%e2 : tensor<4x4xf32>) -> tensor<4x4xf32>
    scf.yield %z2 : tensor<4x4xf32>
  }
  %g = linalg.matmul ins(%a, %b : tensor<4x2xf32>, tensor<2x4xf32>) outs(%i : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %g : tensor<4x4xf32>
}

// -----

// An init that is not the neutral element (here 1.0) must stay on the
// first process only: the scf.if stays.
// CHECK-LABEL: func.func @one_init
// CHECK:         scf.if
func.func @one_init(%a: tensor<4x2xf32>, %b: tensor<2x4xf32>, %first: i1) -> tensor<4x4xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %o = linalg.fill ins(%one : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %i = scf.if %first -> (tensor<4x4xf32>) {
    scf.yield %o : tensor<4x4xf32>
  } else {
    %e2 = tensor.empty() : tensor<4x4xf32>
    %zero = arith.constant 0.0 : f32
    %z = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x4xf32>) -> tensor<4x4xf32>
    scf.yield %z : tensor<4x4xf32>
  }
  %g = linalg.matmul ins(%a, %b : tensor<4x2xf32>, tensor<2x4xf32>) outs(%i : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %g : tensor<4x4xf32>
}
