// RUN: remat-opt %s --remat-decompose-aggregated-ops | FileCheck %s

// linalg.softmax along dimension 1 becomes the upstream decomposition: a
// max-reduction into a filled 2-element tensor, exp(x - max), a
// sum-reduction, and a division, each a linalg.generic on tensors.
// CHECK-LABEL: func.func @softmax
// CHECK-NOT:   linalg.softmax
// CHECK:       linalg.fill
// CHECK:       linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:         arith.maxnumf
// CHECK:       linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:         arith.subf
// CHECK:         math.exp
// CHECK:       linalg.fill
// CHECK:       linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:         arith.addf
// CHECK:       %[[R:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:         arith.divf
// CHECK:       return %[[R]] : tensor<2x3xf32>
func.func @softmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %init = tensor.empty() : tensor<2x3xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<2x3xf32>)
                                   outs(%init : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}

// Other ops are left alone.
// CHECK-LABEL: func.func @no_aggregate
// CHECK-NEXT:  math.tanh
// CHECK-NEXT:  return
func.func @no_aggregate(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = math.tanh %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
