// Integration test of examples/torch-mlir-step.mlir, a training step written
// the way torch-mlir emits one (docs/Rematerialization.md, section 6): the
// 0-d bias update b' (result #2) comes before the loss (#3).

// Without loss=, phase inference takes b' as the loss, and says so.
// RUN: remat-opt %examples/torch-mlir-step.mlir --remat-infer-phases -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=WARN
// WARN: torch-mlir-step.mlir:[[#]]:3: warning: 'func.func' op has 2 results that could be the loss: #2 (tensor<f32>), #3 (tensor<f32>); taking #2, the first (name the loss with loss=<index>, or the forward outputs with forward-results=)

// With loss=3 the forward pass is what the loss needs: the constants 0 and
// 1/128, h = x W1 (empty, fill, matmul), relu, a W2 (empty, fill, matmul),
// y - t, and the mean of its squares (empty, fill, sum, scale): 14 ops. The
// gradients and the three updates (22 ops) are backward.
// RUN: remat-opt %examples/torch-mlir-step.mlir --remat-infer-phases=loss=3 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PHASES
// PHASES-NOT:      warning:
// PHASES-LABEL:    func.func @forward
// PHASES-COUNT-14: #remat.phase<forward>
// PHASES-NOT:      #remat.phase<forward>
// PHASES:          return

// Planned at 97 % of the checkpoint-all peak, it recomputes some forward ops
// and runs to the same results, bit for bit, as the step as written.
// RUN: remat-opt %examples/torch-mlir-step.mlir --remat-pipeline="loss=3 budget=97%" \
// RUN:   --mlir-print-op-on-diagnostic=false -o %t.planned.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PLAN
// PLAN-NOT: warning:
// PLAN:     remark: remat plan: {{.*}} recomputes {{[1-9][0-9]*}} op(s)
// PLAN:     remark: peak memory {{[0-9]+}} bytes within the budget
// RUN: remat-run %examples/torch-mlir-step.mlir | grep '^result' > %t.unplanned
// RUN: remat-run %t.planned.mlir | grep '^result' > %t.planned
// RUN: diff %t.unplanned %t.planned
// RUN: FileCheck %s --check-prefix=RESULTS --input-file=%t.planned
// RESULTS:      result #0: tensor<32x64xf32>
// RESULTS-NEXT: result #1: tensor<64x8xf32>
// RESULTS-NEXT: result #2: tensor<f32>
// RESULTS-NEXT: result #3: tensor<f32>
