// Integration test of examples/cnn.mlir: it verifies with upstream mlir-opt and
// remat-opt, lowers to the CPU with the plain upstream pipeline, runs, and
// computes the hand-checked loss and correct gradients.

// RUN: mlir-opt %examples/cnn.mlir | FileCheck %s --check-prefix=IR
// RUN: remat-opt %examples/cnn.mlir | FileCheck %s --check-prefix=IR
// RUN: cat %examples/cnn.mlir %examples/cnn.run.mlir | %lower_to_llvm | %run_main \
// RUN:   | FileCheck %s --check-prefix=EXEC
// RUN: %gen driver %examples/cnn.mlir --dtype f64 | %lower_to_llvm | %run_main \
// RUN:   | FileCheck %s --check-prefix=EXEC
// RUN: %gen driver %examples/cnn.mlir --dtype f64 --main gradcheck | %lower_to_llvm \
// RUN:   | %run_main | FileCheck %s --check-prefix=GRAD

// IR-LABEL: func.func @cnn_step(
// IR-SAME:    -> (tensor<f32>, tensor<3x3x3x4xf32>, tensor<4xf32>, tensor<3x3x4x8xf32>, tensor<8xf32>, tensor<72x10xf32>, tensor<10xf32>)
// IR-COUNT-2: linalg.conv_2d_nhwc_hwcf
// IR:         linalg.pooling_nhwc_max
// IR:         tensor.collapse_shape
// IR:         tensor.expand_shape
// IR:         tensor.pad
// IR:         return

// Loss at the driver's inputs: examples/gen/reference.py cnn (pure Python,
// double precision) gives 2.28513545, printed by vector.print as 2.28514.
// EXEC-LABEL: loss = 2.28514
// After one SGD step (lr 0.1) the loss drops; 2.26034 is checked to the
// same digits against the f64 build of the same step (RUN line 4).
// EXEC-NEXT:  loss after one step = 2.26034
// EXEC-NEXT:  sum of updated parameters =

// Central differences (eps 1e-6, f64) against the gradients recovered from
// the update: both convolution filters (weight and input gradients), the
// biases and the linear layer.
// GRAD: k1: analytic = [[A:.*]]
// GRAD-NEXT: k1: finite-difference = [[A]]
// GRAD: k2: analytic = [[B:.*]]
// GRAD-NEXT: k2: finite-difference = [[B]]
// GRAD: gradcheck PASS
