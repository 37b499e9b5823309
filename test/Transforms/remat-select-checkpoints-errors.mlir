// RUN: split-file --leading-lines %s %t
// RUN: remat-opt %t/invalid-input.mlir --split-input-file --remat-select-checkpoints="solver=brute-force budget=64" --verify-diagnostics
// RUN: remat-opt %t/unknown-solver.mlir --remat-select-checkpoints="solver=nope" --verify-diagnostics -o /dev/null
// RUN: not remat-opt %s --remat-select-checkpoints="mode=fastest" 2>&1 | FileCheck %s --check-prefix=MODE

// MODE: Cannot find option named 'fastest'!

// RUN: not remat-opt %t/unknown-solver.mlir --remat-select-checkpoints="time-limit=-1" 2>&1 | FileCheck %s --check-prefix=TIME
// TIME: error: invalid option: the time limit must be a positive number of seconds, not -1
// RUN: not remat-opt %t/unknown-solver.mlir --remat-select-checkpoints="effort=0" 2>&1 | FileCheck %s --check-prefix=EFFORT
// EFFORT: error: invalid option: the effort must be a positive number, not 0

// budget=min is the smallest budget of a min-compute plan; other modes take
// a number.
// RUN: not remat-opt %t/invalid-input.mlir --split-input-file --remat-select-checkpoints="solver=brute-force budget=min mode=min-peak" 2>&1 | FileCheck %s --check-prefix=BMIN
// BMIN: error: budget=min plans at the smallest feasible budget in mode min-compute, not min-peak

// A budget below the lower bound on every schedule's peak (80 bytes, see
// @infeasible) is refused at once, naming the bound, whatever the solver: a
// heuristic would otherwise search its whole time limit for no plan.
// RUN: not remat-opt %t/invalid-input.mlir --split-input-file --remat-select-checkpoints="solver=local-search budget=64" 2>&1 | FileCheck %s --check-prefix=BOUND
// BOUND: error: budget of 64 bytes is infeasible for solver 'local-search' (infeasible: proven: the budget of 64 bytes is below 80 bytes, a lower bound on every schedule's peak (resident bytes 32 plus node 6 ('arith.mulf{{[^']*}}') and its operands (48 bytes, all live while it is computed))); the smallest feasible budget is {{[0-9]+}} bytes

// The solver is an option of the whole run, so the unknown-name case is a
// file of its own (split-file; --leading-lines keeps this file's line numbers).

//--- invalid-input.mlir

#c16 = #remat.cost<bytes = [16], flops = 4>
#fwd = #remat.phase<forward>
#bwd = #remat.phase<backward>
// The chain of remat-select-checkpoints.mlir: computing %gb needs %gc, %b and
// %gb resident, 32 + 3 x 16 = 80 bytes; 64 is out of reach.
// expected-error @below {{the smallest feasible budget is 80 bytes (71.4% of the checkpoint-all peak of 112 bytes)}}
func.func @infeasible(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-note @below {{live there: 16 bytes of type 'tensor<4xf32>', result of 'math.tanh'}}
  %a = math.tanh %x {remat.cost = #c16, remat.phase = #fwd} : tensor<4xf32>
  // expected-note @below {{live there: 16 bytes of type 'tensor<4xf32>', result of 'math.tanh'}}
  %b = math.tanh %a {remat.cost = #c16, remat.phase = #fwd} : tensor<4xf32>
  // expected-note @below {{live there: 16 bytes of type 'tensor<4xf32>', result of 'math.tanh'}}
  %c = math.tanh %b {remat.cost = #c16, remat.phase = #fwd} : tensor<4xf32>
  %gc = arith.mulf %c, %w {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  // expected-note @below {{the checkpoint-all peak of 112 bytes is reached at this 'arith.mulf' (32 bytes of it are arguments)}}
  %gb = arith.mulf %gc, %b {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  %ga = arith.mulf %gb, %a {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  return %c, %ga : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @no_cost(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{op has no 'remat.cost' attribute; run --remat-annotate-costs before planning rematerialization}}
  %a = math.tanh %x {remat.phase = #remat.phase<forward>} : tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

func.func @no_phase(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{op has no 'remat.phase' attribute; run --remat-infer-phases before planning rematerialization}}
  %a = math.tanh %x {remat.cost = #remat.cost<bytes = [16], flops = 4>} : tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

// expected-error @below {{argument #0 of type 'tensor<?xf32>' has no static size; rematerialization needs static shapes}}
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}

// -----

func.func private @opaque(tensor<4xf32>) -> tensor<4xf32>

func.func @never_on_effects(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'remat.keep = #remat.keep<never>' on an op with memory effects: it cannot be recomputed}}
  %a = func.call @opaque(%x) {remat.cost = #remat.cost<bytes = [16], flops = 4>, remat.phase = #remat.phase<forward>, remat.keep = #remat.keep<never>} : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

func.func @two_blocks(%x: tensor<4xf32>, %p: i1) -> tensor<4xf32> {
  cf.br ^bb1
^bb1:
  return %x : tensor<4xf32>
}
// expected-error @-5 {{rematerialization planning expects a single-block function, 'two_blocks' has 2 blocks}}

// -----

// Sizes beyond any memory (their sum overflows int64_t) are refused.
// expected-error @below {{cannot be planned: the sizes in the graph (nodes and fixed bytes) add up to more than 2^62 bytes (4 EiB)}}
func.func @overflowing_sizes(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = math.exp %x {remat.cost = #remat.cost<bytes = [9000000000000000000], flops = 4>, remat.phase = #remat.phase<forward>} : tensor<4xf32>
  %b = math.exp %a {remat.cost = #remat.cost<bytes = [9000000000000000000], flops = 4>, remat.phase = #remat.phase<forward>} : tensor<4xf32>
  return %b : tensor<4xf32>
}

//--- unknown-solver.mlir

// The solver name is checked against the registry (Solver.h) when the pass
// runs, before anything else; the error lists every registered name
// (Inputs/each-solver.py checks that they are remat-solve's).
// expected-error-re @below {{unknown solver 'nope'; the registered solvers are: {{([a-z0-9-]+, )*auto(, [a-z0-9-]+)*$}}}}
func.func @unknown_solver(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = math.tanh %x {remat.cost = #remat.cost<bytes = [16], flops = 4>, remat.phase = #remat.phase<forward>} : tensor<4xf32>
  return %a : tensor<4xf32>
}
