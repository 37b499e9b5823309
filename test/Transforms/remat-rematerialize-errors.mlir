// RUN: remat-opt %s --split-input-file --remat-rematerialize --verify-diagnostics

#c16 = #remat.cost<bytes = [16], flops = 4>
#fwd = #remat.phase<forward>

func.func @not_covered(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = math.tanh %x {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 0>} : tensor<4xf32>
  // expected-error @below {{op is not covered by the rematerialization plan (no 'remat.steps')}}
  %b = math.tanh %a {remat.cost = #c16, remat.phase = #fwd} : tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

#c16 = #remat.cost<bytes = [16], flops = 4>
#fwd = #remat.phase<forward>

func.func @duplicate_step(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @below {{also given here}}
  %a = math.tanh %x {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 0, 1>} : tensor<4xf32>
  // expected-error @below {{schedule step 1 is given to two ops}}
  %b = math.tanh %a {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 1>} : tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

#c16 = #remat.cost<bytes = [16], flops = 4>
#fwd = #remat.phase<forward>

func.func @use_before_compute(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @below {{operand defined here}}
  %a = math.tanh %x {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 3>} : tensor<4xf32>
  // expected-error @below {{plan computes this op at step 1 before any computation of its operand}}
  %b = math.tanh %a {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 1>} : tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

#c16 = #remat.cost<bytes = [16], flops = 4>
#fwd = #remat.phase<forward>

func.func private @opaque(tensor<4xf32>) -> tensor<4xf32>

// A call has unknown memory effects: never cloned.
func.func @recompute_effects(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{op has memory effects and cannot be recomputed, but the plan computes it 2 times}}
  %a = func.call @opaque(%x) {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 0, 2>} : (tensor<4xf32>) -> tensor<4xf32>
  %b = math.tanh %a {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 1>} : tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

#c16 = #remat.cost<bytes = [16], flops = 4>
#fwd = #remat.phase<forward>

func.func private @opaque(tensor<4xf32>) -> tensor<4xf32>

// Two calls with effects must keep their order.
func.func @reorder_effects(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-note @below {{earlier op here}}
  %a = func.call @opaque(%x) {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @below {{plan moves this op with memory effects before an earlier one}}
  %b = func.call @opaque(%x) {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @bad_steps_order(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'remat.steps' must list non-negative steps in strictly increasing order, got array<i64: 3, 1>}}
  %a = math.tanh %x {remat.steps = array<i64: 3, 1>} : tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

func.func @bad_steps_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'remat.steps' must be a non-empty array<i64> of schedule steps, got 3 : i64}}
  %a = math.tanh %x {remat.steps = 3} : tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

// expected-error @below {{remat.plan: status must be "optimal" or "feasible" (a plan is only recorded when the solver found one), got "infeasible"}}
func.func @bad_plan(%x: tensor<4xf32>) -> tensor<4xf32> attributes {remat.plan = #remat.plan<solver = "chen-sqrt", mode = "min-compute", status = "infeasible", budget = 1, predicted_peak = 1, baseline_peak = 1, cost = 1, baseline_cost = 1>} {
  return %x : tensor<4xf32>
}

// -----

#c16 = #remat.cost<bytes = [16], flops = 4>

// An op reads %a while the plan holds it on the host (offloaded after step
// 0, prefetched before step 2).
func.func @read_while_offloaded(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @below {{value defined here}}
  %a = math.tanh %x {remat.cost = #c16, remat.steps = array<i64: 0>, remat.offloads = array<i64: 0, 1, 2>} : tensor<4xf32>
  // expected-error @below {{plan reads an offloaded value at step 1, between its offload after step 0 and its prefetch before step 2}}
  %b = math.tanh %a {remat.cost = #c16, remat.steps = array<i64: 1>} : tensor<4xf32>
  %c = arith.addf %a, %b {remat.cost = #c16, remat.steps = array<i64: 2>} : tensor<4xf32>
  return %c : tensor<4xf32>
}
