// RUN: remat-opt %s --remat-pipeline="solver=brute-force budget=96" --verify-diagnostics | FileCheck %s
// RUN: remat-opt %s --remat-pipeline="budget=96" 2>/dev/null | FileCheck %s --check-prefix=AUTO

// The chain of remat-select-checkpoints.mlir, unannotated: the pipeline
// annotates costs (tanh/mulf on 4 x f32: 16 bytes, 4 flops), infers phases
// (forward = what the first result %c depends on), plans at 96 bytes
// (recompute %c at the end, 24 -> 28 flops), rematerializes and verifies.
// expected-remark @below {{remat plan: solver 'brute-force' (min-compute) optimal, gap 0.0%; predicted peak 96 bytes (budget 96, checkpoint-all 112); recomputes 1 op(s), compute overhead 16.7%}}
// expected-remark @below {{peak memory 96 bytes within the budget of 96 bytes (checkpoint-all 112 bytes); 1 recomputed op(s), compute overhead 16.7%}}
func.func @chain(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = math.tanh %x : tensor<4xf32>
  %b = math.tanh %a : tensor<4xf32>
  %c = math.tanh %b : tensor<4xf32>
  %gc = arith.mulf %c, %w : tensor<4xf32>
  %gb = arith.mulf %gc, %b : tensor<4xf32>
  %ga = arith.mulf %gb, %a : tensor<4xf32>
  return %c, %ga : tensor<4xf32>, tensor<4xf32>
}
// The default solver is the portfolio, `auto`; on a graph this small it runs
// the exhaustive solver and reports its optimum.
// AUTO: remat.plan = #remat.plan<solver = "auto", mode = "min-compute", status = "optimal", budget = 96, predicted_peak = 96, baseline_peak = 112, cost = 28, baseline_cost = 24, lower_bound = 28, arena = 96>

// CHECK-LABEL: func.func @chain
// CHECK-SAME:    remat.plan = #remat.plan<solver = "brute-force", mode = "min-compute", status = "optimal", budget = 96, predicted_peak = 96, baseline_peak = 112, cost = 28, baseline_cost = 24, lower_bound = 28, arena = 96>
// CHECK:         %[[A:.*]] = math.tanh %arg0
// CHECK-NEXT:    %[[B:.*]] = math.tanh %[[A]]
// CHECK-NEXT:    %[[C:.*]] = math.tanh %[[B]]
// CHECK-NEXT:    %[[GC:.*]] = arith.mulf %[[C]], %arg1
// CHECK-NEXT:    %[[GB:.*]] = arith.mulf %[[GC]], %[[B]]
// CHECK-NEXT:    %[[GA:.*]] = arith.mulf %[[GB]], %[[A]]
//                The loss is recomputed last; its first copy dies at %gc.
//                The clone reads %b as the original does: a barrier keeps
//                cse from merging them.
// CHECK-NEXT:    %[[BB:.*]] = remat.barrier %[[B]]
// CHECK-NEXT:    %[[C2:.*]] = math.tanh %[[BB]] {{{.*}}remat.recomputed
// CHECK-NEXT:    return %[[C2]], %[[GA]]
