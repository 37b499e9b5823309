// Naming the loss (loss=) and the other forward outputs (forward-results=),
// and the warning when several results could be the loss.
// RUN: remat-opt %s --remat-infer-phases --verify-diagnostics | FileCheck %s
// RUN: remat-opt %s --remat-infer-phases="loss=2 functions=step" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LOSS
// RUN: remat-opt %s --remat-infer-phases="loss=2 forward-results=3 functions=step" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=METRIC
// forward-results= alone names the forward outputs: no loss is inferred, no
// warning.
// RUN: remat-opt %s --remat-infer-phases="forward-results=2,3 functions=step" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=METRIC
// The pipeline passes both options down.
// RUN: remat-opt %s --remat-pipeline="loss=2 forward-results=3 functions=step solver=checkpoint-all" \
// RUN:   --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=PIPELINE

// A step as torch-mlir returns it, updates first: (w', b', loss, metric).
// loss = sum(x * w) + b; the gradients are x (for w) and 1 (for b), applied
// with learning rate 1; metric = max(x * w) is a forward value the loss does
// not need. b', the loss and the metric are all 0-d f32 tensors.
//
// Without options the first of them, b' (#1), is taken as the loss: only the
// constant it reads is forward, and the loss itself becomes "backward".
// CHECK-LABEL: func.func @step
// CHECK-NEXT:  arith.constant {remat.phase = #remat.phase<forward>}
// CHECK-NEXT:  arith.mulf {{.*}} {remat.phase = #remat.phase<backward>}
// CHECK-NEXT:  tensor.empty() {remat.phase = #remat.phase<backward>}
// CHECK-NEXT:  linalg.reduce {{.*}} {remat.phase = #remat.phase<backward>}
// CHECK:       arith.addf {{.*}} {remat.phase = #remat.phase<backward>}
// CHECK-NEXT:  linalg.reduce {{.*}} {remat.phase = #remat.phase<backward>}
// CHECK:       arith.subf {{.*}} {remat.phase = #remat.phase<backward>}
// CHECK-NEXT:  arith.subf {{.*}} {remat.phase = #remat.phase<forward>}
// CHECK-NEXT:  return

// With loss=2: x * w, the sum and + b are forward, no warning.
// LOSS-NOT:    warning:
// LOSS-LABEL:  func.func @step
// LOSS-NEXT:   arith.constant {remat.phase = #remat.phase<backward>}
// LOSS-NEXT:   arith.mulf {{.*}} {remat.phase = #remat.phase<forward>}
// LOSS-NEXT:   tensor.empty() {remat.phase = #remat.phase<forward>}
// LOSS-NEXT:   linalg.reduce {{.*}} {remat.phase = #remat.phase<forward>}
// LOSS:        arith.addf {{.*}} {remat.phase = #remat.phase<forward>}
// LOSS-NEXT:   linalg.reduce {{.*}} {remat.phase = #remat.phase<backward>}
// LOSS:        arith.subf {{.*}} {remat.phase = #remat.phase<backward>}
// LOSS-NEXT:   arith.subf {{.*}} {remat.phase = #remat.phase<backward>}
// LOSS-NEXT:   return

// Naming the metric (#3) a forward output too makes its max forward.
// METRIC-NOT:   warning:
// METRIC-LABEL: func.func @step
// METRIC-NEXT:  arith.constant {remat.phase = #remat.phase<backward>}
// METRIC-NEXT:  arith.mulf {{.*}} {remat.phase = #remat.phase<forward>}
// METRIC-NEXT:  tensor.empty() {remat.phase = #remat.phase<forward>}
// METRIC-NEXT:  linalg.reduce {{.*}} {remat.phase = #remat.phase<forward>}
// METRIC:       arith.addf {{.*}} {remat.phase = #remat.phase<forward>}
// METRIC-NEXT:  linalg.reduce {{.*}} {remat.phase = #remat.phase<forward>}
// METRIC:       arith.subf {{.*}} {remat.phase = #remat.phase<backward>}
// METRIC-NEXT:  arith.subf {{.*}} {remat.phase = #remat.phase<backward>}
// METRIC-NEXT:  return

// PIPELINE-NOT:   warning:
// PIPELINE:       remark: remat plan: solver 'checkpoint-all'
// PIPELINE-LABEL: func.func @step
// PIPELINE:       arith.mulf {{.*}}remat.phase = #remat.phase<forward>
// PIPELINE:       linalg.reduce {{.*}}remat.phase = #remat.phase<forward>
// PIPELINE:       arith.addf {{.*}}remat.phase = #remat.phase<forward>
// PIPELINE:       linalg.reduce {{.*}}remat.phase = #remat.phase<forward>
// PIPELINE:       arith.subf {{.*}}remat.phase = #remat.phase<backward>
// PIPELINE-NEXT:  arith.subf {{.*}}remat.phase = #remat.phase<backward>

// expected-warning @below {{'func.func' op has 3 results that could be the loss: #1 (tensor<f32>), #2 (tensor<f32>), #3 (tensor<f32>); taking #1, the first (name the loss with loss=<index>, or the forward outputs with forward-results=)}}
func.func @step(%x: tensor<4xf32>, %w: tensor<4xf32>, %b: tensor<f32>)
    -> (tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %one = arith.constant dense<1.0> : tensor<f32>
  %y = arith.mulf %x, %w : tensor<4xf32>
  %e = tensor.empty() : tensor<f32>
  %s = linalg.reduce ins(%y : tensor<4xf32>) outs(%e : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  %loss = arith.addf %s, %b : tensor<f32>
  %metric = linalg.reduce ins(%y : tensor<4xf32>) outs(%e : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %w2 = arith.subf %w, %x : tensor<4xf32>
  %b2 = arith.subf %b, %one : tensor<f32>
  return %w2, %b2, %loss, %metric : tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>
}

// An integer scalar (a step counter, like batch norm's num_batches_tracked)
// is no loss next to a float one: the loss (#1) is inferred without a
// warning, and the counter's increment is backward.
// CHECK-LABEL: func.func @counter
// CHECK-NEXT:  arith.constant {remat.phase = #remat.phase<backward>}
// CHECK-NEXT:  arith.addi {{.*}} {remat.phase = #remat.phase<backward>}
// CHECK-NEXT:  tensor.empty() {remat.phase = #remat.phase<forward>}
// CHECK-NEXT:  linalg.reduce {{.*}} {remat.phase = #remat.phase<forward>}
// CHECK:       return
func.func @counter(%x: tensor<4xf32>, %n: tensor<i64>) -> (tensor<i64>, tensor<f32>) {
  %one = arith.constant dense<1> : tensor<i64>
  %n2 = arith.addi %n, %one : tensor<i64>
  %e = tensor.empty() : tensor<f32>
  %loss = linalg.reduce ins(%x : tensor<4xf32>) outs(%e : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  return %n2, %loss : tensor<i64>, tensor<f32>
}

// Without a float scalar, the first integer scalar is the loss; two of them
// are ambiguous too.
// expected-warning @below {{'func.func' op has 2 results that could be the loss: #0 (i32), #1 (tensor<i64>); taking #0, the first}}
func.func @integers(%a: i32, %n: tensor<i64>) -> (i32, tensor<i64>) {
  return %a, %n : i32, tensor<i64>
}
