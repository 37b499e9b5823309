//===- GPUPipeline.cpp - remat-lower-to-nvvm pipeline ---------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Lowers a linalg-on-tensors training step to host LLVM IR that runs every
// linalg op as an NVVM kernel. The pipeline strings upstream passes and our
// two GPU preparation passes together:
//
//  * bufferization as in remat-lower-to-cpu (identity layouts at function
//    boundaries, ownership-based deallocation moved right after last uses),
//    so the device frees happen where remat's memory model frees values;
//  * remat-plan-arena (arena=true) places every buffer of known size in one
//    arena at a planned offset (256-byte aligned, as cuMemAlloc aligns);
//  * remat-host-alloc-to-gpu turns those buffers (the arena) into
//    gpu.alloc/gpu.dealloc;
//  * linalg -> scf.parallel -> tiles (blocks) of points (threads); linalg
//    ops without parallel loops become one-thread kernels instead of host
//    loops over device memory (remat-wrap-serial-linalg);
//  * gpu-async-region chains allocations, frees and launches on one stream
//    (the gpu-to-llvm lowering ignores the synchronous forms);
//    remat-overlap-host-copies then moves the copies to and from pinned host
//    memory (offloads, prefetches) to streams of their own;
//  * the upstream NVVM pipeline (called, not copied) with sm_90/+ptx80.
//
//===----------------------------------------------------------------------===//

#include "remat/Conversion/Passes.h"
#include "remat/Pipelines/CheckedPipeline.h"
#include "remat/Pipelines/Pipelines.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <mutex>

#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/TargetParser/Triple.h"

extern "C" void LLVMInitializeNVPTXTargetInfo();
extern "C" void LLVMInitializeNVPTXTargetMC();

using namespace mlir;
using namespace remat;

namespace {
/// Fails with `message` at the module: how a pipeline builder reports an
/// option it cannot apply, when the pipeline runs.
struct ReportErrorPass
    : public PassWrapper<ReportErrorPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ReportErrorPass)

  explicit ReportErrorPass(std::string message) : message(std::move(message)) {}
  StringRef getArgument() const override { return "remat-report-error"; }
  void runOnOperation() override {
    getOperation().emitError(message);
    signalPassFailure();
  }

  std::string message;
};
} // namespace

static StringRef getFormatName(remat::GPUBinaryFormat format) {
  switch (format) {
  case remat::GPUBinaryFormat::Isa:
    return "isa";
  case remat::GPUBinaryFormat::Bin:
    return "bin";
  case remat::GPUBinaryFormat::Fatbin:
    return "fatbin";
  }
  llvm_unreachable("unknown GPU binary format");
}

void remat::buildRematLowerToNVVMPipeline(
    OpPassManager &pm, const RematLowerToNVVMPipelineOptions &options) {
  // Tensors -> buffers, freed right after their last use: the same
  // bufferization as remat-lower-to-cpu (it also strips remat.barrier and
  // the remat.* attributes, which describe tensors), so the device frees
  // happen where the CPU run frees.
  RematLowerToCPUPipelineOptions bufferizeOptions;
  bufferizeOptions.deallocate = true;
  bufferizeOptions.earlyDealloc = options.earlyDealloc;
  bufferizeOptions.bufferAlignment = 0;
  bufferizeOptions.arena = options.arena;
  bufferizeOptions.arenaAlignment = options.arenaAlignment;
  bufferizeOptions.arenaRemarks = options.arenaRemarks;
  buildRematBufferizePipeline(pm, bufferizeOptions);
  // Folds the `scf.if %true` guards the deallocation lowering leaves.
  pm.addPass(createCanonicalizerPass());

  // Buffers -> device buffers; linalg -> tiled parallel loops -> launches.
  // No canonicalization between tiling and mapping: it would fuse the tile
  // loop and the point loop back into one scf.parallel.
  pm.addNestedPass<func::FuncOp>(createRematHostAllocToGPU());
  pm.addNestedPass<func::FuncOp>(createRematWrapSerialLinalg());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(createParallelLoopTilingPass(
      llvm::to_vector(options.tileSizes), /*noMinMaxBounds=*/true));
  pm.addNestedPass<func::FuncOp>(createGpuMapParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  // Folds the launch bounds to constants, so that outlining records them as
  // the kernels' known block sizes (PTX .maxntid).
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  pm.addNestedPass<func::FuncOp>(createRematOverlapHostCopies());

  // The upstream NVVM lowering; it ends with gpu-module-to-binary.
  gpu::GPUToNVVMPipelineOptions nvvmOptions;
  nvvmOptions.cubinChip = options.chip;
  nvvmOptions.cubinFeatures = options.features;
  nvvmOptions.cubinFormat = getFormatName(options.format).str();
  nvvmOptions.optLevel = options.optLevel;
  size_t firstUpstreamPass = pm.size();
  gpu::buildLowerToNVVMPassPipeline(pm, nvvmOptions);

  // The upstream options have no toolkit path: hand it to the pipeline's
  // own gpu-module-to-binary pass.
  if (options.toolkit.empty())
    return;
  std::string problem;
  for (auto [index, pass] : llvm::enumerate(pm.getPasses())) {
    if (index < firstUpstreamPass ||
        pass.getArgument() != "gpu-module-to-binary")
      continue;
    std::string toolkitOption = "toolkit=\"" + options.toolkit + "\"";
    auto recordError = [&](const Twine &message) -> LogicalResult {
      problem = message.str();
      return failure();
    };
    if (failed(pass.initializeOptions(toolkitOption, recordError)))
      break;
  }
  if (problem.empty())
    return;
  // A pipeline builder cannot fail: run nothing but an error instead.
  pm.clear();
  pm.addPass(std::make_unique<ReportErrorPass>(
      "remat-lower-to-nvvm: cannot set the CUDA toolkit path '" +
      options.toolkit + "' of gpu-module-to-binary: " + problem));
}

bool remat::isKnownNVPTXChip(StringRef chip) {
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTargetMC();
  });
  llvm::Triple triple("nvptx64-nvidia-cuda");
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return false;
  // Created for the default processor: an unknown one would print a warning.
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      target->createMCSubtargetInfo(triple, "", ""));
  return subtarget && subtarget->isCPUStringValid(chip);
}

/// Parses the options of remat-lower-to-nvvm; a chip that LLVM's NVPTX
/// backend does not know is an error rather than PTX for a made-up target.
static LogicalResult
parseNVVMPipelineOptions(StringRef text,
                         RematLowerToNVVMPipelineOptions &options,
                         PipelineErrorHandler errorHandler) {
  if (failed(options.parseFromString(text)))
    return failure();
  if (!isKnownNVPTXChip(options.chip))
    return errorHandler("remat-lower-to-nvvm: chip '" + options.chip +
                        "' is not a GPU architecture that LLVM's "
                        "NVPTX backend knows (e.g. sm_80, sm_90)");
  return success();
}

void remat::registerRematLowerToNVVMPipeline() {
  registerCheckedPipeline<RematLowerToNVVMPipelineOptions>(
      "remat-lower-to-nvvm",
      "Lower a linalg-on-tensors training step to LLVM host code that runs "
      "each linalg op as a tiled NVVM kernel, with every buffer in device "
      "memory (gpu.alloc/gpu.dealloc where bufferization placed "
      "allocations and frees) and the kernels embedded as PTX, cubin or "
      "fatbin.",
      parseNVVMPipelineOptions, buildRematLowerToNVVMPipeline);
}
