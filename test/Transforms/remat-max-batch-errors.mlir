// mode=max-batch refuses what it cannot plan, at the function.
// RUN: split-file --leading-lines %s %t
// RUN: remat-opt %t/errors.mlir -split-input-file --remat-pipeline="mode=max-batch budget=1KiB" --verify-diagnostics -o /dev/null
// No budget:
// RUN: not remat-opt %t/chain.mlir --remat-pipeline="mode=max-batch" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOBUDGET
// A budget below what one sample needs (the dynamic chain of
// remat-max-batch.mlir needs 96 + 16 = 112 bytes at one sample without
// recomputation):
// RUN: not remat-opt %t/chain.mlir --remat-pipeline="mode=max-batch budget=70 solver=checkpoint-all" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SMALL
// Without batch scaling (no data argument):
// RUN: not remat-opt %t/chain.mlir --remat-pipeline="mode=max-batch budget=1KiB data-args=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSCALING

// NOBUDGET: error: mode=max-batch needs a budget: it searches the largest batch whose plan fits one
// SMALL: error: mode=max-batch: the budget of 70 bytes does not fit one sample with solver 'checkpoint-all' (infeasible{{.*}}); the smallest feasible budget at batch 1 is 112 bytes
// NOSCALING: error: mode=max-batch cannot tell how this step scales with the batch: no data argument (data-args=0 or arguments marked remat.data) is a tensor with a leading batch dimension

//--- errors.mlir
// expected-error @below {{mode=max-batch: the batch dimension (dimension 0 of argument #0, 'tensor<8x4xf32>') is static; the plan is made for the batch the search finds, which needs a dynamic batch dimension ('?')}}
func.func @static(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %a = math.tanh %x : tensor<8x4xf32>
  return %a : tensor<8x4xf32>
}

// -----

// expected-error @below {{mode=max-batch: dimension 1 of argument #0 ('tensor<?x?xf32>') is dynamic but is not the batch dimension; max-batch sizes every dynamic dimension as the batch}}
func.func @two_dynamic(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %a = math.tanh %x : tensor<?x?xf32>
  return %a : tensor<?x?xf32>
}

//--- chain.mlir
func.func @chain(%x: tensor<?x4xf32>, %w: tensor<4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4xf32>
  %a = math.tanh %x : tensor<?x4xf32>
  %b = math.tanh %a : tensor<?x4xf32>
  %c = math.tanh %b : tensor<?x4xf32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %gc = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%c, %w : tensor<?x4xf32>, tensor<4xf32>) outs(%e : tensor<?x4xf32>) {
    ^bb0(%v: f32, %p: f32, %o: f32):
      %m = arith.mulf %v, %p : f32
      linalg.yield %m : f32
  } -> tensor<?x4xf32>
  %gb = arith.mulf %gc, %b : tensor<?x4xf32>
  %ga = arith.mulf %gb, %a : tensor<?x4xf32>
  return %c, %ga : tensor<?x4xf32>, tensor<?x4xf32>
}
