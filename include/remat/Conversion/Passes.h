//===- Passes.h - remat-opt conversion passes -------------------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Passes that prepare a bufferized training step for the GPU, and the public
// functions they are thin shells over.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_CONVERSION_PASSES_H
#define REMAT_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace remat {

/// Makes every buffer of `func` device memory: `memref.alloc`/`dealloc`
/// become `gpu.alloc`/`gpu.dealloc`, `memref.copy` becomes `linalg.copy`,
/// and read globals are uploaded into device buffers; host copies (memory
/// space 1) stay pinned host memory, copied with `gpu.memcpy`
/// (recordHostCopies records their cost). Memref arguments and
/// results are taken to be device buffers. Fails, after emitting a located
/// error for each offending op and leaving `func` unchanged, when a buffer
/// is accessed on the host or cannot be placed on the device.
mlir::LogicalResult moveHostAllocationsToGPU(mlir::func::FuncOp func);

/// Moves each copy between device and page-locked host memory of the
/// single-block `func`, which gpu-async-region chained on the compute
/// stream, to a stream of its own: it forks (an event) from the compute
/// stream where the copy is and after the copy before it, and the compute
/// stream waits for it right before the first later op that touches bytes
/// the copy touches (a free of them follows the copy on its stream instead);
/// every stream is synchronized and destroyed before the return. Functions
/// of several blocks are left unchanged.
void overlapHostCopies(mlir::func::FuncOp func);

/// Records what the host copies of the bufferized `func` cost
/// (docs/Offload.md) as `remat.host_copies = array<i64: host peak bytes,
/// copies, bytes moved>` when it has any: the most bytes of host buffers
/// (memory space 1) live at once in program order, the copies between host
/// and device memory and the bytes they move. A located error for a host
/// buffer of unknown size.
mlir::LogicalResult recordHostCopies(mlir::func::FuncOp func);

/// Erases the `remat.wait` ops of the bufferized `func`: once its buffers
/// are freed and placed, a wait reads nothing at run time (docs/Offload.md).
void eraseCopyWaits(mlir::func::FuncOp func);

/// Whether `value` is a buffer in host memory (a memref in the memory space
/// `remat.offload` bufferizes to, getHostMemorySpace).
bool isHostBuffer(mlir::Value value);

/// Wraps every linalg op on memrefs of `func` that has no parallel iterator
/// and is not already inside an `scf.parallel` or `gpu.launch` in a
/// one-iteration `scf.parallel`. Returns the number of ops wrapped.
unsigned wrapSerialLinalgOps(mlir::func::FuncOp func);

/// Replaces every `math.erf` and `math.erfc` of `module` by a call of the C
/// library's function (erff/erf, erfcf/erfc), declared in `module`; leaves
/// every other op alone. Fails when an op cannot be converted (a type the C
/// library has no function for), with an error on it.
mlir::LogicalResult lowerMathToLibm(mlir::ModuleOp module);

/// Erases the `shard.grid` ops of `module` that nothing references and, when
/// `module` holds `mpi` ops, selects the MPI ABI of their lowering: adds the
/// DLTI entry `"MPI:Implementation" = implementation` unless the module
/// already names one; for OpenMPI, replaces each `mpi.comm_split` of a
/// constant color by its parent communicator (upstream's OpenMPI lowering of
/// the split truncates the communicator). Fails with a located error when
/// `implementation` is neither "OpenMPI" nor "MPICH", when the module has a
/// `dlti.map` attribute without that entry, or on a split of a
/// rank-dependent color for OpenMPI.
mlir::LogicalResult finishShardToMPI(mlir::ModuleOp module,
                                     llvm::StringRef implementation);

/// Replaces every `shard.all_gather` and `shard.reduce_scatter` of `module`
/// (f32, along dimension 0, over the whole of a 1-D grid) by a call of the
/// runners' `remat_mpi_all_gather_f32` / `remat_mpi_reduce_scatter_f32` on
/// flat buffers (see the pass description). Fails, after a located error for
/// each one, on any other gather or scatter; the module is then unchanged.
mlir::LogicalResult lowerGatherScatter(mlir::ModuleOp module);

/// Replaces every single-result `scf.if` of `func` whose branches yield the
/// same constant fill (upstream shard-partition's init of a partial sum on
/// the first process versus the neutral element elsewhere, when the init is
/// that neutral element) by the fill defined above it. Returns how many.
unsigned foldPartialSumInits(mlir::func::FuncOp func);

/// Registers external `MemoryEffectOpInterface` models for the `mpi` ops
/// that have none upstream, so that buffer deallocation accepts them: each
/// reads and writes its memref operands and writes the default resource.
void registerMPIMemoryEffects(mlir::DialectRegistry &registry);

#define GEN_PASS_DECL
#include "remat/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "remat/Conversion/Passes.h.inc"

} // namespace remat

#endif // REMAT_CONVERSION_PASSES_H
