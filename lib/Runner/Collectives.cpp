//===- Collectives.cpp - MPI wrappers the lowered steps call --------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The C functions `remat-lower-gather-scatter` lowers `shard.all_gather` and
// `shard.reduce_scatter` to (the `mpi` dialect has no op for either):
// MPI_Allgather and MPI_Reduce_scatter_block of f32 on MPI_COMM_WORLD, on
// the flat buffers the pass passes. The runners hand them to the JIT
// (getMPISymbols). See docs/Distributed.md.
//
//===----------------------------------------------------------------------===//

#include "remat/Runner/Ranks.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include <cstdio>

#if REMAT_ENABLE_MPI
#include <mpi.h>

namespace {
using FlatF32 = StridedMemRefType<float, 1>;

/// Aborts the job when `in` and `out` are not contiguous or `out` is not
/// `ranks` times `in` (`gather`) or `in` not `ranks` times `out`: the
/// lowering never passes such buffers.
void checkShapes(const char *what, const FlatF32 *in, const FlatF32 *out,
                 bool gather) {
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const FlatF32 *whole = gather ? out : in, *block = gather ? in : out;
  if (in->strides[0] == 1 && out->strides[0] == 1 &&
      whole->sizes[0] == block->sizes[0] * ranks)
    return;
  std::fprintf(stderr,
               "%s: buffers of %lld and %lld floats on %d ranks do not "
               "match\n",
               what, (long long)in->sizes[0], (long long)out->sizes[0], ranks);
  MPI_Abort(MPI_COMM_WORLD, 3);
}
} // namespace

extern "C" void _mlir_ciface_remat_mpi_all_gather_f32(FlatF32 *in,
                                                      FlatF32 *out) {
  checkShapes("remat_mpi_all_gather_f32", in, out, /*gather=*/true);
  MPI_Allgather(in->data + in->offset, static_cast<int>(in->sizes[0]),
                MPI_FLOAT, out->data + out->offset,
                static_cast<int>(in->sizes[0]), MPI_FLOAT, MPI_COMM_WORLD);
}

extern "C" void _mlir_ciface_remat_mpi_reduce_scatter_f32(FlatF32 *in,
                                                          FlatF32 *out) {
  checkShapes("remat_mpi_reduce_scatter_f32", in, out, /*gather=*/false);
  MPI_Reduce_scatter_block(in->data + in->offset, out->data + out->offset,
                           static_cast<int>(out->sizes[0]), MPI_FLOAT, MPI_SUM,
                           MPI_COMM_WORLD);
}
#endif

llvm::SmallVector<std::pair<llvm::StringRef, void *>>
remat::getCollectiveSymbols() {
  llvm::SmallVector<std::pair<llvm::StringRef, void *>> symbols;
#if REMAT_ENABLE_MPI
  symbols.push_back({"_mlir_ciface_remat_mpi_all_gather_f32",
                     reinterpret_cast<void *>(
                         &_mlir_ciface_remat_mpi_all_gather_f32)});
  symbols.push_back({"_mlir_ciface_remat_mpi_reduce_scatter_f32",
                     reinterpret_cast<void *>(
                         &_mlir_ciface_remat_mpi_reduce_scatter_f32)});
#endif
  return symbols;
}
