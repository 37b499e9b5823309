// A `functions=` name that is no function with a body of the module is an
// error naming every such name, reported once, at the module's first
// function with a body, by every pass that takes the option.
//
// RUN: remat-opt %s --remat-annotate-costs="functions=step,nope,decl" --verify-diagnostics -o /dev/null
// RUN: remat-opt %s --remat-infer-phases="functions=step,nope,decl" --verify-diagnostics -o /dev/null
// RUN: remat-opt %s --remat-select-checkpoints="functions=step,nope,decl" --verify-diagnostics -o /dev/null
// RUN: remat-opt %s --remat-rematerialize="functions=step,nope,decl" --verify-diagnostics -o /dev/null
// RUN: remat-opt %s --remat-verify-memory="functions=step,nope,decl" --verify-diagnostics -o /dev/null
// RUN: remat-opt %s --remat-pipeline="functions=step,nope,decl" --verify-diagnostics -o /dev/null
// The message names the pass.
// RUN: not remat-opt %s --remat-select-checkpoints="functions=nope" 2>&1 | FileCheck %s
// CHECK: error: remat-select-checkpoints: functions= names no function with a body in this module: 'nope'

// A declaration has no body: naming it is an error too.
func.func private @decl(tensor<4xf32>) -> tensor<4xf32>

// expected-error @below {{functions= names no function with a body in this module: 'nope', 'decl'}}
func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = math.tanh %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @other(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = math.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
