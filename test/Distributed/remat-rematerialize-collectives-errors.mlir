// RUN: remat-opt %s --split-input-file --remat-rematerialize --verify-diagnostics

// A hand-written (or saved) plan that would clone a collective, or run one
// before an earlier one, is rejected: every rank must run each collective
// exactly once and in program order.

#c16 = #remat.cost<bytes = [16], flops = 0>
#fwd = #remat.phase<forward>

shard.grid @dp(shape = 2)

func.func @clone_collective(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{op is a collective (every rank runs it exactly once) and cannot be recomputed, but the plan computes it 2 times}}
  %r = shard.all_reduce %x on @dp grid_axes = [0] {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 0, 2>} : tensor<4xf32> -> tensor<4xf32>
  %b = math.tanh %r {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 1>} : tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

#c16 = #remat.cost<bytes = [16], flops = 0>
#fwd = #remat.phase<forward>

shard.grid @dp(shape = 2)

func.func @swap_collectives(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-note @below {{earlier op here}}
  %r = shard.all_reduce %x on @dp grid_axes = [0] {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 1>} : tensor<4xf32> -> tensor<4xf32>
  // expected-error @below {{plan moves this collective before an earlier one}}
  %s = shard.all_reduce %y on @dp grid_axes = [0] {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 0>} : tensor<4xf32> -> tensor<4xf32>
  return %r, %s : tensor<4xf32>, tensor<4xf32>
}

// -----

// A parameter gather (an all_gather of a function argument) may be
// computed again, but its first computation stays before the next pinned
// collective of the program.

#c16 = #remat.cost<bytes = [16], flops = 0>
#c32 = #remat.cost<bytes = [32], flops = 0>
#fwd = #remat.phase<forward>

shard.grid @dp(shape = 2)

func.func @gather_after_collective(%ws: tensor<4xf32>, %x: tensor<4xf32>) -> (tensor<8xf32>, tensor<4xf32>) {
  // expected-note @below {{earlier op here}}
  %w = shard.all_gather %ws on @dp grid_axes = [0] gather_axis = 0 {remat.cost = #c32, remat.phase = #fwd, remat.steps = array<i64: 1, 2>} : tensor<4xf32> -> tensor<8xf32>
  // expected-error @below {{plan moves this collective before an earlier one}}
  %r = shard.all_reduce %x on @dp grid_axes = [0] {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 0>} : tensor<4xf32> -> tensor<4xf32>
  return %w, %r : tensor<8xf32>, tensor<4xf32>
}

// -----

// A gather of a computed value is pinned like any collective.

#c16 = #remat.cost<bytes = [16], flops = 0>
#c32 = #remat.cost<bytes = [32], flops = 0>
#fwd = #remat.phase<forward>

shard.grid @dp(shape = 2)

func.func @clone_value_gather(%x: tensor<4xf32>) -> tensor<8xf32> {
  %t = math.tanh %x {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 0>} : tensor<4xf32>
  // expected-error @below {{op is a collective (every rank runs it exactly once) and cannot be recomputed, but the plan computes it 2 times}}
  %w = shard.all_gather %t on @dp grid_axes = [0] gather_axis = 0 {remat.cost = #c32, remat.phase = #fwd, remat.steps = array<i64: 1, 2>} : tensor<4xf32> -> tensor<8xf32>
  return %w : tensor<8xf32>
}
