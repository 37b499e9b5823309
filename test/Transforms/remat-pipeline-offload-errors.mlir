// Offloading options of the pipeline (docs/Offload.md): each mistake is an
// error at the function, and no plan is recorded.
// RUN: not remat-opt %s --remat-pipeline="budget=90% host-link=nvlink" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=LINK
// RUN: not remat-opt %s --remat-pipeline="budget=90% arena=false host-link=ideal host-budget=10%" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=PERCENT
// RUN: not remat-opt %s --remat-pipeline="budget=90% arena=false host-link=ideal host-budget=lots" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=HOSTBUDGET
// RUN: not remat-opt %s --remat-pipeline="budget=90% arena=false offload=sometimes" 2>&1 | FileCheck %s --check-prefix=CHOICE
// RUN: not remat-opt %s --remat-pipeline="budget=20% arena=false host-link=ideal" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=DEVICE

// LINK: remat-pipeline-offload-errors.mlir:[[# @LINE + 8]]:1: error: unknown host-link 'nvlink' (expected one of: none, pcie4, pcie5, c2c, ideal)
// PERCENT: error: invalid host-budget '10%': expected bytes, not a percentage
// HOSTBUDGET: error: invalid host-budget 'lots'
// CHOICE: Cannot find option named 'sometimes'
// 20 % is below what any plan reaches, offloading or not: the error names
// the smallest budget the search reached (and asked at).
// DEVICE: error: budget of {{[0-9]+}} bytes is infeasible even offloading over ideal: the smallest feasible budget is {{[0-9]+}} bytes

func.func @chain(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = math.tanh %x : tensor<4xf32>
  %b = math.tanh %a : tensor<4xf32>
  %c = math.tanh %b : tensor<4xf32>
  %gc = arith.mulf %c, %w : tensor<4xf32>
  %gb = arith.mulf %gc, %b : tensor<4xf32>
  %ga = arith.mulf %gb, %a : tensor<4xf32>
  return %c, %ga : tensor<4xf32>, tensor<4xf32>
}
