// Integration test of examples/residual.mlir: it verifies with upstream
// mlir-opt and remat-opt, lowers to the CPU with the plain upstream pipeline,
// runs, and computes the hand-checked loss and correct gradients.

// RUN: mlir-opt %examples/residual.mlir | FileCheck %s --check-prefix=IR
// RUN: remat-opt %examples/residual.mlir | FileCheck %s --check-prefix=IR
// RUN: cat %examples/residual.mlir %examples/residual.run.mlir | %lower_to_llvm \
// RUN:   | %run_main | FileCheck %s --check-prefix=EXEC
// RUN: %gen driver %examples/residual.mlir --dtype f64 | %lower_to_llvm | %run_main \
// RUN:   | FileCheck %s --check-prefix=EXEC
// RUN: %gen driver %examples/residual.mlir --dtype f64 --main gradcheck --lr 0.01 \
// RUN:   | %lower_to_llvm | %run_main | FileCheck %s --check-prefix=GRAD

// 5 blocks x (2 forward matmuls + dW2, du, dW1) + 4 for g_i = .. + dz_i W1_i^T
// in blocks 4..1 (block 0's input is x) = 5 * 5 + 4 = 29.
// IR-LABEL: func.func @residual_step(
// IR-COUNT-29: linalg.matmul
// IR-NOT:      linalg.matmul
// IR:          return

// Loss at the driver's inputs: examples/gen/reference.py residual (pure
// Python, double precision) gives 2.03348043, printed as 2.03348.
// EXEC-LABEL: loss = 2.03348
// After one SGD step (lr 0.01) the loss drops to 0.213446; f32 and f64 builds
// print the same digits.
// EXEC-NEXT:  loss after one step = 0.213446
// EXEC-NEXT:  sum of updated parameters =

// GRAD: w1_0: analytic = [[A:.*]]
// GRAD-NEXT: w1_0: finite-difference = [[A]]
// GRAD: w2_4: analytic = [[B:.*]]
// GRAD-NEXT: w2_4: finite-difference = [[B]]
// GRAD: gradcheck PASS
