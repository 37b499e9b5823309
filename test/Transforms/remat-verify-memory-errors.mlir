// RUN: remat-opt %s --split-input-file --remat-verify-memory --verify-diagnostics -o /dev/null

#c16 = #remat.cost<bytes = [16], flops = 4>
#fwd = #remat.phase<forward>
#bwd = #remat.phase<backward>
// The chain in program order peaks at %gb: a,b,c,gc,gb + args = 112 bytes,
// over the plan's 96.
// expected-error @below {{peak memory of 112 bytes exceeds the budget of 96 bytes}}
func.func @over_budget(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {remat.plan = #remat.plan<solver = "brute-force", mode = "min-compute", status = "optimal", budget = 96, predicted_peak = 96, baseline_peak = 112, cost = 28, baseline_cost = 24>} {
  // expected-note @below {{live there: 16 bytes of type 'tensor<4xf32>', result of 'math.tanh'}}
  %a = math.tanh %x {remat.cost = #c16, remat.phase = #fwd} : tensor<4xf32>
  // expected-note @below {{live there: 16 bytes of type 'tensor<4xf32>', result of 'math.tanh'}}
  %b = math.tanh %a {remat.cost = #c16, remat.phase = #fwd} : tensor<4xf32>
  // expected-note @below {{live there: 16 bytes of type 'tensor<4xf32>', result of 'math.tanh'}}
  %c = math.tanh %b {remat.cost = #c16, remat.phase = #fwd} : tensor<4xf32>
  %gc = arith.mulf %c, %w {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  // expected-note @below {{the peak of 112 bytes is reached at this 'arith.mulf' (32 bytes of it are arguments)}}
  %gb = arith.mulf %gc, %b {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  %ga = arith.mulf %gb, %a {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  return %c, %ga : tensor<4xf32>, tensor<4xf32>
}

// -----

// Neither a remat.plan nor budget=: nothing to verify against, which is an
// error rather than a silent pass (bad-input tour, issue 11).
#c16 = #remat.cost<bytes = [16], flops = 4>
// expected-error @below {{remat-verify-memory: nothing to verify 'unplanned' against: it has no remat.plan and no budget= is given}}
func.func @unplanned(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = math.tanh %x {remat.cost = #c16} : tensor<4xf32>
  return %a : tensor<4xf32>
}
