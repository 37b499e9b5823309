// RUN: remat-opt %s --split-input-file --remat-pipeline --verify-diagnostics -o /dev/null

// Collectives the planner cannot keep in place on every rank are located
// errors, not silent plans.

shard.grid @dp(shape = 2)

func.func @hidden_in_region(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 3 : index
  // expected-error @below {{'scf.for' holds a collective: the planner treats a region op as one node and cannot keep the collective in place on every rank; move it out of the region}}
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> tensor<4xf32> {
    // expected-note @below {{collective here}}
    %s = shard.all_reduce %acc on @dp grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

shard.grid @two(shape = 2)
shard.grid @four(shape = 4)

func.func @two_grids(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = math.tanh %x : tensor<4xf32>
  // expected-note @below {{earlier collective here}}
  %r = shard.all_reduce %a on @two grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  // expected-error @below {{collective on grid @four, but an earlier one runs on grid @two: a per-rank plan needs every collective of the step on one grid}}
  %s = shard.all_reduce %r on @four grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

shard.grid @dp(shape = 2)

func.func @never_keep(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = math.tanh %x : tensor<4xf32>
  // expected-error @below {{'remat.keep = #remat.keep<never>' on a collective: it cannot be recomputed}}
  %r = shard.all_reduce %a on @dp grid_axes = [0] {remat.keep = #remat.keep<never>} : tensor<4xf32> -> tensor<4xf32>
  %b = math.tanh %r : tensor<4xf32>
  return %b : tensor<4xf32>
}
