// Integration test of examples/mlp.mlir: it verifies with upstream mlir-opt and
// remat-opt, lowers to the CPU with the plain upstream pipeline, runs, and
// computes the hand-checked loss and correct gradients.

// RUN: mlir-opt %examples/mlp.mlir | FileCheck %s --check-prefix=IR
// RUN: remat-opt %examples/mlp.mlir | FileCheck %s --check-prefix=IR
// RUN: cat %examples/mlp.mlir %examples/mlp.run.mlir | %lower_to_llvm | %run_main \
// RUN:   | FileCheck %s --check-prefix=EXEC
// RUN: %gen driver %examples/mlp.mlir --dtype f64 | %lower_to_llvm | %run_main \
// RUN:   | FileCheck %s --check-prefix=EXEC
// RUN: %gen driver %examples/mlp.mlir --dtype f64 --main gradcheck | %lower_to_llvm \
// RUN:   | %run_main | FileCheck %s --check-prefix=GRAD

// 3 forward matmuls; backward: dW3, da2, dW2, da1, dW1 (no dx).
// IR-LABEL: func.func @mlp_step(
// IR-SAME:    -> (tensor<f32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64x10xf32>, tensor<10xf32>)
// IR-COUNT-8: linalg.matmul
// IR-NOT:     linalg.matmul
// IR:         return

// Loss at the driver's inputs: examples/gen/reference.py mlp (pure Python,
// double precision) gives 2.29577561, printed by vector.print as 2.29578.
// EXEC-LABEL: loss = 2.29578
// After one SGD step (lr 0.1) the loss must drop; 2.29033 is checked to
// the same digits against the f64 build of the same step (RUN line 4).
// EXEC-NEXT: loss after one step = 2.29033
// EXEC-NEXT: sum of updated parameters =

// Central differences (eps 1e-6, f64) against the gradients recovered from
// the update, one random direction per parameter tensor.
// GRAD: w1: analytic = [[A:.*]]
// GRAD-NEXT: w1: finite-difference = [[A]]
// GRAD: b3: analytic = [[B:.*]]
// GRAD-NEXT: b3: finite-difference = [[B]]
// GRAD: gradcheck PASS
