// Generated convolutional ResNet-like training step
// (examples/generated/convresnet4.mlir): 4 blocks h + conv(relu(conv(h))) with
// 3x3 same-padding convolutions on 4 NHWC images 8x8x8, global average
// pooling, linear head, softmax-CE. It regenerates identically, verifies,
// lowers with the plain upstream CPU pipeline, runs to the hand-checked loss,
// and its gradients match central finite differences.

// RUN: %gen resnet --conv --blocks 4 --batch 4 --image 8 --width 8 --classes 10 \
// RUN:   --name convresnet4_step | diff %examples/generated/convresnet4.mlir -
// RUN: mlir-opt %examples/generated/convresnet4.mlir | FileCheck %s --check-prefix=IR
// RUN: remat-opt %examples/generated/convresnet4.mlir | FileCheck %s --check-prefix=IR
// RUN: cat %examples/generated/convresnet4.mlir %examples/generated/convresnet4.run.mlir \
// RUN:   | %lower_to_llvm | %run_main | FileCheck %s --check-prefix=EXEC
// RUN: %gen driver %examples/generated/convresnet4.mlir --dtype f64 --main gradcheck \
// RUN:   --eps 1e-7 | %lower_to_llvm | %run_main | FileCheck %s --check-prefix=GRAD

// Forward: 8 convolutions, each on a tensor.pad of its input. Backward: the
// input gradient of 7 of them (not block 0's first: its input is x) pads dz
// by 2 (7 more pads) and is sliced back to the unpadded window
// (7 extract_slice).
// IR-LABEL:    func.func @convresnet4_step(
// IR-COUNT-8:  linalg.conv_2d_nhwc_hwcf
// IR-NOT:      linalg.conv_2d_nhwc_hwcf
// IR:          return

// PAD-COUNT-15: tensor.pad
// PAD-NOT:      tensor.pad
// RUN: FileCheck %s --check-prefix=PAD < %examples/generated/convresnet4.mlir
// SLICE-COUNT-7: tensor.extract_slice
// SLICE-NOT:     tensor.extract_slice
// RUN: FileCheck %s --check-prefix=SLICE < %examples/generated/convresnet4.mlir

// examples/gen/reference.py convresnet4: 2.27451643.
// EXEC-LABEL: loss = 2.27452
// EXEC-NEXT:  loss after one step = 2.23771

// eps is 1e-7 here: along k1_0's test direction a ReLU input crosses zero
// within 1e-6, so the 1e-6 central difference straddles a kink (fd moves
// from -0.00246111 at eps 1e-7 to -0.00247193 at 1e-6 and -0.00290123 at
// 1e-4, while the analytic value is -0.00246111).
// GRAD: k1_0: analytic = [[A:.*]]
// GRAD-NEXT: k1_0: finite-difference = [[A]]
// GRAD: gradcheck PASS
