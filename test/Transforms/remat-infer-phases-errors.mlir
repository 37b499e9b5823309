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
