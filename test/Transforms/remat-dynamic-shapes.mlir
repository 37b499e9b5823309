// RUN: remat-opt %s --remat-pipeline="dynamic-size-hint=8" --verify-diagnostics | FileCheck %s
// The guards lower with the rest of the step.
// RUN: remat-opt %s --remat-pipeline="dynamic-size-hint=8" 2>/dev/null \
// RUN:   | remat-opt --remat-lower-to-cpu | FileCheck %s --check-prefix=LOWERED

// A dynamic batch: every dynamic dimension is assumed to be 8 (a warning on
// each op whose cost used it), the plan is made for that size, and the
// function checks at entry that the batch it gets is no larger.
//
// Sizes with a batch of 8: %x 8x4xf32 = 128 bytes (resident), %a and %g 128
// bytes each, %f and %loss 4 bytes each (%f dies at the reduction).
// Checkpoint-all peak, at %g: 128 + 128 + 4 + 128 = 388.
// The memory analysis behind --remat-verify-memory does not size a dynamic
// argument: it measures 388 - 128 = 260, below what the plan reserves.
// No budget given: 100 %, of the larger of that peak and the checkpoint-all
// order's arena, where the 4-byte %f takes 16: 128 + 128 + 16 + 128 = 400
// (docs/Arena.md).
// expected-remark @below {{predicted peak 388 bytes (budget 400, checkpoint-all 388)}}
// expected-remark @below {{peak memory 260 bytes within the budget of 400 bytes}}
func.func @dynamic_batch(%x: tensor<?x4xf32>) -> (tensor<f32>, tensor<?x4xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x4xf32>
  %init = tensor.empty(%n) : tensor<?x4xf32>
  // expected-warning @below {{cost assumes every dynamic dimension has size 8}}
  %a = linalg.exp ins(%x : tensor<?x4xf32>) outs(%init : tensor<?x4xf32>) -> tensor<?x4xf32>
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  // expected-warning @below {{cost assumes every dynamic dimension has size 8}}
  %loss = linalg.reduce ins(%a : tensor<?x4xf32>) outs(%f : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %init2 = tensor.empty(%n) : tensor<?x4xf32>
  // expected-warning @below {{cost assumes every dynamic dimension has size 8}}
  %g = linalg.mul ins(%a, %a : tensor<?x4xf32>, tensor<?x4xf32>) outs(%init2 : tensor<?x4xf32>) -> tensor<?x4xf32>
  return %loss, %g : tensor<f32>, tensor<?x4xf32>
}
// CHECK-LABEL: func.func @dynamic_batch
// CHECK-SAME:    remat.dynamic_size_hint = 8 : i64
// CHECK-SAME:    remat.plan = #remat.plan<
// CHECK-NEXT:    %[[HINT:.*]] = arith.constant {{.*}}8 : index
// CHECK:         %[[N:.*]] = tensor.dim {{.*}}%arg0, %{{.*}}
// CHECK-NEXT:    %[[OK:.*]] = arith.cmpi ule, %[[N]], %[[HINT]]
// CHECK-NEXT:    cf.assert %[[OK]], "dimension 0 of argument #0 exceeds 8, the dynamic-size hint the rematerialization plan assumed" {remat.phase = #remat.phase<forward>}
// CHECK:         linalg.exp

// LOWERED: llvm.func @dynamic_batch
// LOWERED: llvm.icmp "ule"
// LOWERED: llvm.cond_br
// LOWERED: llvm.call @abort
