// RUN: remat-opt %s --remat-strip-barriers | FileCheck %s
// RUN: remat-opt %s --remat-strip-barriers=strip-attributes | FileCheck %s --check-prefix=ATTRS

// CHECK-LABEL: func.func @strip
// CHECK-NOT:     remat.barrier
// CHECK:         %[[A:.*]] = math.tanh %arg0 {remat.cost
// CHECK-NEXT:    %[[A2:.*]] = math.tanh %arg0 {remat.cost = #remat.cost<bytes = [16], flops = 4>, remat.recomputed}
// CHECK-NEXT:    return %[[A]], %[[A2]]
// ATTRS-LABEL: func.func @strip
// ATTRS-NOT:     remat.
// ATTRS:         math.tanh %arg0 : tensor<4xf32>
// ATTRS-NEXT:    math.tanh %arg0 : tensor<4xf32>
// ATTRS-NOT:     remat.
func.func @strip(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {remat.plan = #remat.plan<solver = "checkpoint-all", mode = "min-compute", status = "optimal", budget = 1, predicted_peak = 1, baseline_peak = 1, cost = 1, baseline_cost = 1>} {
  %a = math.tanh %x {remat.cost = #remat.cost<bytes = [16], flops = 4>} : tensor<4xf32>
  %xb = remat.barrier %x {remat.cost = #remat.cost<bytes = [0], flops = 0>} : tensor<4xf32>
  %a2 = math.tanh %xb {remat.cost = #remat.cost<bytes = [16], flops = 4>, remat.recomputed} : tensor<4xf32>
  return %a, %a2 : tensor<4xf32>, tensor<4xf32>
}

// A plan that records an arena leaves it (arguments included) for
// remat-plan-arena to meet after bufferization (docs/Arena.md).
// CHECK-LABEL: func.func @planned_arena
// CHECK-SAME:    remat.plan
// ATTRS-LABEL: func.func @planned_arena
// ATTRS-SAME:    attributes {remat.planned_arena = 48 : i64}
// ATTRS-NOT:     remat.
func.func @planned_arena(%x: tensor<4xf32>) -> tensor<4xf32> attributes {remat.plan = #remat.plan<solver = "checkpoint-all", mode = "min-compute", status = "optimal", budget = 48, predicted_peak = 32, baseline_peak = 32, cost = 4, baseline_cost = 4, arena = 48>} {
  %a = math.tanh %x {remat.cost = #remat.cost<bytes = [16], flops = 4>} : tensor<4xf32>
  return %a : tensor<4xf32>
}
