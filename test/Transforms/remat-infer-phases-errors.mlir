// RUN: remat-opt %s --split-input-file --remat-infer-phases --verify-diagnostics
// RUN: not remat-opt %s --split-input-file \
// RUN:   --remat-infer-phases="forward-results=0,4 functions=two_results" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=RANGE

// expected-error @below {{'func.func' op has no results; phase inference needs the forward outputs (e.g. the loss) among the returned values}}
func.func @no_results(%x: tensor<4xf32>) {
  %0 = arith.addf %x, %x : tensor<4xf32>
  return
}

// -----

// expected-error @below {{'func.func' op has 2 blocks; phase inference expects a single-block training step}}
func.func @two_blocks(%x: tensor<4xf32>) -> tensor<4xf32> {
  cf.br ^bb1
^bb1:
  %0 = arith.addf %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// RANGE: error: 'func.func' op has 2 result(s); forward result index 4 is out of range
func.func @two_results(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = arith.addf %x, %x : tensor<4xf32>
  return %0, %0 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Explicit marks are kept, with a warning where they contradict what the loss
// (here result #1, the scalar) implies.
func.func @contradicting_marks(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>) {
  // expected-warning @below {{explicit remat.phase<backward> contradicts phase inference: forward output(s) #1 of the function depend on this op; keeping the explicit mark}}
  %a = math.tanh %x {remat.phase = #remat.phase<backward>} : tensor<4xf32>
  %e = tensor.empty() : tensor<f32>
  %loss = linalg.reduce ins(%a : tensor<4xf32>) outs(%e : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  // expected-warning @below {{explicit remat.phase<forward> contradicts phase inference: forward output(s) #1 of the function do not depend on this op; keeping the explicit mark}}
  %g = arith.mulf %a, %a {remat.phase = #remat.phase<forward>} : tensor<4xf32>
  // A mark that agrees is silent.
  %h = arith.addf %g, %g {remat.phase = #remat.phase<backward>} : tensor<4xf32>
  return %h, %loss : tensor<4xf32>, tensor<f32>
}
