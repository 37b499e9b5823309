// RUN: rm -rf %t && split-file %s %t
// Option values that MLIR's option parser would split or silently accept are
// errors that name the option (bad-input tour, issue 11).
//
// A blank after `budget=` or inside its value: the option is named, not
// "no such option 70".
// RUN: not remat-opt %t/step.mlir --remat-select-checkpoints="budget= 70 %" 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: not remat-opt %t/step.mlir --remat-pipeline="budget= 70 %" 2>&1 | FileCheck %s --check-prefix=PIPE
// RUN: not remat-opt %t/step.mlir --remat-verify-memory="budget=70 KiB" 2>&1 | FileCheck %s --check-prefix=INSIDE
// AFTER: remat-select-checkpoints: a blank follows 'budget=', so '70' reads as another option; write budget=VALUE without blanks, or quote a value that has them: budget='VALUE'
// PIPE: remat-pipeline: a blank follows 'budget=', so '70' reads as another option
// INSIDE: remat-verify-memory: the value of 'budget' has a blank, so 'KiB' reads as another option
//
// Quoted, the blank is fine (the budget parser skips it): 100 % of the
// checkpoint-all peak of 64 bytes (two 16-byte arguments, the product and
// the tanh). So are a flag without a value and an empty value (= 100 %).
// RUN: remat-opt %t/step.mlir --remat-pipeline="budget='100 %' solver=checkpoint-all" -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUOTED
// RUN: remat-opt %t/step.mlir --remat-pipeline="budget={100 %} solver=checkpoint-all insert-barriers" -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUOTED
// RUN: remat-opt %t/step.mlir --remat-annotate-costs --remat-infer-phases --remat-select-checkpoints="budget= solver=checkpoint-all" --remat-verify-memory -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUOTED
// QUOTED-NOT: error:
// QUOTED: peak memory 64 bytes within the budget of 64 bytes
//
// More data arguments than the function has: an error at the function.
// RUN: remat-opt %t/data-args.mlir --remat-pipeline="data-args=99" --verify-diagnostics -o /dev/null
// RUN: remat-opt %t/data-args.mlir --remat-annotate-costs --remat-infer-phases --remat-export-graph="data-args=3 output=%t/g.json" --verify-diagnostics -o /dev/null
// RUN: not remat-opt %t/step.mlir --remat-pipeline="data-args=3" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ARGS
// ARGS: error: data-args=3 but 'step' has only 2 argument(s)
// Two data arguments of two are fine.
// RUN: remat-opt %t/step.mlir --remat-pipeline="data-args=2" -o /dev/null

//--- data-args.mlir
// expected-error @below {{data-args=}}
func.func @step(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.mulf %x, %w : tensor<4xf32>
  %1 = math.tanh %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

//--- step.mlir
func.func @step(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.mulf %x, %w : tensor<4xf32>
  %1 = math.tanh %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}
