//===- Pipelines.h - remat-opt pass pipelines -------------------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Pass pipelines of remat-opt, built from options structs as upstream MLIR
// does (mlir/Dialect/GPU/Pipelines/Passes.h): every setting is a pipeline
// option, so a pipeline is reproducible from a `--pass-pipeline` string.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_PIPELINES_PIPELINES_H
#define REMAT_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <cstdint>

namespace remat {

//===----------------------------------------------------------------------===//
// remat-lower-to-cpu
//===----------------------------------------------------------------------===//

/// Options of `--remat-lower-to-cpu`, the pipeline that lowers a
/// linalg-on-tensors training step to the LLVM dialect for CPU execution
/// (remat-run, mlir-runner). The defaults make the executed program's heap
/// usage follow remat's memory model: every tensor result is one heap buffer
/// of exactly its byte size, freed right after its last use (see
/// docs/Running.md, "Measured vs predicted").
struct RematLowerToCPUPipelineOptions
    : public mlir::PassPipelineOptions<RematLowerToCPUPipelineOptions> {
  PassOptions::Option<bool> deallocate{
      *this, "deallocate",
      llvm::cl::desc("Insert deallocations (ownership-based buffer "
                     "deallocation). Without it every buffer leaks."),
      llvm::cl::init(true)};
  PassOptions::Option<bool> earlyDealloc{
      *this, "early-dealloc",
      llvm::cl::desc("Move each deallocation right after the last use of its "
                     "buffer or of any view of it (upstream "
                     "optimize-allocation-liveness). Without it buffers are "
                     "freed at the end of their block."),
      llvm::cl::init(true)};
  PassOptions::Option<uint64_t> bufferAlignment{
      *this, "buffer-alignment",
      llvm::cl::desc("Alignment (bytes) that one-shot-bufferize requests for "
                     "new buffers; 0 requests none (malloc's own alignment). "
                     "With the malloc path each allocation is padded by this "
                     "many bytes."),
      llvm::cl::init(0)};
  PassOptions::Option<bool> useGenericFunctions{
      *this, "use-generic-functions",
      llvm::cl::desc("Allocate and free through _mlir_memref_to_llvm_alloc/"
                     "_aligned_alloc/_free (so a runtime library can count "
                     "heap bytes) instead of malloc/aligned_alloc/free."),
      llvm::cl::init(true)};
  PassOptions::Option<bool> useAlignedAlloc{
      *this, "use-aligned-alloc",
      llvm::cl::desc("Allocate through aligned_alloc (size rounded up to the "
                     "alignment) instead of malloc (size padded by the "
                     "alignment)."),
      llvm::cl::init(false)};
};

/// Adds the CPU lowering pipeline to `pm` (anchored on builtin.module):
///   one-shot-bufferize (function boundaries, identity layouts)
///   -> buffer-deallocation-pipeline -> optimize-allocation-liveness
///   -> convert-bufferization-to-memref -> convert-linalg-to-loops
///   -> convert-scf-to-cf -> expand-strided-metadata -> lower-affine
///   -> finalize-memref-to-llvm -> convert-to-llvm
///   -> reconcile-unrealized-casts.
/// Already-bufferized (memref) input is accepted as long as it holds no
/// deallocations yet; input already in the LLVM dialect passes through.
void buildRematLowerToCPUPipeline(mlir::OpPassManager &pm,
                                  const RematLowerToCPUPipelineOptions &options);

/// Adds the first half of the CPU pipeline, which yields the bufferized IR
/// that actually runs (what the memory analysis should see):
///   one-shot-bufferize -> buffer-deallocation-pipeline
///   -> optimize-allocation-liveness -> convert-bufferization-to-memref.
/// Only `deallocate`, `early-dealloc` and `buffer-alignment` apply.
void buildRematBufferizePipeline(mlir::OpPassManager &pm,
                                 const RematLowerToCPUPipelineOptions &options);

/// Registers the `remat-lower-to-cpu` and `remat-bufferize` pipelines.
void registerRematLowerToCPUPipeline();

/// Registers every remat-opt pipeline.
void registerRematPipelines();

} // namespace remat

#endif // REMAT_PIPELINES_PIPELINES_H
