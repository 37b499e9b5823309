// RUN: remat-opt %s --remat-pipeline="solver=brute-force budget=64" --verify-diagnostics -o /dev/null
// RUN: not remat-opt %s --remat-pipeline="solver=nope" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=SOLVER
// RUN: not remat-opt %s --remat-pipeline="budget=much" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=BUDGET
// With the default --mlir-print-op-on-diagnostic, an infeasible budget is a
// short located message and notes, never the function in generic form.
// RUN: not remat-opt %s --remat-pipeline="solver=brute-force budget=64" 2>&1 | FileCheck %s --check-prefix=SHORT --implicit-check-not="see current operation" --implicit-check-not='"func.func"'
// SHORT: remat-pipeline-errors.mlir:[[# @LINE + 9]]:1: error: budget of 64 bytes is infeasible
// SHORT: note: the checkpoint-all peak of 112 bytes
// SHORT: note: live there

// SOLVER: remat-pipeline-errors.mlir:[[# @LINE + 5]]:1: error: unknown solver 'nope'; the registered solvers are: {{([a-z0-9-]+, )*auto(, [a-z0-9-]+)*}}{{$}}
// BUDGET: error: invalid budget 'much'

// Computing %gb needs %gc, %b and %gb resident: 32 + 3 x 16 = 80 bytes.
// expected-error @below {{budget of 64 bytes is infeasible for solver 'brute-force'}}
func.func @chain(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-note @below {{live there: 16 bytes of type 'tensor<4xf32>', result of 'math.tanh'}}
  %a = math.tanh %x : tensor<4xf32>
  // expected-note @below {{live there: 16 bytes of type 'tensor<4xf32>', result of 'math.tanh'}}
  %b = math.tanh %a : tensor<4xf32>
  // expected-note @below {{live there: 16 bytes of type 'tensor<4xf32>', result of 'math.tanh'}}
  %c = math.tanh %b : tensor<4xf32>
  %gc = arith.mulf %c, %w : tensor<4xf32>
  // expected-note @below {{the checkpoint-all peak of 112 bytes is reached at this 'arith.mulf' (32 bytes of it are arguments)}}
  %gb = arith.mulf %gc, %b : tensor<4xf32>
  %ga = arith.mulf %gb, %a : tensor<4xf32>
  return %c, %ga : tensor<4xf32>, tensor<4xf32>
}
