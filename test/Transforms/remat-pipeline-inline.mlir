// RUN: remat-opt %s --remat-pipeline="solver=brute-force budget=96" --verify-diagnostics | FileCheck %s
// RUN: not remat-opt %s --remat-pipeline="solver=brute-force budget=96 inline=false" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOINLINE

// The chain of remat-pipeline.mlir, written as a training step that calls a
// private layer function. The pipeline inlines the calls first, so it plans
// exactly the chain: the same plan (recompute %c, 24 -> 28 flops, peak 96),
// and the private helper, no longer called, is erased.
// expected-remark @below {{remat plan: solver 'brute-force' (min-compute) optimal, gap 0.0%; predicted peak 96 bytes (budget 96, checkpoint-all 112); recomputes 1 op(s), compute overhead 16.7%}}
// expected-remark @below {{peak memory 96 bytes within the budget of 96 bytes (checkpoint-all 112 bytes); 1 recomputed op(s), compute overhead 16.7%}}
func.func @chain(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = func.call @layer(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %b = func.call @layer(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %c = func.call @layer(%b) : (tensor<4xf32>) -> tensor<4xf32>
  %gc = arith.mulf %c, %w : tensor<4xf32>
  %gb = arith.mulf %gc, %b : tensor<4xf32>
  %ga = arith.mulf %gb, %a : tensor<4xf32>
  return %c, %ga : tensor<4xf32>, tensor<4xf32>
}

func.func private @layer(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = math.tanh %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @chain
// CHECK-SAME:    remat.plan = #remat.plan<solver = "brute-force", mode = "min-compute", status = "optimal", budget = 96, predicted_peak = 96, baseline_peak = 112, cost = 28, baseline_cost = 24, lower_bound = 28, arena = 96>
// CHECK-NOT:     func.call
// CHECK:         %[[A:.*]] = math.tanh %arg0
// CHECK-NEXT:    %[[B:.*]] = math.tanh %[[A]]
// CHECK-NEXT:    %[[C:.*]] = math.tanh %[[B]]
// CHECK:         %[[C2:.*]] = math.tanh {{.*}}remat.recomputed
// CHECK-NEXT:    return %[[C2]]
// CHECK-NOT:   func.func private @layer

// Without inlining, the calls are opaque to the cost model.
// NOINLINE: error: 'func.call' op calls a function the cost model cannot see into; inline it first
