// RUN: remat-opt %s --split-input-file --remat-select-checkpoints="solver=brute-force budget=80" --verify-diagnostics -o /dev/null
// RUN: remat-opt %s --split-input-file --remat-select-checkpoints="solver=local-search mode=min-budget" 2>/dev/null | FileCheck %s

// Pins and memory effects. The exact brute-force search cannot honour
// remat.keep<always> (and ops with memory effects are pinned always), so it
// declines; a solver that honours pins computes the pinned op exactly once.
// (The pass also refuses any plan that recomputes a pinned op, whatever the
// solver.)

#c16 = #remat.cost<bytes = [16], flops = 4>
#fwd = #remat.phase<forward>
#bwd = #remat.phase<backward>
// CHECK-LABEL: func.func @pinned
// CHECK:         math.tanh %{{.*}} {{{.*}}remat.keep = #remat.keep<always>, {{.*}}remat.steps = array<i64: {{[0-9]+}}>}
// expected-error @below {{solver 'brute-force' does not apply to this function: keep pins are not supported}}
func.func @pinned(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = math.tanh %x {remat.cost = #c16, remat.phase = #fwd} : tensor<4xf32>
  %b = math.tanh %a {remat.cost = #c16, remat.phase = #fwd} : tensor<4xf32>
  %c = math.tanh %b {remat.cost = #c16, remat.phase = #fwd, remat.keep = #remat.keep<always>} : tensor<4xf32>
  %gc = arith.mulf %c, %w {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  %gb = arith.mulf %gc, %b {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  %ga = arith.mulf %gb, %a {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  return %c, %ga : tensor<4xf32>, tensor<4xf32>
}

// -----

#c16 = #remat.cost<bytes = [16], flops = 4>
#fwd = #remat.phase<forward>
#bwd = #remat.phase<backward>
func.func private @opaque(tensor<4xf32>) -> tensor<4xf32>
// CHECK-LABEL: func.func @effects
// CHECK:         call @opaque(%{{.*}}) {{{.*}}remat.steps = array<i64: 0>}
// expected-error @below {{solver 'brute-force' does not apply to this function: keep pins are not supported}}
func.func @effects(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = func.call @opaque(%x) {remat.cost = #c16, remat.phase = #fwd} : (tensor<4xf32>) -> tensor<4xf32>
  %b = math.tanh %a {remat.cost = #c16, remat.phase = #fwd} : tensor<4xf32>
  %c = math.tanh %b {remat.cost = #c16, remat.phase = #fwd} : tensor<4xf32>
  %gc = arith.mulf %c, %w {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  %gb = arith.mulf %gc, %b {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  %ga = arith.mulf %gb, %a {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  return %c, %ga : tensor<4xf32>, tensor<4xf32>
}
