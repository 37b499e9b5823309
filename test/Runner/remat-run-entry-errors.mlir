// Where the entry is not clear, the runner asks for --entry, listing the
// candidates: the public functions with a body that no other calls (here
// @train and @eval; @loss is the helper both call). Unregistered ops (custom
// ops of another stack) are a located error: the runner cannot lower them.
// RUN: not remat-run %s 2>&1 | FileCheck %s
// CHECK: remat-run: error: several possible entries in '{{.*}}remat-run-entry-errors.mlir': @train, @eval (public functions with a body that no other function calls); name one with --entry
// RUN: remat-run %s --entry=eval | FileCheck %s --check-prefix=EVAL
// EVAL: entry: @eval

// RUN: not remat-run %S/Inputs/unregistered-op.mlir 2>&1 | FileCheck %s --check-prefix=CUSTOM
// CUSTOM: unregistered-op.mlir:5:8: error: unregistered op 'mydialect.gelu': remat-run lowers and runs only ops of registered dialects; replace it (with a linalg.generic, or a call to a func.func with a body) before running
// CUSTOM-NOT: error: unregistered op 'mydialect.gelu'
// CUSTOM: unregistered-op.mlir:8:8: error: unregistered op 'mydialect.layer_norm'
// CUSTOM: remat-run: error: '{{.*}}unregistered-op.mlir' holds unregistered ops (see the diagnostics above): remat-run does not accept them

func.func @loss(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = math.tanh %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

func.func @train(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @loss(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %z = arith.mulf %y, %x : tensor<4xf32>
  return %z : tensor<4xf32>
}

func.func @eval(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @loss(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
