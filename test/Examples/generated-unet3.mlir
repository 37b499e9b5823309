// Generated U-Net-like training step (examples/generated/unet3.mlir): an MLP
// encoder 64 -> 48 -> 32 -> 16, a decoder back to 64, and long skips adding
// each encoder activation to the decoder output of the same width. It
// regenerates identically, verifies, lowers with the plain upstream CPU
// pipeline, runs to the hand-checked loss, and its gradients match central
// finite differences.

// RUN: %gen unet --widths 64,48,32,16 --batch 8 --name unet3_step \
// RUN:   | diff %examples/generated/unet3.mlir -
// RUN: mlir-opt %examples/generated/unet3.mlir | FileCheck %s --check-prefix=IR
// RUN: remat-opt %examples/generated/unet3.mlir | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s --check-prefix=SRC < %examples/generated/unet3.mlir
// RUN: cat %examples/generated/unet3.mlir %examples/generated/unet3.run.mlir \
// RUN:   | %lower_to_llvm | %run_main | FileCheck %s --check-prefix=EXEC
// RUN: %gen driver %examples/generated/unet3.mlir --dtype f64 --main gradcheck \
// RUN:   --lr 0.01 | %lower_to_llvm | %run_main | FileCheck %s --check-prefix=GRAD

// Matmuls: forward 3 encoder + 3 decoder = 6; backward dW and dinput for
// the 3 decoder and 2 upper encoder layers, dW only for the first = 11; 17.
// IR-LABEL:    func.func @unet3_step(
// IR-COUNT-17: linalg.matmul
// IR-NOT:      linalg.matmul
// IR:          return

// The long skips in the generated source: each decoder output adds the encoder
// activation of its width (e2 = %relu1, e1 = %relu0, e0 = %x), and the encoder
// activations are read again by the backward (transposed for dW).
// SRC:      Decoder 2: d2 = relu(d3 Wd2 + bd2) + e2 (long skip).
// SRC:      ins(%relu3, %relu1 : tensor<8x32xf32>, tensor<8x32xf32>)
// SRC:      Decoder 1: d1 = relu(d2 Wd1 + bd1) + e1 (long skip).
// SRC:      ins(%relu4, %relu0 : tensor<8x48xf32>, tensor<8x48xf32>)
// SRC:      Decoder 0: d0 = relu(d1 Wd0 + bd0) + e0 (long skip).
// SRC:      ins(%relu5, %x : tensor<8x64xf32>, tensor<8x64xf32>)
// SRC:      === Backward ===
// SRC:      linalg.transpose ins(%relu0 : tensor<8x48xf32>)

// examples/gen/reference.py unet3: 3.93455286 (MSE; lr 0.01).
// EXEC-LABEL: loss = 3.93455
// EXEC-NEXT:  loss after one step = 2.61325

// GRAD: we0: analytic = [[A:.*]]
// GRAD-NEXT: we0: finite-difference = [[A]]
// GRAD: gradcheck PASS
