// RUN: remat-opt %s --remat-lower-to-cpu | FileCheck %s --check-prefix=OMPI
// RUN: remat-opt %s --remat-lower-to-cpu="mpi-implementation=MPICH" | FileCheck %s --check-prefix=MPICH
// RUN: remat-opt %s --remat-bufferize=arena=false | FileCheck %s --check-prefix=BUF
// RUN: remat-opt %s --remat-bufferize | FileCheck %s --check-prefix=ARENA
// RUN: not remat-opt %s --remat-lower-to-cpu="mpi-implementation=LAM" 2>&1 | FileCheck %s --check-prefix=LAM

// A per-rank step with one all-reduce: remat-lower-to-cpu converts it
// (upstream convert-shard-to-mpi), selects the MPI ABI (OpenMPI unless the
// module names one), gives the mpi op memory effects so that buffer
// deallocation accepts it, drops the grid, and lowers to MPI calls.

shard.grid @dp(shape = 2)

func.func @grad_allreduce(%g: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %t = linalg.exp ins(%g : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = shard.all_reduce %t on @dp grid_axes = [0] : tensor<8xf32> -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// OMPI: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">}
// OMPI-NOT: shard.
// OMPI-DAG: llvm.mlir.global external @ompi_mpi_comm_world()
// OMPI-DAG: llvm.mlir.global external @ompi_mpi_float()
// OMPI-DAG: llvm.func @MPI_Allreduce(
// OMPI: llvm.call @MPI_Allreduce(

// LAM: error: unknown MPI implementation 'LAM': expected OpenMPI or MPICH

// MPICH: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "MPICH">}
// MPICH-NOT: ompi_
// MPICH: llvm.call @MPI_Allreduce(

// The all-reduce buffer is one allocation of the result's bytes (a copy of
// the partial sum, reduced in place), returned to the caller; the exp
// temporary is freed once copied. The communicator is the world: the
// collective spans the whole 1-D grid (remat-finish-shard-to-mpi folds
// upstream's mpi.comm_split of a constant color).
// BUF-LABEL: func.func @grad_allreduce
// BUF:         %[[T:.*]] = memref.alloc() : memref<8xf32>
// BUF:         linalg.exp ins(%arg0 : memref<8xf32>) outs(%[[T]] : memref<8xf32>)
// BUF-NEXT:    %[[R:.*]] = memref.alloc() : memref<8xf32>
// BUF-NEXT:    linalg.copy ins(%[[T]] : memref<8xf32>) outs(%[[R]] : memref<8xf32>)
// BUF-NEXT:    memref.dealloc %[[T]]
// BUF-NEXT:    %[[W:.*]] = mpi.comm_world
// BUF-NEXT:    mpi.allreduce(%[[R]], %[[R]], MPI_SUM, %[[W]])
// BUF-NEXT:    return %[[R]]
// In one arena (the default), the collective reduces a view of it in
// place: the exp temporary at 0, the all-reduce buffer at 32.
// ARENA-LABEL: func.func @grad_allreduce
// ARENA-SAME:      remat.arena_bytes = 64
// ARENA:         %[[A:.*]] = memref.alloc() : memref<64xi8>
// ARENA:         %[[R:.*]] = memref.view %[[A]][%c32][] : memref<64xi8> to memref<8xf32>
// ARENA:         mpi.allreduce(%[[R]], %[[R]], MPI_SUM, %{{.*}})
// ARENA-NEXT:    return %[[R]]
