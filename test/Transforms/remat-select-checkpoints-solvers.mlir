// Every solver of the registry plans this chain through the pass. The names
// come from `remat-solve --list-solvers` (see Inputs/each-solver.py), so a
// newly registered solver is tested here without editing this file; the pass
// accepts exactly those names (its unknown-solver error lists them) and plans
// with `auto` by default. The Checkmate solvers need COIN-OR: without it they
// only have to be accepted.
// RUN: python3 %S/Inputs/each-solver.py %s %if !coinor %{ --optional=checkmate- %} | FileCheck %s --implicit-check-not=FAILED
// CHECK: unknown-solver error lists the {{[0-9]+}} listed names: ok
// CHECK: {{[0-9]+}} solver(s), 0 failure(s)

// The chain of remat-select-checkpoints.mlir, planned at 100 % (112 bytes).
#c16 = #remat.cost<bytes = [16], flops = 4>
#fwd = #remat.phase<forward>
#bwd = #remat.phase<backward>
func.func @chain(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = math.tanh %x {remat.cost = #c16, remat.phase = #fwd} : tensor<4xf32>
  %b = math.tanh %a {remat.cost = #c16, remat.phase = #fwd} : tensor<4xf32>
  %c = math.tanh %b {remat.cost = #c16, remat.phase = #fwd} : tensor<4xf32>
  %gc = arith.mulf %c, %w {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  %gb = arith.mulf %gc, %b {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  %ga = arith.mulf %gb, %a {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  return %c, %ga : tensor<4xf32>, tensor<4xf32>
}
