// RUN: remat-opt %s --remat-pipeline="solver=brute-force" --verify-diagnostics | FileCheck %s

// An scf.for is ONE node of the plan, costed from its body (3 trips x
// (mulf 4 + tanh 4) = 24 FLOPs, 16 bytes). Its body's two temporaries (%t,
// %u: 32 bytes) live only while the loop runs; the memory analysis counts
// them there, and the graph reserves them for the whole step (fixed bytes),
// so the plan's peak is never below what --remat-verify-memory measures.
//
// Memory analysis, checkpoint-all (arguments 32 bytes resident):
//   at the loop: %a 16 + %l 16 + body 32 = 64 -> 96 (the peak)
//   at %g:       %a 16 + %l 16 + %loss 4 + %g 16 = 52 -> 84
// Graph (32 fixed + 32 arguments): the peak is at %g, 64 + 52 = 116, which
// no schedule lowers (%a, %l, %loss and %g are all needed there).
// No budget given: 100 %, of the larger of that peak and the checkpoint-all
// order's arena, where the 4-byte %loss takes 16: 128 (docs/Arena.md).
// expected-remark @below {{predicted peak 116 bytes (budget 128, checkpoint-all 116)}}
// expected-remark @below {{peak memory 96 bytes within the budget of 128 bytes}}
func.func @loop_step(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %a = math.tanh %x : tensor<4xf32>
  %l = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %a) -> (tensor<4xf32>) {
    %t = arith.mulf %acc, %w : tensor<4xf32>
    %u = math.tanh %t : tensor<4xf32>
    scf.yield %u : tensor<4xf32>
  }
  %e = tensor.empty() : tensor<f32>
  %loss = linalg.reduce ins(%l : tensor<4xf32>) outs(%e : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %g = arith.mulf %l, %a : tensor<4xf32>
  return %loss, %g : tensor<f32>, tensor<4xf32>
}
// CHECK-LABEL: func.func @loop_step
// CHECK-SAME:    remat.plan = #remat.plan<solver = "brute-force", mode = "min-compute", status = "optimal", budget = 128, predicted_peak = 116, baseline_peak = 116
// CHECK:         scf.for
// CHECK:         } {remat.cost = #remat.cost<bytes = [16], flops = 24>
