// RUN: remat-opt %s --remat-split-shared-empty --split-input-file | FileCheck %s

// A tensor.empty written by two ops far apart (as torch-mlir emits it): each
// writer gets its own clone right before it, and the shared one goes.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @two_writers
// CHECK:       %[[E0:.*]] = tensor.empty() : tensor<16xf32>
// CHECK-NEXT:  %[[A:.*]] = linalg.generic {{.*}} outs(%[[E0]] : tensor<16xf32>)
// CHECK:       %[[C:.*]] = linalg.generic
// CHECK:       %[[E1:.*]] = tensor.empty() : tensor<16xf32>
// CHECK-NEXT:  linalg.generic {{.*}} outs(%[[E1]] : tensor<16xf32>)
// CHECK-NOT:   tensor.empty
func.func @two_writers(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %e = tensor.empty() : tensor<16xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %t = math.exp %in : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<16xf32>) outs(%x : tensor<16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %t = arith.addf %in, %o : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%c : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %t = arith.mulf %in, %in : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  return %a, %b : tensor<16xf32>, tensor<16xf32>
}

// -----

// Dynamic sizes are cloned with their operands; a use inside a loop gets its
// clone before the loop, in the empty's block; the same op using the empty
// twice gets two clones.
// CHECK-LABEL: func.func @dynamic_and_nested
// CHECK-SAME:  (%[[N:.*]]: index
// CHECK:       %[[E0:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK-NEXT:  linalg.fill {{.*}} outs(%[[E0]] : tensor<?xf32>)
// CHECK:       %[[E1:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK-NEXT:  scf.for
// CHECK:         linalg.fill {{.*}} outs(%[[E1]] : tensor<?xf32>)
// CHECK:       %[[E2:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK-NEXT:  %[[E3:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK-NEXT:  linalg.copy ins(%[[E3]] : tensor<?xf32>) outs(%[[E2]] : tensor<?xf32>)
func.func @dynamic_and_nested(%n: index, %f: f32) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %e = tensor.empty(%n) : tensor<?xf32>
  %a = linalg.fill ins(%f : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %l = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %a) -> tensor<?xf32> {
    %b = linalg.fill ins(%f : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    scf.yield %b : tensor<?xf32>
  }
  %c = linalg.copy ins(%e : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %a, %l, %c : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}

// -----

// An empty with one use stays where it is.
// CHECK-LABEL: func.func @one_use
// CHECK-NEXT:  tensor.empty
// CHECK-NEXT:  arith.constant
// CHECK-NEXT:  linalg.fill
func.func @one_use(%f: f32) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %c = arith.constant 1.0 : f32
  %a = linalg.fill ins(%f : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}
