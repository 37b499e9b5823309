// Generated pre-layernorm transformer-block training step
// (examples/generated/transformer2ln.mlir): transformer2 with
// h += attn(layernorm(h)), h += mlp(layernorm(h)). It regenerates identically,
// verifies, lowers with the plain upstream CPU pipeline, runs to the
// hand-checked loss, and its gradients (layernorm gain/bias included) match
// central finite differences.

// RUN: %gen transformer --blocks 2 --seq 8 --width 32 --hidden 64 --classes 10 \
// RUN:   --layernorm --name transformer2ln_step \
// RUN:   | diff %examples/generated/transformer2ln.mlir -
// RUN: mlir-opt %examples/generated/transformer2ln.mlir | FileCheck %s --check-prefix=IR
// RUN: remat-opt %examples/generated/transformer2ln.mlir | FileCheck %s --check-prefix=IR
// RUN: mlir-opt %examples/generated/transformer2ln.mlir | FileCheck %s --check-prefix=MM
// RUN: cat %examples/generated/transformer2ln.mlir %examples/generated/transformer2ln.run.mlir \
// RUN:   | %lower_to_llvm | %run_main | FileCheck %s --check-prefix=EXEC
// RUN: %gen driver %examples/generated/transformer2ln.mlir --dtype f64 --main gradcheck --only "ln|q0" \
// RUN:   | %lower_to_llvm | %run_main | FileCheck %s --check-prefix=GRAD

// Matmuls: as transformer2 (48), plus dx of block 0's Q/K/V projections,
// whose input layernorm(x) now depends on parameters (3): 51.
// 4 layernorms: one math.rsqrt each.
// IR-LABEL:    func.func @transformer2ln_step(
// IR-COUNT-4:  math.rsqrt
// IR-NOT:      math.rsqrt
// IR:          return

// MM-LABEL:    func.func @transformer2ln_step(
// MM-COUNT-51: linalg.matmul
// MM-NOT:      linalg.matmul

// examples/gen/reference.py transformer2ln: 2.31721134.
// EXEC-LABEL: loss = 2.31721
// EXEC-NEXT:  loss after one step = 2.12637

// The gradient check is restricted to the layernorm gains/biases and W_q of
// block 0 (the other parameters use the code transformer2's test checks) to
// keep the test fast; the full check passes offline (docs/Examples.md).
// GRAD: ln1_g0: analytic = [[A:.*]]
// GRAD-NEXT: ln1_g0: finite-difference = [[A]]
// GRAD: ln2_b1: analytic = [[B:.*]]
// GRAD-NEXT: ln2_b1: finite-difference = [[B]]
// GRAD: gradcheck PASS
