// RUN: remat-opt %s --split-input-file --remat-verify-memory --verify-diagnostics -o /dev/null
// RUN: remat-opt %s --split-input-file --remat-verify-memory=budget=0.125KiB --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPT

#c16 = #remat.cost<bytes = [16], flops = 4>
#fwd = #remat.phase<forward>
#bwd = #remat.phase<backward>
// The rematerialized chain of remat-rematerialize.mlir (%a recomputed before
// %ga). Peak: args 32; a 48; b: a,b 64; c: b,c 64; gc: b,c,gc 80;
// gb: b,c,gc,gb 96; a': c,gb,a' 80; ga: c,gb,a',ga 96 -> 96 bytes. The plan
// costs 28 against 24: 16.7 % overhead.
// OPT: remark: peak memory 96 bytes within the budget of 128 bytes
// expected-remark @below {{peak memory 96 bytes within the budget of 96 bytes (checkpoint-all 112 bytes); 1 recomputed op(s), compute overhead 16.7%}}
func.func @rematerialized(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {remat.plan = #remat.plan<solver = "brute-force", mode = "min-compute", status = "optimal", budget = 96, predicted_peak = 96, baseline_peak = 112, cost = 28, baseline_cost = 24>} {
  %a = math.tanh %x {remat.cost = #c16, remat.phase = #fwd} : tensor<4xf32>
  %b = math.tanh %a {remat.cost = #c16, remat.phase = #fwd} : tensor<4xf32>
  %c = math.tanh %b {remat.cost = #c16, remat.phase = #fwd} : tensor<4xf32>
  %gc = arith.mulf %c, %w {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  %gb = arith.mulf %gc, %b {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  %xb = remat.barrier %x {remat.cost = #remat.cost<bytes = [0], flops = 0>, remat.phase = #fwd} : tensor<4xf32>
  %a2 = math.tanh %xb {remat.cost = #c16, remat.phase = #fwd, remat.recomputed} : tensor<4xf32>
  %ga = arith.mulf %gb, %a2 {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  return %c, %ga : tensor<4xf32>, tensor<4xf32>
}

// -----

// Without a plan or a budget option there is nothing to check against: an
// error rather than a silent pass (remat-verify-memory-errors.mlir); with
// budget= the function is checked.
// OPT: remark: peak memory 32 bytes within the budget of 128 bytes
// expected-error @below {{nothing to verify 'no_plan' against}}
func.func @no_plan(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = math.tanh %x {remat.cost = #remat.cost<bytes = [16], flops = 4>} : tensor<4xf32>
  return %a : tensor<4xf32>
}
