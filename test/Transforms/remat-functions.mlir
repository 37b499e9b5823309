// `functions=` is one option with one meaning on every function-level pass
// and on --remat-pipeline: by default the public functions with a body; a
// list names the functions instead.
//
// RUN: remat-opt %s --remat-annotate-costs --remat-infer-phases | FileCheck %s --check-prefix=DEFAULT
// RUN: remat-opt %s --remat-annotate-costs=functions=other --remat-infer-phases=functions=other | FileCheck %s --check-prefix=NAMED
// RUN: remat-opt %s --remat-pipeline="inline=false" 2>/dev/null | FileCheck %s --check-prefix=PIPE
// RUN: remat-opt %s --remat-pipeline="inline=false functions=step" 2>/dev/null | FileCheck %s --check-prefix=STEP
// Each pass alone skips what the filter skips: a plan by hand on @other is
// not applied when functions=step.
// RUN: remat-opt %s --remat-pipeline="inline=false" 2>/dev/null \
// RUN:   | remat-opt --remat-verify-memory=functions=step --mlir-print-op-on-diagnostic=false 2>&1 >/dev/null \
// RUN:   | FileCheck %s --check-prefix=VERIFY
// VERIFY:     remark: peak memory
// VERIFY-NOT: remark:

func.func private @opaque(tensor<4xf32>) -> tensor<4xf32>

// The private helper calls a declaration, which the cost model refuses; by
// default no pass touches it, so the pipeline plans the rest of the module.
// DEFAULT-LABEL: func.func private @helper
// DEFAULT-NOT:   remat.
// DEFAULT:       return
// PIPE-LABEL:    func.func private @helper
// PIPE-NOT:      remat.
// PIPE:          return
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @opaque(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = math.tanh %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// DEFAULT-LABEL: func.func @step
// DEFAULT:       math.tanh {{.*}}{remat.cost = #remat.cost<bytes = [16], flops = 4>, remat.phase = #remat.phase<forward>}
// NAMED-LABEL:   func.func @step
// NAMED-NOT:     remat.
// NAMED:         return
// PIPE-LABEL:    func.func @step
// PIPE-SAME:     remat.plan
// STEP-LABEL:    func.func @step
// STEP-SAME:     remat.plan
func.func @step(%x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %a = math.tanh %x : tensor<4xf32>
  %e = tensor.empty() : tensor<f32>
  %loss = linalg.reduce ins(%a : tensor<4xf32>) outs(%e : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %g = arith.mulf %a, %a : tensor<4xf32>
  return %loss, %g : tensor<f32>, tensor<4xf32>
}

// DEFAULT-LABEL: func.func @other
// DEFAULT:       math.exp {{.*}}remat.cost
// NAMED-LABEL:   func.func @other
// NAMED:         math.exp {{.*}}{remat.cost = #remat.cost<bytes = [16], flops = 4>, remat.phase = #remat.phase<forward>}
// PIPE-LABEL:    func.func @other
// PIPE-SAME:     remat.plan
// STEP-LABEL:    func.func @other
// STEP-NOT:      remat.
// STEP:          return
func.func @other(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = math.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
