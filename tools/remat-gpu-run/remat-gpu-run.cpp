//===- remat-gpu-run.cpp - run a training step on a CUDA GPU --------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The GPU counterpart of remat-run, with the same interface: lowers a
// tensor-level training step with --remat-lower-to-nvvm (or --pipeline),
// JIT-compiles the host code with mlir::ExecutionEngine, runs the entry on
// the deterministic inputs of remat-run (lib/Runner), and reports for every
// result the checksums remat-run reports (sum, sum of |x|, FNV-1a 64 of the
// bytes), the peak device bytes counted by our CUDA runtime library, the
// kernel time (CUDA events) and the step time.
//
//   remat-gpu-run step.mlir [--pipeline=<pass pipeline>] [--entry=<fn>]
//                           [--json] [--repeat=N] [--print-results]
//
// Data transfer: the lowered entry takes and returns device buffers (see
// remat-host-alloc-to-gpu). remat-gpu-run allocates every memref argument
// with mgpuMemAlloc, uploads the input, calls the entry, downloads every
// result and frees the result buffers the step allocated. Argument buffers
// are live during the whole step and are part of peak_bytes, like parameters
// and inputs in remat's memory model; input_bytes says how many they are.
//
// libremat_cuda_runtime.so is loaded at run time (not linked), so that
// without a driver or a GPU the tool exits with a clear message and status
// 3 instead of failing to start.
//
// A data-parallel step runs under `mpirun -np N` as remat-run does (the
// shared code of lib/Runner/Ranks.cpp): one rank per GPU, the rank r-th of
// its machine using device r mod the device count; each rank feeds its block
// of the single-process inputs and measures its own device heap; rank 0
// prints every rank, --json gives all ranks (docs/Distributed.md). The step's
// MPI calls receive device buffers: the MPI library must be CUDA-aware.
//
// The main is the one every runner shares (runnerMain, lib/Runner); this
// file holds what is the GPU's: the default lowering, the runtime library
// and its symbols, and the timed calls with their device figures.
//
//===----------------------------------------------------------------------===//

#include "remat/Pipelines/Pipelines.h"
#include "remat/Runner/RunnerMain.h"
#include "remat/Runtime/CudaRuntime.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"

#include <dlfcn.h>

#include <chrono>
#include <cstring>
#include <optional>

using namespace mlir;
using namespace remat;

namespace cl = llvm::cl;

static cl::OptionCategory runCategory("remat-gpu-run options");

static cl::opt<std::string> runtimeLibrary(
    "cuda-runtime",
    cl::desc("Path of libremat_cuda_runtime.so (default: the one built "
             "with this tool)"),
    cl::init(REMAT_CUDA_RUNTIME_PATH), cl::cat(runCategory));

namespace {

/// An error that says no GPU can run the step (exit status 3).
llvm::Error makeNoGPUError(const Twine &message) {
  return makeRunnerError(message, REMAT_CUDA_EXIT_CODE);
}

/// The runtime library's functions remat-gpu-run calls itself.
struct Runtime {
  void *handle = nullptr;
  decltype(&rematCudaInitialize) initialize = nullptr;
  decltype(&rematCudaGetDeviceCount) getDeviceCount = nullptr;
  decltype(&mgpuSetDefaultDevice) setDefaultDevice = nullptr;
  decltype(&rematCudaGetStats) getStats = nullptr;
  decltype(&rematCudaReset) reset = nullptr;
  decltype(&rematCudaSetKernelTiming) setKernelTiming = nullptr;
  decltype(&rematCudaSizeOf) sizeOf = nullptr;
  decltype(&rematCudaCopyToDevice) copyToDevice = nullptr;
  decltype(&rematCudaCopyToHost) copyToHost = nullptr;
  decltype(&mgpuMemAlloc) memAlloc = nullptr;
  decltype(&mgpuMemFree) memFree = nullptr;

  template <typename T> llvm::Error bind(T &fn, const char *name) {
    fn = reinterpret_cast<T>(dlsym(handle, name));
    if (!fn)
      return makeRunnerError(Twine("'") + runtimeLibrary +
                             "' does not define " + name);
    return llvm::Error::success();
  }
  llvm::Error bindAll();
};

llvm::Error Runtime::bindAll() {
  llvm::Error error = llvm::Error::success();
  // Binds until the first symbol that is missing.
  auto bindNext = [&](auto &fn, const char *name) {
    if (!error)
      error = bind(fn, name);
  };
  bindNext(initialize, "rematCudaInitialize");
  bindNext(getDeviceCount, "rematCudaGetDeviceCount");
  bindNext(setDefaultDevice, "mgpuSetDefaultDevice");
  bindNext(getStats, "rematCudaGetStats");
  bindNext(reset, "rematCudaReset");
  bindNext(setKernelTiming, "rematCudaSetKernelTiming");
  bindNext(sizeOf, "rematCudaSizeOf");
  bindNext(copyToDevice, "rematCudaCopyToDevice");
  bindNext(copyToHost, "rematCudaCopyToHost");
  bindNext(memAlloc, "mgpuMemAlloc");
  bindNext(memFree, "mgpuMemFree");
  return error;
}

/// One rank per GPU: the rank r-th of its machine uses device r mod the
/// number of devices. Fails as loadRuntime does without a device.
llvm::Error selectRankDevice(Runtime &rt, const RankSession &session) {
  int count = 0;
  int error = rt.getDeviceCount(&count);
  if (error != 0 || count == 0)
    return makeNoGPUError(
        "no usable CUDA GPU for rank " + Twine(session.getRank()) +
        (error ? ": CUDA error " + Twine(error) : Twine(": no device")));
  rt.setDefaultDevice(session.getLocalRank() % count);
  return llvm::Error::success();
}

/// Loads the CUDA runtime library, selects the rank's device in a
/// data-parallel run, and initializes the GPU; fails with exit status
/// REMAT_CUDA_EXIT_CODE without one.
llvm::Expected<Runtime> loadRuntime(const RankSession &session) {
  Runtime rt;
  rt.handle = dlopen(runtimeLibrary.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!rt.handle)
    return makeNoGPUError(
        Twine("cannot load the CUDA runtime library: ") + dlerror() +
        " (is the NVIDIA driver installed? remat-gpu-run needs a CUDA "
        "GPU; --print-lowered works without one)");
  if (llvm::Error error = rt.bindAll())
    return std::move(error);
  if (session.isDistributed())
    if (llvm::Error error = selectRankDevice(rt, session))
      return std::move(error);
  char message[512] = {0};
  if (rt.initialize(message, sizeof(message)) != 0)
    return makeNoGPUError(Twine("no usable CUDA GPU: ") + message);
  return rt;
}

/// The mgpu* symbols lowered host code may call.
const char *const kMgpuSymbols[] = {"mgpuStreamCreate",
                                    "mgpuStreamDestroy",
                                    "mgpuStreamSynchronize",
                                    "mgpuStreamWaitEvent",
                                    "mgpuEventCreate",
                                    "mgpuEventDestroy",
                                    "mgpuEventSynchronize",
                                    "mgpuEventRecord",
                                    "mgpuMemAlloc",
                                    "mgpuMemFree",
                                    "mgpuMemcpy",
                                    "mgpuMemset32",
                                    "mgpuMemset16",
                                    "mgpuModuleLoad",
                                    "mgpuModuleLoadJIT",
                                    "mgpuModuleUnload",
                                    "mgpuModuleGetFunction",
                                    "mgpuLaunchKernel",
                                    "mgpuSetDefaultDevice"};

/// The default lowering: remat-lower-to-nvvm.
void buildGPUPipeline(PassManager &pm, ModuleOp) {
  buildRematLowerToNVVMPipeline(pm, RematLowerToNVVMPipelineOptions());
}

/// Loads the runtime into `rt` (before the JIT, whose initialization loads
/// the kernels: global constructors call mgpuModuleLoad) and returns its
/// mgpu* functions as the JIT'd code's symbols.
llvm::Expected<JITLinkage> prepareGPU(std::optional<Runtime> &rt,
                                      const RankSession &session) {
  llvm::Expected<Runtime> loaded = loadRuntime(session);
  if (!loaded)
    return loaded.takeError();
  rt = *loaded;
  if (session.isDistributed() && !session.acceptsCudaBuffers())
    return makeRunnerError(
        "the step communicates, but the MPI library does not accept CUDA "
        "device buffers (not CUDA-aware; OpenMPI: ompi_info shows "
        "mpi_built_with_cuda_support false); the lowered step passes "
        "device buffers to MPI");
  JITLinkage linkage;
  for (const char *symbol : kMgpuSymbols)
    if (void *address = dlsym(rt->handle, symbol))
      linkage.symbols.push_back({symbol, address});
  return linkage;
}

/// What the timed calls measured.
struct StepRuns {
  SmallVector<RunStats<RematCudaStats>> runs;
  /// The results' checksums of the last run.
  SmallVector<Checksum> checksums;
  /// Bytes of the device buffers of the inputs (counted in the peak).
  uint64_t inputBytes = 0;
};

/// The inputs of the runs: host copies filled by the shared formula, and
/// the device buffers they are uploaded into.
struct DeviceInputs {
  SmallVector<std::vector<char>> host;
  SmallVector<void *> device;
};

/// One timed call of the entry from fresh inputs: its device statistics;
/// the results are downloaded and checksummed into `checksums`, then the
/// buffers the step allocated and returned are freed.
RunStats<RematCudaStats> runOnce(Runtime &rt, const RunContext &context,
                                 PackedCall &call, DeviceInputs &inputs,
                                 SmallVector<Checksum> &checksums) {
  const RankEntry &ranked = context.entry;
  for (auto [i, spec] : llvm::enumerate(ranked.argSpecs)) {
    char *host = inputs.host[i].data();
    fillRankInput(ranked, i, context.session, host);
    if (spec.isMemRef)
      rt.copyToDevice(inputs.device[i], host, spec.byteSize());
    else
      std::memcpy(call.getScalarArg(i), host, 8);
  }
  call.clearResults();
  context.session.barrier();

  RematCudaStats before;
  rt.reset();
  rt.getStats(&before);
  auto start = std::chrono::steady_clock::now();
  // The entry ends with a stream synchronization: the kernels are done.
  context.jit.call(call.getArgs());
  auto stop = std::chrono::steady_clock::now();
  RunStats<RematCudaStats> stats;
  rt.getStats(&stats.memory);
  stats.seconds = std::chrono::duration<double>(stop - start).count();
  stats.returnedBytes = stats.memory.currentBytes - before.currentBytes;

  // Download, checksum, then free what the step allocated and returned
  // (two results may share a buffer; a result may be an argument).
  std::vector<char> host;
  checksums = call.checksumResults(
      context.options.printResults, [&](unsigned i, const DescriptorView &d) {
        // The span of elements the view touches, downloaded in one copy.
        const ValueSpec &spec = ranked.resultSpecs[i];
        int64_t last = 0;
        for (int64_t dim = 0; dim < spec.rank(); ++dim)
          last += (d.sizes[dim] - 1) * d.strides[dim];
        host.resize((last + 1) * spec.elemBytes());
        rt.copyToHost(host.data(), d.aligned + d.offset * spec.elemBytes(),
                      host.size());
        return static_cast<const char *>(host.data());
      });
  for (void *p : call.getResultAllocations())
    if (rt.sizeOf(p) >= 0 && !llvm::is_contained(inputs.device, p))
      rt.memFree(p, nullptr);
  RematCudaStats after;
  rt.getStats(&after);
  stats.leakedBytes = after.currentBytes - before.currentBytes;
  return stats;
}

/// Runs the entry --repeat times on device inputs allocated through the
/// runtime (counted in the peak).
StepRuns runStep(Runtime &rt, const RunContext &context) {
  StepRuns measured;
  DeviceInputs inputs;
  for (const ValueSpec &spec : context.entry.argSpecs) {
    if (spec.isMemRef) {
      measured.inputBytes += spec.byteSize();
      inputs.host.emplace_back(spec.byteSize());
      inputs.device.push_back(rt.memAlloc(spec.byteSize(), nullptr, 0));
    } else {
      inputs.host.emplace_back(8);
      inputs.device.push_back(nullptr);
    }
  }
  PackedCall call(context.entry.argSpecs, context.entry.resultSpecs,
                  inputs.device);
  rt.setKernelTiming(1);
  for (unsigned run = 0; run < context.options.repeatCount; ++run)
    measured.runs.push_back(
        runOnce(rt, context, call, inputs, measured.checksums));
  for (void *p : inputs.device)
    if (p)
      rt.memFree(p, nullptr);
  return measured;
}

/// Runs the entry and adds its device figures to `report`: the device peak
/// with and without the inputs, the pool's peak, the allocation counts of
/// the run with the largest peak, the launches and the kernel and step
/// times.
llvm::Error runOnGPU(Runtime &rt, const RunContext &context,
                     RunReport &report) {
  StepRuns measured = runStep(rt, context);
  report.checksums = measured.checksums;
  const RunStats<RematCudaStats> &worst =
      getWorstRun<RematCudaStats>(measured.runs);
  uint64_t peak = worst.memory.peakBytes;
  report.addCount("peak_device_bytes", peak, "(inputs included)");
  report.addCount("peak_bytes", peak - measured.inputBytes,
                  "(inputs excluded)");
  report.addCount("pool_peak_bytes", worst.memory.poolPeakBytes);
  report.addCount("pool_reserved_peak_bytes",
                  worst.memory.poolReservedPeakBytes,
                  "(what the pool took from the device)");
  addMemoryPlanFigures(report, context.arenaBytes, context.hostCopies);
  addAllocationFigures(report, worst, measured.inputBytes, "");
  report.addCount("num_launches", worst.memory.numLaunches);
  SmallVector<double> kernelTimes;
  for (const RunStats<RematCudaStats> &r : measured.runs)
    kernelTimes.push_back(r.memory.kernelMs);
  report.addMinMedian("kernel_ms", kernelTimes);
  addRunTimes<RematCudaStats>(report, measured.runs,
                              context.options.repeatCount);
  return llvm::Error::success();
}

} // namespace

int main(int argc, char **argv) {
  RunnerConfig config;
  config.toolName = "remat-gpu-run";
  config.overview =
      "remat-gpu-run: lower, run on a CUDA GPU and measure a training step\n";
  config.device = "cuda";
  config.category = &runCategory;
  config.pipelineHelp =
      "Pass pipeline that lowers the module to LLVM host code with "
      "embedded kernels, e.g. "
      "'builtin.module(remat-lower-to-nvvm{format=bin})'. Default: "
      "remat-lower-to-nvvm with its default options. 'none' runs no pass.";
  config.printLoweredHelp =
      "Print the module after the lowering pipeline and exit (needs no GPU)";
  std::optional<Runtime> rt;
  auto registerTranslations = [](DialectRegistry &registry) {
    registerAllGPUToLLVMIRTranslations(registry);
  };
  auto prepareJIT = [&](const RankSession &session) {
    return prepareGPU(rt, session);
  };
  auto runEntry = [&](const RunContext &context, RunReport &report) {
    return runOnGPU(*rt, context, report);
  };
  config.registerTranslations = registerTranslations;
  config.buildDefaultPipeline = buildGPUPipeline;
  config.prepareJIT = prepareJIT;
  config.runEntry = runEntry;
  return runnerMain(argc, argv, config);
}
