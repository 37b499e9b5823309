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

#include "remat/Analysis/Communication.h"
#include "remat/Analysis/Roofline.h"
#include "remat/Solver/Search/ModeOption.h"
#include "remat/Transforms/GraphBuilder.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <cstdint>
#include <string>

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
                     "buffer or of any view of it "
                     "(remat-free-after-last-use). Without it buffers are "
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
  PassOptions::Option<bool> arena{
      *this, "arena",
      llvm::cl::desc("Place every buffer of known size in one arena at a "
                     "planned offset (remat-plan-arena, docs/Arena.md) "
                     "instead of allocating and freeing each on its own"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> arenaAlignment{
      *this, "arena-alignment",
      llvm::cl::desc("Alignment of every offset in the arena (a power of "
                     "two; 16: what malloc gives each buffer)"),
      llvm::cl::init(16)};
  PassOptions::Option<bool> arenaRemarks{
      *this, "arena-remarks",
      llvm::cl::desc("Report the arena and every buffer left out of it in "
                     "remarks"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> mpiImplementation{
      *this, "mpi-implementation",
      llvm::cl::desc("The MPI ABI that the collectives of a data-parallel "
                     "step are lowered for, unless the module names one in "
                     "its DLTI entry \"MPI:Implementation\": OpenMPI or "
                     "MPICH."),
      llvm::cl::init("OpenMPI")};
};

/// Adds the CPU lowering pipeline to `pm` (anchored on builtin.module):
///   remat-strip-barriers -> remat-split-shared-empty
///   -> remat-decompose-aggregated-ops
///   -> convert-shard-to-mpi -> remat-finish-shard-to-mpi
///   -> one-shot-bufferize (function boundaries, identity layouts)
///   -> buffer-deallocation-pipeline -> remat-free-after-last-use
///   -> convert-bufferization-to-memref -> remat-plan-arena (with `arena`)
///   -> convert-linalg-to-loops
///   -> convert-scf-to-cf -> expand-strided-metadata -> lower-affine
///   -> finalize-memref-to-llvm -> convert-to-llvm
///   -> reconcile-unrealized-casts.
/// Already-bufferized (memref) input is accepted as long as it holds no
/// deallocations yet; input already in the LLVM dialect passes through.
void buildRematLowerToCPUPipeline(
    mlir::OpPassManager &pm, const RematLowerToCPUPipelineOptions &options);

/// Adds the first half of the CPU pipeline, which yields the bufferized IR
/// that actually runs (what the memory analysis should see):
///   remat-strip-barriers -> remat-split-shared-empty
///   -> remat-decompose-aggregated-ops
///   -> convert-shard-to-mpi -> remat-finish-shard-to-mpi -> one-shot-bufferize
///   -> buffer-deallocation-pipeline -> remat-free-after-last-use
///   -> convert-bufferization-to-memref
///   -> remat-plan-arena (with `arena`).
/// Only `deallocate`, `early-dealloc`, `buffer-alignment`, the `arena`
/// options and `mpi-implementation` apply.
void buildRematBufferizePipeline(mlir::OpPassManager &pm,
                                 const RematLowerToCPUPipelineOptions &options);

/// Registers the `remat-lower-to-cpu` and `remat-bufferize` pipelines.
void registerRematLowerToCPUPipeline();

//===----------------------------------------------------------------------===//
// remat-shard-partition
//===----------------------------------------------------------------------===//

/// Adds upstream partitioning of a `shard`-annotated step into its per-rank
/// program to `pm` (anchored on builtin.module), on every function:
///   sharding-propagation{traversal=forward-backward} -> shard-partition
///   -> remat-fold-partial-sum-inits.
/// The forward-backward traversal is the one that keeps the batch split
/// through the backward pass of our steps and turns the gradients into
/// partial sums with one `shard.all_reduce` each (docs/Distributed.md says
/// what the other traversals do).
void buildRematShardPartitionPipeline(mlir::OpPassManager &pm);

/// Registers the `remat-shard-partition` pipeline.
void registerRematShardPartitionPipeline();

//===----------------------------------------------------------------------===//
// remat-pipeline
//===----------------------------------------------------------------------===//

/// Options of `--remat-pipeline`, which plans and applies rematerialization
/// on every function of a module (docs/Rematerialization.md). The solver and
/// mode names are those of `--remat-select-checkpoints`, which checks the
/// solver name against the registry when it runs.
struct RematPipelineOptions
    : public mlir::PassPipelineOptions<RematPipelineOptions> {
  PassOptions::Option<std::string> budget{
      *this, "budget",
      llvm::cl::desc("Peak-memory budget: bytes, bytes with a KiB/MiB/GiB "
                     "suffix, or a percentage of the checkpoint-all peak "
                     "(e.g. 70%); empty = 100%; min = plan at the smallest "
                     "budget the solver meets"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> solver{
      *this, "solver",
      llvm::cl::desc("Name of the registered checkpoint solver (see "
                     "remat-solve --list-solvers); auto = the portfolio"),
      llvm::cl::init("auto")};
  PassOptions::Option<std::string> policy{
      *this, "policy",
      llvm::cl::desc("A practitioners' policy instead of solver=, on the "
                     "repeated blocks the planner finds: none "
                     "(checkpoint-all), full-ac (keep each block's input) or "
                     "selective (and its matmul outputs)"),
      llvm::cl::init("")};
  PassOptions::Option<Mode> mode{
      *this, "mode", llvm::cl::desc("What the plan optimizes"),
      llvm::cl::init(Mode::MinCompute), planModeValues()};
  PassOptions::Option<double> effort{
      *this, "effort",
      llvm::cl::desc("How much the solvers search: their work budget as a "
                     "multiple of the default (1); the plan depends on it, "
                     "not on the machine's speed or load"),
      llvm::cl::init(1.0)};
  PassOptions::Option<double> timeLimit{
      *this, "time-limit",
      llvm::cl::desc("Wall-clock safety cap for the solvers, in seconds: a "
                     "search still running then stops, and the remark says "
                     "so"),
      llvm::cl::init(600.0)};
  PassOptions::Option<unsigned> dataArgs{
      *this, "data-args",
      llvm::cl::desc("Leading function arguments holding data (the others "
                     "are parameters); ignored when arguments are marked "
                     "remat.data"),
      llvm::cl::init(1)};
  PassOptions::Option<GatherPolicy> gatherPolicy{
      *this, "gather-policy",
      llvm::cl::desc("What the plan may do with the all-gather of a "
                     "parameter shard (docs/Distributed.md)"),
      llvm::cl::init(GatherPolicy::Plan), REMAT_GATHER_POLICY_CL_VALUES};
  PassOptions::Option<bool> insertBarriers{
      *this, "insert-barriers",
      llvm::cl::desc("Protect clones from cse with remat.barrier"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> dynamicSizeHint{
      *this, "dynamic-size-hint",
      llvm::cl::desc("Size assumed for every dynamic dimension when costing "
                     "and planning (0: dynamic shapes are an error); the "
                     "planned function asserts at run time that its "
                     "arguments are no larger; with mode=max-batch, the "
                     "batch the search starts from (default 1), costed "
                     "without warnings"),
      llvm::cl::init(0)};
  PassOptions::Option<Device> device{
      *this, "device",
      llvm::cl::desc("Cost ops by their time predicted on this device "
                     "(roofline: FLOPs / peak vs bytes moved / bandwidth) "
                     "and plan for least time; none: FLOPs"),
      llvm::cl::init(Device::None), REMAT_DEVICE_CL_VALUES};
  PassOptions::Option<Link> link{
      *this, "link",
      llvm::cl::desc("Cost each collective by its time on this link "
                     "(docs/Distributed.md); none: collectives cost 0"),
      llvm::cl::init(Link::NVLink), REMAT_LINK_CL_VALUES};
  PassOptions::ListOption<std::string> functions{
      *this, "functions",
      llvm::cl::desc("Names of the functions to plan (default: every public "
                     "function with a body); a name that is no function "
                     "with a body is an error")};
  PassOptions::Option<int64_t> loss{
      *this, "loss",
      llvm::cl::desc("Index of the result that is the loss, a scalar "
                     "(remat-infer-phases; -1: inferred, the first "
                     "floating-point scalar result, with a warning when "
                     "several could be)"),
      llvm::cl::init(-1)};
  PassOptions::ListOption<unsigned> forwardResults{
      *this, "forward-results",
      llvm::cl::desc("Indices of further results that are forward outputs: "
                     "every op they depend on is forward "
                     "(remat-infer-phases)")};
  PassOptions::Option<bool> allowUnknown{
      *this, "allow-unknown",
      llvm::cl::desc("Cost ops the cost model does not know (custom ops, "
                     "ops of other dialects) from their result types with 0 "
                     "FLOPs and a warning, instead of failing "
                     "(remat-annotate-costs)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> inlineCalls{
      *this, "inline",
      llvm::cl::desc("Inline func.call ops first (upstream inline pass, "
                     "without its canonicalization), so a training step "
                     "split into helper functions is planned as one; unused "
                     "private functions are then erased"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> exportGraph{
      *this, "export-graph",
      llvm::cl::desc("Write the problem graph JSON of the module's function "
                     "to this file ('-': stdout) for remat-solve, and stop "
                     "before planning"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> schedule{
      *this, "schedule",
      llvm::cl::desc("Apply this saved schedule (remat-solve's result JSON "
                     "for the exported graph) instead of solving"),
      llvm::cl::init("")};
  PassOptions::Option<bool> arena{
      *this, "arena",
      llvm::cl::desc("Make the budget cover the static memory plan: the "
                     "resident arguments plus one arena holding every value "
                     "at a planned offset (docs/Arena.md), fitted by other "
                     "offsets, other orders or a lower solver target"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> arenaAlignment{
      *this, "arena-alignment",
      llvm::cl::desc("Alignment of every offset in that arena: 16 for "
                     "remat-lower-to-cpu, 256 for remat-lower-to-nvvm"),
      llvm::cl::init(16)};
  PassOptions::Option<std::string> hostLink{
      *this, "host-link",
      llvm::cl::desc("Offload to host memory over this link as well as "
                     "recompute (docs/Offload.md): none, pcie4, pcie5 or "
                     "c2c or ideal; with arena=false"),
      llvm::cl::init("none")};
  PassOptions::Option<std::string> hostBudget{
      *this, "host-budget",
      llvm::cl::desc("With host-link: the most pinned host memory the plan "
                     "may hold (bytes, optionally with a KiB/MiB/GiB "
                     "suffix); empty = unlimited"),
      llvm::cl::init("")};
  PassOptions::Option<bool> gathersOnHostLink{
      *this, "gathers-on-host-link",
      llvm::cl::desc("With host-link: the parameter gathers cross the host "
                     "link too, so gathers and copies wait for each other"),
      llvm::cl::init(false)};
  PassOptions::Option<OffloadChoice> offload{
      *this, "offload",
      llvm::cl::desc("With host-link: what a plan may do"),
      offloadChoiceValues(), llvm::cl::init(OffloadChoice::Joint)};
};

/// Adds `inline` (unless disabled), then remat-split-shared-empty on every
/// func.func, then, nested on every func.func that `functions` selects
/// (include/remat/Transforms/FunctionFilter.h): remat-annotate-costs ->
/// remat-infer-phases -> remat-select-checkpoints (with `schedule`, the saved
/// schedule) -> remat-rematerialize -> remat-verify-memory. With
/// `export-graph`, adds remat-export-graph after remat-infer-phases instead of
/// the rest.
void buildRematPipeline(mlir::OpPassManager &pm,
                        const RematPipelineOptions &options);

/// Registers the `remat-pipeline` pipeline.
void registerRematPipeline();

//===----------------------------------------------------------------------===//
// remat-lower-to-nvvm
//===----------------------------------------------------------------------===//

/// Binary format of the kernels embedded in the host module.
enum class GPUBinaryFormat {
  /// PTX assembly: needs only LLVM's NVPTX backend; the CUDA driver
  /// JIT-compiles it when the module is loaded.
  Isa,
  /// A cubin for `chip`, assembled by ptxas (needs the CUDA toolkit).
  Bin,
  /// A fatbinary holding the cubin and the PTX (needs the CUDA toolkit).
  Fatbin,
};

/// Options of `--remat-lower-to-nvvm`, the pipeline that lowers a
/// linalg-on-tensors training step to host LLVM IR that launches NVVM
/// kernels through the mgpu* runtime functions (our CUDA runtime library,
/// lib/Runtime/CUDA). Defaults target the H200 (sm_90, PTX ISA 8.0).
struct RematLowerToNVVMPipelineOptions
    : public mlir::PassPipelineOptions<RematLowerToNVVMPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("GPU architecture the kernels are compiled for "
                     "(sm_90 for H100/H200, sm_80 for A100)"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features; sm_90 needs +ptx80 or later (the "
                     "upstream default +ptx60 does not support it)"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<GPUBinaryFormat> format{
      *this, "format", llvm::cl::desc("Format of the embedded kernels"),
      llvm::cl::init(GPUBinaryFormat::Isa),
      llvm::cl::values(
          clEnumValN(GPUBinaryFormat::Isa, "isa",
                     "PTX assembly, JIT-compiled by the driver at load time "
                     "(no CUDA toolkit needed to compile)"),
          clEnumValN(GPUBinaryFormat::Bin, "bin", "cubin (needs ptxas)"),
          clEnumValN(GPUBinaryFormat::Fatbin, "fatbin",
                     "fatbinary with cubin and PTX (needs ptxas and "
                     "fatbinary)"))};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit root holding bin/ptxas, for format=bin "
                     "and fatbin (empty: CUDA_ROOT, CUDA_HOME, CUDA_PATH, "
                     "then PATH)"),
      llvm::cl::init("")};
  PassOptions::ListOption<int64_t> tileSizes{
      *this, "tile-sizes",
      llvm::cl::desc("Tile sizes of the outer parallel loop dimensions; a "
                     "tile is one thread block and each of its points one "
                     "thread (their product is the block size, at most "
                     "1024). Default: 32,8"),
      llvm::cl::list_init<int64_t>({32, 8})};
  PassOptions::Option<int> optLevel{
      *this, "opt-level",
      llvm::cl::desc("Optimization level of the NVVM/PTX compilation"),
      llvm::cl::init(2)};
  PassOptions::Option<bool> earlyDealloc{
      *this, "early-dealloc",
      llvm::cl::desc("Free each buffer right after its last use "
                     "(remat-free-after-last-use), as remat's memory "
                     "model assumes"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> arena{
      *this, "arena",
      llvm::cl::desc("Place every buffer of known size in one device arena "
                     "at a planned offset (remat-plan-arena, docs/Arena.md)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> arenaAlignment{
      *this, "arena-alignment",
      llvm::cl::desc("Alignment of every offset in the arena (a power of "
                     "two; 256: what cuMemAlloc gives each buffer)"),
      llvm::cl::init(256)};
  PassOptions::Option<bool> arenaRemarks{
      *this, "arena-remarks",
      llvm::cl::desc("Report the arena and every buffer left out of it in "
                     "remarks"),
      llvm::cl::init(false)};
};

/// Adds the GPU lowering pipeline to `pm` (anchored on builtin.module):
///   remat-bufferize (as in remat-lower-to-cpu, with the `arena` options)
///   -> canonicalize
///   -> remat-host-alloc-to-gpu
///   -> remat-wrap-serial-linalg -> convert-linalg-to-parallel-loops
///   -> scf-parallel-loop-tiling{tile-sizes, no-min-max-bounds}
///   -> gpu-map-parallel-loops -> convert-parallel-loops-to-gpu
///   -> gpu-kernel-outlining -> gpu-async-region
///   -> upstream gpu-lower-to-nvvm-pipeline (chip, features, format), whose
///      gpu-module-to-binary gets `toolkit`.
/// Memref arguments and results of the lowered functions are device buffers
/// (see remat-host-alloc-to-gpu and docs/GPU.md).
void buildRematLowerToNVVMPipeline(
    mlir::OpPassManager &pm, const RematLowerToNVVMPipelineOptions &options);

/// Whether LLVM's NVPTX backend knows `chip` (sm_50 ... sm_120a and the
/// like): `remat-lower-to-nvvm` rejects other `chip=` values.
bool isKnownNVPTXChip(llvm::StringRef chip);

/// Registers the `remat-lower-to-nvvm` pipeline; an unknown `chip` is an
/// error when the pipeline is parsed.
void registerRematLowerToNVVMPipeline();

/// Registers every remat-opt pipeline.
void registerRematPipelines();

} // namespace remat

#endif // REMAT_PIPELINES_PIPELINES_H
