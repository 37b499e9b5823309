// Generated ResNet-like training step (examples/generated/resnet4.mlir):
// regenerating it gives the committed file, it verifies, lowers with the plain
// upstream CPU pipeline, runs to the hand-checked loss, and its gradients
// match central finite differences.

// RUN: %gen resnet --blocks 4 --batch 8 --width 32 --hidden 64 --classes 10 \
// RUN:   --name resnet4_step | diff %examples/generated/resnet4.mlir -
// RUN: mlir-opt %examples/generated/resnet4.mlir | FileCheck %s --check-prefix=IR
// RUN: remat-opt %examples/generated/resnet4.mlir | FileCheck %s --check-prefix=IR
// RUN: cat %examples/generated/resnet4.mlir %examples/generated/resnet4.run.mlir \
// RUN:   | %lower_to_llvm | %run_main | FileCheck %s --check-prefix=EXEC
// RUN: %gen driver %examples/generated/resnet4.mlir --dtype f64 --main gradcheck \
// RUN:   | %lower_to_llvm | %run_main | FileCheck %s --check-prefix=GRAD

// Matmuls: forward 4 blocks x 2 + head 1 = 9; backward: head dWout, dh (2),
// blocks 3..1 dW2, du, dW1, dh (4 each), block 0 without dx (3) = 17; 26 in all.
// IR-LABEL:    func.func @resnet4_step(
// IR-COUNT-26: linalg.matmul
// IR-NOT:      linalg.matmul
// IR:          return

// examples/gen/reference.py resnet4: 2.29034228.
// EXEC-LABEL: loss = 2.29034
// EXEC-NEXT:  loss after one step = 2.2087

// GRAD: w1_0: analytic = [[A:.*]]
// GRAD-NEXT: w1_0: finite-difference = [[A]]
// GRAD: gradcheck PASS
