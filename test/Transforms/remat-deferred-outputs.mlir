// RUN: remat-opt %s --remat-select-checkpoints=solver=checkpoint-all 2>/dev/null | FileCheck %s --check-prefix=ALL
// RUN: remat-opt %s --remat-select-checkpoints="solver=auto budget=96" 2>/dev/null | FileCheck %s --check-prefix=PLAN
// RUN: remat-opt %s --remat-select-checkpoints="solver=auto budget=96" --remat-rematerialize 2>/dev/null | FileCheck %s --check-prefix=APPLY
// RUN: remat-opt %s --remat-select-checkpoints="solver=auto budget=96" --remat-rematerialize --remat-verify-memory=budget=96 -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY

// A weight gradient (%gw, returned) computed early, next to the backward work
// that reads it (%b1), and then held to the end (docs/Solvers.md, "Deferring
// outputs"). 16 bytes per tensor; %x, %w and %seed (48 bytes) resident. In
// program order: a 64, gw 80, b1 96 (a freed: 80), b2 96, dx 112 (peak:
// gw, b1, b2, dx), then b1, b2 freed.
// ALL: remat.plan = #remat.plan<solver = "checkpoint-all", mode = "min-compute", status = "optimal", budget = 112, predicted_peak = 112, baseline_peak = 112, cost = 20, baseline_cost = 20

// Budget 96: %gw must not be live at %dx, yet it is returned: the only plan
// frees it after %b1 and computes it again at the end (cost 20 + 4). Then
// dx: b1, b2, dx = 96; the end: dx, gw = 80.
// PLAN: remat.plan = #remat.plan<solver = "auto", mode = "min-compute", status = "optimal", budget = 96, predicted_peak = 96, baseline_peak = 112, cost = 24, baseline_cost = 20
// PLAN: arith.mulf %arg2, %arg1 {{.*}}remat.steps = array<i64: {{[0-9]}}, 5>

// The pass clones the backward op to the end and returns the clone.
// APPLY-LABEL: func.func @late_weight_gradient
// APPLY:         %[[GW:.*]] = arith.mulf %arg2, %arg1
// APPLY-NEXT:    %[[B1:.*]] = arith.mulf %[[GW]],
// APPLY-NEXT:    %[[B2:.*]] = arith.mulf %[[B1]], %arg1
// APPLY-NEXT:    %[[DX:.*]] = arith.mulf %[[B2]], %[[B1]]
//                The clone reads %seed through a barrier (no cse with %gw).
// APPLY-NEXT:    %[[SEED:.*]] = remat.barrier %arg2
// APPLY-NEXT:    %[[GW2:.*]] = arith.mulf %[[SEED]], %arg1 {{.*}}remat.recomputed
// APPLY-NEXT:    return %[[GW2]], %[[DX]]

// VERIFY: remark: peak memory 96 bytes within the budget of 96 bytes (checkpoint-all 112 bytes); 1 recomputed op(s), compute overhead 20.0%

#c16 = #remat.cost<bytes = [16], flops = 4>
#fwd = #remat.phase<forward>
#bwd = #remat.phase<backward>
func.func @late_weight_gradient(%x: tensor<4xf32>, %w: tensor<4xf32>, %seed: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = math.tanh %x {remat.cost = #c16, remat.phase = #fwd} : tensor<4xf32>
  %gw = arith.mulf %seed, %w {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  %b1 = arith.mulf %gw, %a {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  %b2 = arith.mulf %b1, %w {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  %dx = arith.mulf %b2, %b1 {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  return %gw, %dx : tensor<4xf32>, tensor<4xf32>
}
