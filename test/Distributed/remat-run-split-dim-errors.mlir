// REQUIRES: mpi
// remat-run on a per-rank program whose `remat.split_dim` arguments it
// cannot feed: a located CLI error, never a crash.
// RUN: not remat-run %s --entry=out_of_range 2>&1 | FileCheck %s --check-prefix=DIM
// DIM: remat-run: error: 'out_of_range': argument #0: remat.split_dim must be an integer dimension of the ranked tensor argument
// RUN: not remat-run %s --entry=not_integer 2>&1 | FileCheck %s --check-prefix=INT
// INT: remat-run: error: 'not_integer': argument #1: remat.split_dim must be an integer dimension of the ranked tensor argument
// RUN: not remat-run %s --entry=two_grids 2>&1 | FileCheck %s --check-prefix=GRIDS
// GRIDS: remat-run: error: 'two_grids': argument #0: remat.split_dim needs exactly one 1-D shard.grid in the module

shard.grid @dp(shape = 2)
shard.grid @dp2d(shape = 1x2)

func.func @out_of_range(%x: tensor<4xf32> {remat.split_dim = 1 : i64}) -> tensor<4xf32> {
  %s = shard.all_reduce %x on @dp grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}

func.func @not_integer(%w: tensor<4xf32>, %x: tensor<4xf32> {remat.split_dim = "batch"}) -> tensor<4xf32> {
  %s = shard.all_reduce %x on @dp grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}

func.func @two_grids(%x: tensor<4xf32> {remat.split_dim = 0 : i64}) -> tensor<4xf32> {
  %s = shard.all_reduce %x on @dp grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}
