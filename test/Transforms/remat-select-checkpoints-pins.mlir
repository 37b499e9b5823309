// RUN: remat-opt %s --split-input-file --remat-select-checkpoints="solver=brute-force budget=80" --verify-diagnostics

// Pins and memory effects: the exact brute-force solver ignores
// remat.keep<always>, so the pass refuses its plan instead of recomputing a
// pinned op. At 80 bytes the chain needs every forward op recomputed (see
// remat-select-checkpoints.mlir).

#c16 = #remat.cost<bytes = [16], flops = 4>
#fwd = #remat.phase<forward>
#bwd = #remat.phase<backward>
func.func @pinned(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = math.tanh %x {remat.cost = #c16, remat.phase = #fwd} : tensor<4xf32>
  %b = math.tanh %a {remat.cost = #c16, remat.phase = #fwd} : tensor<4xf32>
  // expected-error @below {{solver 'brute-force' recomputes this op, which is pinned by remat.keep<always>; choose a solver that honours pins}}
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
func.func @effects(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @below {{solver 'brute-force' recomputes this op, which has memory effects; choose a solver that honours pins}}
  %a = func.call @opaque(%x) {remat.cost = #c16, remat.phase = #fwd} : (tensor<4xf32>) -> tensor<4xf32>
  %b = math.tanh %a {remat.cost = #c16, remat.phase = #fwd} : tensor<4xf32>
  %c = math.tanh %b {remat.cost = #c16, remat.phase = #fwd} : tensor<4xf32>
  %gc = arith.mulf %c, %w {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  %gb = arith.mulf %gc, %b {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  %ga = arith.mulf %gb, %a {remat.cost = #c16, remat.phase = #bwd} : tensor<4xf32>
  return %c, %ga : tensor<4xf32>, tensor<4xf32>
}
