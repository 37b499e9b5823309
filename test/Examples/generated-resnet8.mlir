// Generated ResNet-like training step with 8 blocks
// (examples/generated/resnet8.mlir): regenerating it gives the committed file,
// it verifies, lowers with the plain upstream CPU pipeline and runs to the
// hand-checked loss. (Its gradients come from the same generator code as
// resnet4's, which generated-resnet4.mlir checks; the 34-parameter gradcheck
// was run once offline, see docs/Examples.md.)

// RUN: %gen resnet --blocks 8 --batch 8 --width 32 --hidden 64 --classes 10 \
// RUN:   --name resnet8_step | diff %examples/generated/resnet8.mlir -
// RUN: mlir-opt %examples/generated/resnet8.mlir | FileCheck %s --check-prefix=IR
// RUN: remat-opt %examples/generated/resnet8.mlir | FileCheck %s --check-prefix=IR
// RUN: cat %examples/generated/resnet8.mlir %examples/generated/resnet8.run.mlir \
// RUN:   | %lower_to_llvm | %run_main | FileCheck %s --check-prefix=EXEC

// Matmuls: forward 8 x 2 + 1 = 17; backward 2 + 7 x 4 + 3 = 33; 50 in all.
// IR-LABEL:    func.func @resnet8_step(
// IR-COUNT-50: linalg.matmul
// IR-NOT:      linalg.matmul
// IR:          return

// examples/gen/reference.py resnet8: 2.30876841.
// EXEC-LABEL: loss = 2.30877
// EXEC-NEXT:  loss after one step = 2.21358
