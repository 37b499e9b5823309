// RUN: remat-opt %s --remat-lower-gather-scatter | FileCheck %s

// A gather and a reduce-scatter along dimension 0 of a 1-D grid become
// calls of the runners' MPI wrappers on flat buffers: the operand collapsed
// and taken as a buffer, the result one allocation of its bytes, read back
// as a tensor and expanded to its shape.

shard.grid @dp(shape = 2)

// CHECK-DAG: func.func private @remat_mpi_all_gather_f32(memref<?xf32>, memref<?xf32>) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @remat_mpi_reduce_scatter_f32(memref<?xf32>, memref<?xf32>) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @step(
// CHECK-SAME: %[[W:.*]]: tensor<2x3xf32>, %[[G:.*]]: tensor<4x3xf32>)
func.func @step(%w: tensor<2x3xf32>, %g: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<2x3xf32>) {
  // CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[W]] {{\[\[}}0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  // CHECK: %[[IN:.*]] = bufferization.to_buffer %[[FLAT]] read_only : tensor<6xf32> to memref<6xf32>
  // CHECK: %[[OUT:.*]] = memref.alloc() : memref<12xf32>
  // CHECK: %[[A:.*]] = memref.cast %[[IN]] : memref<6xf32> to memref<?xf32>
  // CHECK: %[[B:.*]] = memref.cast %[[OUT]] : memref<12xf32> to memref<?xf32>
  // CHECK: call @remat_mpi_all_gather_f32(%[[A]], %[[B]]) : (memref<?xf32>, memref<?xf32>) -> ()
  // CHECK: %[[T:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<12xf32> to tensor<12xf32>
  // CHECK: %[[GATHERED:.*]] = tensor.expand_shape %[[T]] {{\[\[}}0, 1]] output_shape [4, 3] : tensor<12xf32> into tensor<4x3xf32>
  %a = shard.all_gather %w on @dp grid_axes = [0] gather_axis = 0 : tensor<2x3xf32> -> tensor<4x3xf32>
  // CHECK: tensor.collapse_shape %[[G]] {{.*}} into tensor<12xf32>
  // CHECK: memref.alloc() : memref<6xf32>
  // CHECK: call @remat_mpi_reduce_scatter_f32(
  // CHECK: %[[SCATTERED:.*]] = tensor.expand_shape {{.*}} into tensor<2x3xf32>
  %r = shard.reduce_scatter %g on @dp grid_axes = [0] scatter_axis = 0 : tensor<4x3xf32> -> tensor<2x3xf32>
  // CHECK: return %[[GATHERED]], %[[SCATTERED]]
  return %a, %r : tensor<4x3xf32>, tensor<2x3xf32>
}

// The CPU lowering runs it before convert-shard-to-mpi: no shard op is
// left, the step calls the wrappers, which call the C interface the
// runners provide (lib/Runner/Collectives.cpp).
// RUN: remat-opt %s --remat-lower-to-cpu | FileCheck %s --check-prefix=CPU
// CPU-NOT: shard.
// CPU-DAG: llvm.call @_mlir_ciface_remat_mpi_all_gather_f32
// CPU-DAG: llvm.call @_mlir_ciface_remat_mpi_reduce_scatter_f32
// CPU-DAG: llvm.call @remat_mpi_all_gather_f32(
// CPU-DAG: llvm.call @remat_mpi_reduce_scatter_f32(
