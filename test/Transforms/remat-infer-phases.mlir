// RUN: remat-opt %s --split-input-file --remat-infer-phases | FileCheck %s
// The function names are unique, so the whole file is also one module, in
// which functions= can name functions of different sections.
// RUN: remat-opt %s --remat-infer-phases="forward-results=0,2 functions=step,other" \
// RUN:   | FileCheck %s --check-prefix=TWO
// RUN: remat-opt %s --remat-infer-phases="functions=other" \
// RUN:   | FileCheck %s --check-prefix=ONLY

// A one-layer training step: loss = sum(relu(x @ w)), dw = x^T @ (ones * [y > 0]),
// w' = w - lr * dw. Returns (loss, w', y).
// Forward = everything the loss depends on: the matmul chain, ReLU and the sum,
// and the constants and empties they read. Backward = the gradient and update.

// CHECK-LABEL: func.func @step
// CHECK-NEXT:  arith.constant {remat.phase = #remat.phase<forward>} 0.000000e+00 : f32
// CHECK-NEXT:  arith.constant {remat.phase = #remat.phase<backward>} dense<1.000000e+00>
// CHECK-NEXT:  arith.constant {remat.phase = #remat.phase<backward>} dense<1.000000e-01>
// CHECK-NEXT:  tensor.empty() {remat.phase = #remat.phase<forward>} : tensor<4x8xf32>
// CHECK-NEXT:  linalg.fill {remat.phase = #remat.phase<forward>}
// CHECK-NEXT:  linalg.matmul {remat.phase = #remat.phase<forward>}
// CHECK-NEXT:  linalg.fill {remat.phase = #remat.phase<forward>}
// CHECK-NEXT:  arith.maximumf {{.*}} {remat.phase = #remat.phase<forward>}
// CHECK-NEXT:  tensor.empty() {remat.phase = #remat.phase<forward>} : tensor<f32>
// CHECK-NEXT:  linalg.fill {remat.phase = #remat.phase<forward>}
// CHECK-NEXT:  linalg.reduce {{.*}} {remat.phase = #remat.phase<forward>}
// CHECK:       arith.cmpf {{.*}} {remat.phase = #remat.phase<backward>}
// CHECK-NEXT:  arith.select {{.*}} {remat.phase = #remat.phase<backward>}
// CHECK-NEXT:  tensor.empty() {remat.phase = #remat.phase<backward>} : tensor<16x4xf32>
// CHECK-NEXT:  linalg.transpose {{.*}} {remat.phase = #remat.phase<backward>}
// CHECK-NEXT:  tensor.empty() {remat.phase = #remat.phase<backward>} : tensor<16x8xf32>
// CHECK-NEXT:  linalg.fill {remat.phase = #remat.phase<backward>}
// CHECK-NEXT:  linalg.matmul {remat.phase = #remat.phase<backward>}
// CHECK-NEXT:  arith.mulf {{.*}} {remat.phase = #remat.phase<backward>}
// CHECK-NEXT:  arith.subf {{.*}} {remat.phase = #remat.phase<backward>}
// The terminator gets no mark.
// CHECK-NEXT:  return %{{.*}} : tensor<f32>, tensor<16x8xf32>, tensor<4x8xf32>

// With forward-results=0,2 the pre-activation y (result 2) is forward too,
// which it already is: the same 9 ops are forward. (functions=step,other
// keeps the option away from the 2-result functions below.)
// TWO-LABEL: func.func @step
// TWO-COUNT-9: remat.phase = #remat.phase<forward>
// TWO-NOT: remat.phase = #remat.phase<forward>
// TWO: return

// ONLY-LABEL: func.func @step
// ONLY-NOT: remat.phase
// ONLY: return
func.func @step(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>)
    -> (tensor<f32>, tensor<16x8xf32>, tensor<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %ones = arith.constant dense<1.0> : tensor<4x8xf32>
  %lr = arith.constant dense<0.1> : tensor<16x8xf32>
  // Forward.
  %e0 = tensor.empty() : tensor<4x8xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x16xf32>, tensor<16x8xf32>)
                     outs(%f0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = arith.maximumf %y, %zeros : tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<f32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<f32>) -> tensor<f32>
  %loss = linalg.reduce ins(%r : tensor<4x8xf32>) outs(%f1 : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  // Backward.
  %pos = arith.cmpf ogt, %y, %zeros : tensor<4x8xf32>
  %dy = arith.select %pos, %ones, %zeros : tensor<4x8xi1>, tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<16x4xf32>
  %xt = linalg.transpose ins(%x : tensor<4x16xf32>) outs(%e2 : tensor<16x4xf32>) permutation = [1, 0]
  %e3 = tensor.empty() : tensor<16x8xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<16x8xf32>) -> tensor<16x8xf32>
  %dw = linalg.matmul ins(%xt, %dy : tensor<16x4xf32>, tensor<4x8xf32>)
                      outs(%f3 : tensor<16x8xf32>) -> tensor<16x8xf32>
  %step = arith.mulf %lr, %dw : tensor<16x8xf32>
  %w2 = arith.subf %w, %step : tensor<16x8xf32>
  return %loss, %w2, %y : tensor<f32>, tensor<16x8xf32>, tensor<4x8xf32>
}

// -----

// Explicit marks win and are never overwritten. An op explicitly marked
// forward makes what it reads forward; an op explicitly marked backward stays
// backward even though the loss depends on it.

// CHECK-LABEL: func.func @explicit_marks
// CHECK-NEXT:  math.exp {{.*}} {remat.phase = #remat.phase<backward>}
// CHECK-NEXT:  arith.addf {{.*}} {remat.phase = #remat.phase<forward>}
// CHECK-NEXT:  arith.mulf {{.*}} {remat.phase = #remat.phase<forward>}
// CHECK-NEXT:  math.tanh {{.*}} {remat.phase = #remat.phase<forward>}
// CHECK-NEXT:  arith.subf {{.*}} {remat.phase = #remat.phase<backward>}
// CHECK-NEXT:  return
func.func @explicit_marks(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = math.exp %x {remat.phase = #remat.phase<backward>} : tensor<4xf32>
  %loss = arith.addf %a, %a : tensor<4xf32>
  // Not on the loss path, but read by the explicitly forward tanh.
  %m = arith.mulf %x, %x : tensor<4xf32>
  %metric = math.tanh %m {remat.phase = #remat.phase<forward>} : tensor<4xf32>
  %g = arith.subf %loss, %metric : tensor<4xf32>
  return %loss, %g : tensor<4xf32>, tensor<4xf32>
}

// -----

// Ops with regions: the top-level op gets the mark, nested ops none; a value
// that the region captures from above is a dependency like an operand.

// CHECK-LABEL: func.func @regions
// CHECK-NEXT:  arith.constant {remat.phase = #remat.phase<forward>} 0 : index
// CHECK-NEXT:  arith.constant {remat.phase = #remat.phase<forward>} 1 : index
// CHECK-NEXT:  arith.constant {remat.phase = #remat.phase<forward>} 3 : index
// CHECK-NEXT:  math.exp {{.*}} {remat.phase = #remat.phase<forward>}
// CHECK-NEXT:  scf.for
// CHECK-NEXT:    arith.addf %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : tensor<4xf32>
// CHECK-NEXT:    scf.yield
// CHECK-NEXT:  } {remat.phase = #remat.phase<forward>}
// CHECK-NEXT:  arith.negf {{.*}} {remat.phase = #remat.phase<backward>}
// CHECK-NEXT:  return
func.func @regions(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  // Only used inside the loop body.
  %bias = math.exp %x : tensor<4xf32>
  %loss = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %x) -> (tensor<4xf32>) {
    %next = arith.addf %acc, %bias : tensor<4xf32>
    scf.yield %next : tensor<4xf32>
  }
  %g = arith.negf %loss : tensor<4xf32>
  return %loss, %g : tensor<4xf32>, tensor<4xf32>
}

// -----

// A forward output that is a function argument depends on no op: every op is
// backward. Declarations are skipped.

// CHECK-LABEL: func.func private @declaration(tensor<4xf32>) -> tensor<4xf32>
func.func private @declaration(tensor<4xf32>) -> tensor<4xf32>

// CHECK-LABEL: func.func @argument_output
// CHECK-NEXT:  arith.addf {{.*}} {remat.phase = #remat.phase<backward>}
// ONLY-LABEL: func.func @other
// ONLY-NEXT:  arith.addf {{.*}} {remat.phase = #remat.phase<backward>}
func.func @argument_output(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = arith.addf %x, %x : tensor<4xf32>
  return %x, %0, %0 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// With forward-results=0,2, result 2 makes the add forward.
// TWO-LABEL: func.func @other
// TWO-NEXT:  arith.addf {{.*}} {remat.phase = #remat.phase<forward>}
func.func @other(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = arith.addf %x, %x : tensor<4xf32>
  return %x, %0, %0 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// The loss is the first scalar result wherever it is, here the last: the
// reduction and what it reads are forward, the gradient backward. (Taking
// result 0 instead would make the gradient forward and the loss backward.)

// CHECK-LABEL: func.func @loss_last
// CHECK-NEXT:  math.tanh {{.*}} {remat.phase = #remat.phase<forward>}
// CHECK-NEXT:  tensor.empty() {remat.phase = #remat.phase<forward>}
// CHECK-NEXT:  linalg.reduce {{.*}} {remat.phase = #remat.phase<forward>}
// CHECK:       arith.mulf {{.*}} {remat.phase = #remat.phase<backward>}
// CHECK-NEXT:  return
func.func @loss_last(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>) {
  %a = math.tanh %x : tensor<4xf32>
  %e = tensor.empty() : tensor<f32>
  %loss = linalg.reduce ins(%a : tensor<4xf32>) outs(%e : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %g = arith.mulf %a, %w : tensor<4xf32>
  return %g, %loss : tensor<4xf32>, tensor<f32>
}

// A scalar loss need not be a tensor.
// CHECK-LABEL: func.func @scalar_loss
// CHECK-NEXT:  math.exp {{.*}} {remat.phase = #remat.phase<backward>}
// CHECK-NEXT:  arith.constant {remat.phase = #remat.phase<forward>}
// CHECK-NEXT:  tensor.extract {{.*}} {remat.phase = #remat.phase<forward>}
// CHECK-NEXT:  return
func.func @scalar_loss(%x: tensor<4xf32>) -> (tensor<4xf32>, f32) {
  %g = math.exp %x : tensor<4xf32>
  %c0 = arith.constant 0 : index
  %loss = tensor.extract %x[%c0] : tensor<4xf32>
  return %g, %loss : tensor<4xf32>, f32
}
