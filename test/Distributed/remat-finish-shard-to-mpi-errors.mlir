// RUN: remat-opt %s --split-input-file --remat-finish-shard-to-mpi --verify-diagnostics

// A DLTI map that names no MPI implementation is an error: the mpi to LLVM
// conversion would silently fall back to MPICH's ABI. (An unknown
// mpi-implementation= is checked in remat-lower-to-cpu-mpi.mlir.)

// expected-error @below {{the module's 'dlti.map' names no "MPI:Implementation": add the entry (OpenMPI or MPICH) to it}}
module attributes {dlti.map = #dlti.map<"other" = 1 : i32>} {
  func.func @rank() -> i32 {
    %comm = mpi.comm_world : !mpi.comm
    %err, %rank = mpi.comm_rank(%comm) : !mpi.retval, i32
    return %rank : i32
  }
}

// -----

// An entry already there is kept, whatever mpi-implementation= says.
module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "MPICH">} {
  func.func @rank() -> i32 {
    %comm = mpi.comm_world : !mpi.comm
    %err, %rank = mpi.comm_rank(%comm) : !mpi.retval, i32
    return %rank : i32
  }
}
