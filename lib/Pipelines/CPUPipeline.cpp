//===- CPUPipeline.cpp - remat-lower-to-cpu pipeline ----------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Lowers a linalg-on-tensors training step to the LLVM dialect for CPU
// execution. The pipeline only strings upstream passes together; what it
// decides is how buffers are allocated and freed, which is what makes the
// executed program's heap usage comparable to remat's memory model:
//
//  * elementwise arith/math ops on tensors become linalg.generic ops, which
//    bufferize (upstream convert-elementwise-to-linalg);
//  * remat-split-shared-empty gives each writer of a shared tensor.empty its
//    own, so that each gets its own buffer, as the model counts;
//  * one-shot-bufferize with function boundaries and identity layouts: every
//    tensor result that cannot be written in place becomes one memref.alloc
//    of exactly its byte size (buffer-alignment=0 adds no padding);
//  * the ownership-based deallocation pipeline frees every buffer that does
//    not escape, but at the end of its block;
//  * remat-free-after-last-use (upstream optimize-allocation-liveness, which
//    fails on calls, mended) then moves each dealloc right after the last use
//    of the buffer or of a view of it -- the model's "a value dies after its
//    last use";
//  * remat-plan-arena (arena=true) then places every buffer of known size in
//    one arena at an offset planned over those live ranges; the heap then
//    holds one allocation of the arena's size (docs/Arena.md);
//  * remat-lower-host-memory counts the host copies of offloaded values
//    (remat.host_copies) and makes their buffers plain ones;
//  * finalize-memref-to-llvm{use-generic-functions} routes every allocation
//    through _mlir_memref_to_llvm_alloc/_free, where the remat allocation
//    tracker (lib/Runtime) counts live and peak bytes.
//
//===----------------------------------------------------------------------===//

#include "remat/Conversion/Passes.h"
#include "remat/Pipelines/Pipelines.h"
#include "remat/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/Shard/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void remat::buildRematBufferizePipeline(
    OpPassManager &pm, const RematLowerToCPUPipelineOptions &options) {
  // remat.barrier only guards recomputations against cse on tensors; once
  // bufferized, each recomputation has its own buffer, and the remat.*
  // attributes, which describe tensor results, no longer apply (see
  // docs/Rematerialization.md).
  RematStripBarriersOptions strip;
  strip.stripAttributes = true;
  pm.addPass(createRematStripBarriers(strip));
  // One tensor.empty per writer, as the input has it: a shared one would be
  // one buffer live from its first writer to its last, which the memory
  // model does not count. (Before the decompositions below, which share
  // one on purpose: each writer there reads the previous one's result, so
  // bufferization writes in place.)
  pm.addPass(createRematSplitSharedEmpty());
  // convert-linalg-to-loops cannot lower aggregated ops (linalg.softmax):
  // decompose them into linalg.generic ops while still on tensors.
  pm.addPass(createRematDecomposeAggregatedOps());
  // Elementwise arith and math ops applied to whole tensors (`math.tanh %t :
  // tensor<...>`, which other front ends emit and the planning passes cost)
  // do not bufferize: make them linalg.generic ops first.
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  // Collectives of a data-parallel step: all_gather and reduce_scatter ->
  // calls of the runners' MPI wrappers (remat-lower-gather-scatter), then
  // the rest: shard -> mpi on buffers, with the
  // MPI ABI selected and the mpi ops given memory effects, so that
  // deallocation and convert-to-llvm accept them (no-ops without shard).
  pm.addPass(createRematLowerGatherScatter());
  pm.addPass(createConvertShardToMPIPass());
  RematFinishShardToMPIOptions finish;
  finish.mpiImplementation = options.mpiImplementation;
  pm.addPass(createRematFinishShardToMPI(finish));
  // Tensors -> buffers. Identity layouts at function boundaries keep the
  // entry's signature plain memrefs (what remat-run builds descriptors for).
  bufferization::OneShotBufferizePassOptions bufferizeOptions;
  bufferizeOptions.bufferizeFunctionBoundaries = true;
  bufferizeOptions.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  bufferizeOptions.bufferAlignment = options.bufferAlignment;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferizeOptions));

  if (options.deallocate) {
    bufferization::buildBufferDeallocationPipeline(pm);
    // Ownership-based deallocation frees buffers at the end of their block;
    // free them right after their last use instead (upstream
    // optimize-allocation-liveness moves a free past the return when a call
    // reads the buffer).
    if (options.earlyDealloc)
      pm.addNestedPass<func::FuncOp>(createRematFreeAfterLastUse());
  }
  pm.addPass(createConvertBufferizationToMemRefPass());
  // One arena for every buffer of known size, at planned offsets
  // (docs/Arena.md).
  if (options.arena) {
    RematPlanArenaOptions arena;
    arena.alignment = options.arenaAlignment;
    arena.remarks = options.arenaRemarks;
    // A lowering does not refuse what it can run: a dynamic buffer of a
    // function without a dynamic-size hint keeps its own allocation.
    arena.requireHint = false;
    pm.addPass(createRematPlanArena(arena));
  }
}

void remat::buildRematLowerToCPUPipeline(
    OpPassManager &pm, const RematLowerToCPUPipelineOptions &options) {
  buildRematBufferizePipeline(pm, options);
  // Host copies (remat.offload, docs/Offload.md): counted on the function,
  // then plain buffers, since host and device memory are one here.
  pm.addNestedPass<func::FuncOp>(createRematLowerHostMemory());

  // Buffers -> loops -> control flow.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());

  // -> LLVM dialect; the C library computes what LLVM has no intrinsic for.
  pm.addPass(createRematMathToLibm());
  FinalizeMemRefToLLVMConversionPassOptions memrefOptions;
  memrefOptions.useGenericFunctions = options.useGenericFunctions;
  memrefOptions.useAlignedAlloc = options.useAlignedAlloc;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefOptions));
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void remat::buildRematShardPartitionPipeline(OpPassManager &pm) {
  shard::ShardingPropagationOptions propagation;
  propagation.traversal = shard::TraversalOrder::ForwardBackward;
  pm.addNestedPass<func::FuncOp>(shard::createShardingPropagation(propagation));
  pm.addNestedPass<func::FuncOp>(shard::createPartition());
  pm.addNestedPass<func::FuncOp>(createRematFoldPartialSumInits());
}

void remat::registerRematShardPartitionPipeline() {
  PassPipelineRegistration<>(
      "remat-shard-partition",
      "Partition a shard-annotated training step into its per-rank program "
      "(upstream sharding-propagation{traversal=forward-backward} and "
      "shard-partition on every function, then "
      "remat-fold-partial-sum-inits).",
      buildRematShardPartitionPipeline);
}

void remat::registerRematLowerToCPUPipeline() {
  PassPipelineRegistration<RematLowerToCPUPipelineOptions>(
      "remat-lower-to-cpu",
      "Lower a linalg-on-tensors training step to the LLVM dialect for CPU "
      "execution, with buffers freed right after their last use and every "
      "allocation routed through _mlir_memref_to_llvm_alloc/_free.",
      buildRematLowerToCPUPipeline);
  PassPipelineRegistration<RematLowerToCPUPipelineOptions>(
      "remat-bufferize",
      "The bufferization half of remat-lower-to-cpu: the memref IR that "
      "runs, with deallocations right after last uses (takes the same "
      "options; only deallocate, early-dealloc and buffer-alignment apply).",
      buildRematBufferizePipeline);
}
