// A loss= that names no result, or a result that is no scalar, is an error at
// the function, from the pass and from the pipeline.
// RUN: remat-opt %s --split-input-file --remat-infer-phases="loss=1" --verify-diagnostics
// RUN: not remat-opt %s --split-input-file --remat-infer-phases="loss=-2" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NEGATIVE
// RUN: not remat-opt %s --split-input-file --remat-pipeline="loss=1" \
// RUN:   --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: not remat-opt %s --split-input-file --remat-pipeline="forward-results=0,3" \
// RUN:   --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=RESULTS

// NEGATIVE: remat-infer-phases-loss-errors.mlir:[[@LINE+5]]:1: error: 'func.func' op has 1 result(s); loss index -2 is out of range
// PIPELINE: remat-infer-phases-loss-errors.mlir:[[@LINE+4]]:1: error: 'func.func' op has 1 result(s); loss index 1 is out of range
// RESULTS: remat-infer-phases-loss-errors.mlir:[[@LINE+3]]:1: error: 'func.func' op has 1 result(s); forward result index 3 is out of range

// expected-error @below {{'func.func' op has 1 result(s); loss index 1 is out of range}}
func.func @one_result(%x: tensor<4xf32>) -> tensor<f32> {
  %e = tensor.empty() : tensor<f32>
  %s = linalg.reduce ins(%x : tensor<4xf32>) outs(%e : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  return %s : tensor<f32>
}

// -----

// PIPELINE: remat-infer-phases-loss-errors.mlir:[[@LINE+3]]:1: error: 'func.func' op result #1 ('tensor<4xf32>') cannot be the loss: a loss is a scalar (a 0-d tensor or an integer/float)

// expected-error @below {{'func.func' op result #1 ('tensor<4xf32>') cannot be the loss: a loss is a scalar (a 0-d tensor or an integer/float)}}
func.func @not_scalar(%x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<f32>
  %s = linalg.reduce ins(%x : tensor<4xf32>) outs(%e : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  %g = arith.mulf %x, %x : tensor<4xf32>
  return %s, %g : tensor<f32>, tensor<4xf32>
}
