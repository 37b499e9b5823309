// RUN: remat-opt %s --remat-select-checkpoints=solver=checkpoint-all --mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s --check-prefix=ALL
// RUN: remat-opt %s --remat-select-checkpoints="solver=brute-force budget=96" 2>/dev/null | FileCheck %s --check-prefix=B96
// RUN: remat-opt %s --remat-select-checkpoints="solver=brute-force budget=0.09375KiB" 2>/dev/null | FileCheck %s --check-prefix=B96
// RUN: remat-opt %s --remat-select-checkpoints="solver=brute-force budget=72%" 2>/dev/null | FileCheck %s --check-prefix=B80
// RUN: remat-opt %s --remat-select-checkpoints="solver=brute-force mode=min-budget" 2>/dev/null | FileCheck %s --check-prefix=MINB
// RUN: remat-opt %s --remat-select-checkpoints="solver=brute-force budget=min" 2>&1 | FileCheck %s --check-prefix=BMIN
// RUN: remat-opt %s --remat-select-checkpoints="solver=brute-force budget=96" --verify-diagnostics -o /dev/null
// RUN: %if coinor %{ remat-opt %s --remat-select-checkpoints="solver=checkmate-milp budget=96 time-limit=30" 2>/dev/null | FileCheck %s --check-prefix=MILP %}
// RUN: remat-opt %s --remat-select-checkpoints="solver=brute-force budget=96" --remat-rematerialize --remat-verify-memory=budget=96 -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY

// Memory of the chain below, 16 bytes per tensor, arguments %x and %w (32
// bytes) resident. In program order (checkpoint-all):
//   a: 32+16=48, b: 64, c: 80, gc: a,b,c,gc = 32+64 = 96,
//   gb: a,b,c,gc,gb = 32+80 = 112 (peak), ga: a,c,gb,ga = 96.
// Compute: 6 ops x 4 flops = 24.
// ALL: func.func @chain
// ALL-SAME: remat.plan = #remat.plan<solver = "checkpoint-all", mode = "min-compute", status = "optimal", budget = 112, predicted_peak = 112, baseline_peak = 112, cost = 24, baseline_cost = 24
// ALL-COUNT-6: remat.steps = array<i64: {{[0-5]}}>

// Budget 96: the cheapest fix recomputes one tanh (cost 4 -> 28). The exact
// solver picks %c (the loss): freed after %gc, recomputed at the end as an
// output. Peak: gc: a,b,c,gc = 96; gb: a,b,gc,gb = 96; ga: a,gb,ga = 80.
// B96: func.func @chain
// B96-SAME: status = "optimal", budget = 96, predicted_peak = 96, baseline_peak = 112, cost = 28, baseline_cost = 24
// B96: math.tanh %arg0 {{.*}}remat.steps = array<i64: 0>
// B96: math.tanh {{.*}}remat.steps = array<i64: 1>
// B96: math.tanh {{.*}}remat.steps = array<i64: 2, 6>
// B96: arith.mulf {{.*}}remat.steps = array<i64: 3>
// B96: arith.mulf {{.*}}remat.steps = array<i64: 4>
// B96: arith.mulf {{.*}}remat.steps = array<i64: 5>

// The MILP proves the same optimum (one tanh recomputed, cost 28).
// MILP: remat.plan = #remat.plan<solver = "checkmate-milp", mode = "min-compute", status = "optimal", budget = 96, predicted_peak = 96, baseline_peak = 112, cost = 28, baseline_cost = 24

// 72% of 112 = 80.64 -> 80 bytes: every forward op is recomputed once
// (cost 24 + 12 = 36).
// B80: func.func @chain
// B80-SAME: budget = 80, predicted_peak = 80, baseline_peak = 112, cost = 36, baseline_cost = 24
// B80-COUNT-3: math.tanh {{.*}}remat.steps = array<i64: {{[0-9]}}, {{[0-9]}}>

// 80 bytes is the least any schedule needs: %gb needs %gc and %b resident
// while it is computed, 32 + 3 x 16 = 80.
// MINB: remat.plan = #remat.plan<solver = "brute-force", mode = "min-budget", status = "optimal", budget = 80, predicted_peak = 80

// budget=min plans at that smallest budget directly: a min-compute plan at
// 80 bytes, the plan the solver returns when asked at 80 (as B80 above).
// BMIN: remark: budget=min: the smallest feasible budget of solver 'brute-force' is 80 bytes (71.4% of the checkpoint-all peak)
// BMIN: remark: remat plan: solver 'brute-force' (min-compute) optimal, gap 0.0%; predicted peak 80 bytes (budget 80, checkpoint-all 112); recomputes 3 op(s)
// BMIN: remat.plan = #remat.plan<solver = "brute-force", mode = "min-compute", status = "optimal", budget = 80, predicted_peak = 80, baseline_peak = 112, cost = 36, baseline_cost = 24

// VERIFY: remark: peak memory 96 bytes within the budget of 96 bytes (checkpoint-all 112 bytes); 1 recomputed op(s), compute overhead 16.7%

#c16 = #remat.cost<bytes = [16], flops = 4>
#fwd = #remat.phase<forward>
#bwd = #remat.phase<backward>
// expected-remark @below {{remat plan: solver 'brute-force' (min-compute) optimal, gap 0.0%; predicted peak 96 bytes (budget 96, checkpoint-all 112); recomputes 1 op(s), compute overhead 16.7%}}
func.func @chain(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = math.tanh %x {remat.cost = #c16, remat.phase = #fwd} : tensor<4xf32>
  %b = math.tanh %a {remat.cost = #c16, remat.phase = #fwd} : tensor<4xf32>
  %c = math.tanh %b {remat.cost = #c16, remat.phase = #fwd} : tensor<4xf32>
  %gc = arith.mulf %c, %w {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  %gb = arith.mulf %gc, %b {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  %ga = arith.mulf %gb, %a {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  return %c, %ga : tensor<4xf32>, tensor<4xf32>
}
