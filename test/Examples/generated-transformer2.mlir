// Generated transformer-block training step (examples/generated/transformer2.mlir):
// 2 blocks of single-head self-attention + ReLU MLP with residuals, sequence
// 8, width 32. It regenerates identically, verifies, lowers with the plain
// upstream CPU pipeline, runs to the hand-checked loss, and its gradients
// match central finite differences.

// RUN: %gen transformer --blocks 2 --seq 8 --width 32 --hidden 64 --classes 10 \
// RUN:   --name transformer2_step | diff %examples/generated/transformer2.mlir -
// RUN: mlir-opt %examples/generated/transformer2.mlir | FileCheck %s --check-prefix=IR
// RUN: remat-opt %examples/generated/transformer2.mlir | FileCheck %s --check-prefix=IR
// RUN: cat %examples/generated/transformer2.mlir %examples/generated/transformer2.run.mlir \
// RUN:   | %lower_to_llvm | %run_main | FileCheck %s --check-prefix=EXEC
// RUN: %gen driver %examples/generated/transformer2.mlir --dtype f64 --main gradcheck \
// RUN:   | %lower_to_llvm | %run_main | FileCheck %s --check-prefix=GRAD

// Matmuls: forward per block Q, K, V, QK^T, PV, out-proj, 2 MLP = 8, x 2 + head
// = 17; backward: head 2, block 1 2 per forward matmul = 16, block 0 the same
// less dx of the Q/K/V projections (13) = 31; 48 in all.
// IR-LABEL:    func.func @transformer2_step(
// IR-COUNT-48: linalg.matmul
// IR-NOT:      linalg.matmul
// IR:          return

// examples/gen/reference.py transformer2: 2.29463375.
// EXEC-LABEL: loss = 2.29463
// EXEC-NEXT:  loss after one step = 2.14908

// GRAD: wq0: analytic = [[A:.*]]
// GRAD: wk0: analytic
// GRAD: gradcheck PASS
