// RUN: remat-opt %s --split-input-file --remat-lower-gather-scatter --verify-diagnostics

// Only a gather along dimension 0 is a concatenation of flat buffers.
shard.grid @dp(shape = 2)
func.func @gather_axis(%w: tensor<3x2xf32>) -> tensor<3x4xf32> {
  // expected-error @below {{only gathering or scattering along dimension 0 can be lowered to MPI (got 1)}}
  %g = shard.all_gather %w on @dp grid_axes = [0] gather_axis = 1 : tensor<3x2xf32> -> tensor<3x4xf32>
  return %g : tensor<3x4xf32>
}

// -----

// A collective over one axis of a 2-D grid would need a sub-communicator.
shard.grid @g(shape = 2x2)
func.func @part_of_grid(%w: tensor<2x3xf32>) -> tensor<4x3xf32> {
  // expected-error @below {{only a collective over the whole of a 1-D grid can be lowered to MPI_COMM_WORLD}}
  %g = shard.all_gather %w on @g grid_axes = [1] gather_axis = 0 : tensor<2x3xf32> -> tensor<4x3xf32>
  return %g : tensor<4x3xf32>
}

// -----

shard.grid @dp(shape = 2)
func.func @f64(%w: tensor<2x3xf64>) -> tensor<4x3xf64> {
  // expected-error @below {{only static f32 tensors can be gathered or scattered over MPI}}
  %g = shard.all_gather %w on @dp grid_axes = [0] gather_axis = 0 : tensor<2x3xf64> -> tensor<4x3xf64>
  return %g : tensor<4x3xf64>
}

// -----

shard.grid @dp(shape = 2)
func.func @max(%g: tensor<4x3xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{only a sum can be reduce-scattered over MPI}}
  %r = shard.reduce_scatter %g on @dp grid_axes = [0] reduction = max scatter_axis = 0 : tensor<4x3xf32> -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
