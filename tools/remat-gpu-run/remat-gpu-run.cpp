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
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Pipelines/Pipelines.h"
#include "remat/Runner/Ranks.h"
#include "remat/Runner/RunnerSupport.h"
#include "remat/Runtime/CudaRuntime.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>

#include <chrono>
#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace remat;

namespace cl = llvm::cl;

static constexpr const char *kToolName = "remat-gpu-run";

static cl::OptionCategory runCategory("remat-gpu-run options");

static cl::opt<std::string> runtimeLibrary(
    "cuda-runtime",
    cl::desc("Path of libremat_cuda_runtime.so (default: the one built "
             "with this tool)"),
    cl::init(REMAT_CUDA_RUNTIME_PATH), cl::cat(runCategory));

namespace {

/// Exit with a CLI error.
[[noreturn]] void fail(const Twine &message, int code = 1) {
  exitWithError(kToolName, message, code);
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

  template <typename T> void bind(T &fn, const char *name) {
    fn = reinterpret_cast<T>(dlsym(handle, name));
    if (!fn)
      fail(Twine("'") + runtimeLibrary + "' does not define " + name);
  }
};

/// One rank per GPU: the rank r-th of its machine uses device r mod the
/// number of devices. Exits as loadRuntime does without a device.
void selectRankDevice(Runtime &rt, const RankSession &session) {
  int count = 0;
  int error = rt.getDeviceCount(&count);
  if (error != 0 || count == 0)
    fail("no usable CUDA GPU for rank " + Twine(session.getRank()) +
             (error ? ": CUDA error " + Twine(error) : Twine(": no device")),
         REMAT_CUDA_EXIT_CODE);
  rt.setDefaultDevice(session.getLocalRank() % count);
}

/// Loads the CUDA runtime library, selects the rank's device in a
/// data-parallel run, and initializes the GPU, or exits with a clear message
/// and REMAT_CUDA_EXIT_CODE.
Runtime loadRuntime(const RankSession &session) {
  Runtime rt;
  rt.handle = dlopen(runtimeLibrary.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!rt.handle)
    fail(Twine("cannot load the CUDA runtime library: ") + dlerror() +
             " (is the NVIDIA driver installed? remat-gpu-run needs a CUDA "
             "GPU; --print-lowered works without one)",
         REMAT_CUDA_EXIT_CODE);
  rt.bind(rt.initialize, "rematCudaInitialize");
  rt.bind(rt.getDeviceCount, "rematCudaGetDeviceCount");
  rt.bind(rt.setDefaultDevice, "mgpuSetDefaultDevice");
  rt.bind(rt.getStats, "rematCudaGetStats");
  rt.bind(rt.reset, "rematCudaReset");
  rt.bind(rt.setKernelTiming, "rematCudaSetKernelTiming");
  rt.bind(rt.sizeOf, "rematCudaSizeOf");
  rt.bind(rt.copyToDevice, "rematCudaCopyToDevice");
  rt.bind(rt.copyToHost, "rematCudaCopyToHost");
  rt.bind(rt.memAlloc, "mgpuMemAlloc");
  rt.bind(rt.memFree, "mgpuMemFree");
  if (session.isDistributed())
    selectRankDevice(rt, session);
  char message[512] = {0};
  if (rt.initialize(message, sizeof(message)) != 0)
    fail(Twine("no usable CUDA GPU: ") + message, REMAT_CUDA_EXIT_CODE);
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

/// Lowers the module with --pipeline (default: remat-lower-to-nvvm).
void lowerStep(ModuleOp module, const RunnerOptions &options) {
  lowerModule(kToolName, module, options.pipeline, options.inputFilename,
              [](PassManager &pm) {
                buildRematLowerToNVVMPipeline(
                    pm, RematLowerToNVVMPipelineOptions());
              });
}

/// JIT-compiles the lowered module with the runtime's mgpu* functions (and
/// MPI's) as its symbols.
JITEntry compileStep(ModuleOp module, StringRef name, const Runtime &rt,
                     const RunnerOptions &options) {
  SmallVector<std::pair<StringRef, void *>> symbols = getMPISymbols();
  for (const char *symbol : kMgpuSymbols)
    if (void *address = dlsym(rt.handle, symbol))
      symbols.push_back({symbol, address});
  return compileEntry(kToolName, module, name, options.optLevel,
                      /*sharedLibPaths=*/{}, symbols);
}

/// What the timed calls measured.
struct StepRuns {
  SmallVector<RunStats<RematCudaStats>> runs;
  /// The results' checksums of the last run.
  SmallVector<Checksum> checksums;
  /// Bytes of the device buffers of the inputs (counted in the peak).
  uint64_t inputBytes = 0;
};

/// One timed call of the entry from fresh inputs: its device statistics;
/// the results are downloaded and checksummed into `checksums`, then the
/// buffers the step allocated and returned are freed.
RunStats<RematCudaStats> runOnce(Runtime &rt, JITEntry &jit, PackedCall &call,
                                 const RankEntry &ranked,
                                 MutableArrayRef<std::vector<char>> hostInputs,
                                 ArrayRef<void *> deviceInputs,
                                 RankSession &session, bool printResults,
                                 SmallVector<Checksum> &checksums) {
  for (auto [i, spec] : llvm::enumerate(ranked.argSpecs)) {
    char *host = hostInputs[i].data();
    fillRankInput(ranked, i, session, host);
    if (spec.isMemRef)
      rt.copyToDevice(deviceInputs[i], host, spec.byteSize());
    else
      std::memcpy(call.getScalarArg(i), host, 8);
  }
  call.clearResults();
  session.barrier();

  RematCudaStats before;
  rt.reset();
  rt.getStats(&before);
  auto start = std::chrono::steady_clock::now();
  // The entry ends with a stream synchronization: the kernels are done.
  jit.call(call.getArgs());
  auto stop = std::chrono::steady_clock::now();
  RunStats<RematCudaStats> stats;
  rt.getStats(&stats.memory);
  stats.seconds = std::chrono::duration<double>(stop - start).count();
  stats.returnedBytes = stats.memory.currentBytes - before.currentBytes;

  // Download, checksum, then free what the step allocated and returned
  // (two results may share a buffer; a result may be an argument).
  std::vector<char> host;
  checksums = call.checksumResults(
      printResults, [&](unsigned i, const DescriptorView &d) {
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
    if (rt.sizeOf(p) >= 0 && !llvm::is_contained(deviceInputs, p))
      rt.memFree(p, nullptr);
  RematCudaStats after;
  rt.getStats(&after);
  stats.leakedBytes = after.currentBytes - before.currentBytes;
  return stats;
}

/// Runs the entry --repeat times. Inputs: host copies filled by the shared
/// formula, uploaded into device buffers allocated through the runtime
/// (counted).
StepRuns runStep(Runtime &rt, JITEntry &jit, const RankEntry &ranked,
                 RankSession &session, const RunnerOptions &options) {
  StepRuns measured;
  SmallVector<std::vector<char>> hostInputs;
  SmallVector<void *> deviceInputs;
  for (const ValueSpec &spec : ranked.argSpecs) {
    if (spec.isMemRef) {
      measured.inputBytes += spec.byteSize();
      hostInputs.emplace_back(spec.byteSize());
      deviceInputs.push_back(rt.memAlloc(spec.byteSize(), nullptr, 0));
    } else {
      hostInputs.emplace_back(8);
      deviceInputs.push_back(nullptr);
    }
  }
  PackedCall call(ranked.argSpecs, ranked.resultSpecs, deviceInputs);
  rt.setKernelTiming(1);
  for (unsigned run = 0; run < options.repeatCount; ++run)
    measured.runs.push_back(runOnce(rt, jit, call, ranked, hostInputs,
                                    deviceInputs, session, options.printResults,
                                    measured.checksums));
  for (void *p : deviceInputs)
    if (p)
      rt.memFree(p, nullptr);
  return measured;
}

/// The figures of the report, over the runs.
struct RunSummary {
  RunSummary(const StepRuns &measured)
      : worst(getWorstRun<RematCudaStats>(measured.runs)) {
    SmallVector<double> times, kernelTimes;
    for (const RunStats<RematCudaStats> &r : measured.runs) {
      times.push_back(r.seconds * 1e3);
      kernelTimes.push_back(r.memory.kernelMs);
    }
    time = getMinAndMedian(times);
    kernel = getMinAndMedian(kernelTimes);
    peak = worst.memory.peakBytes;
    stepPeak = peak - measured.inputBytes;
  }
  const RunStats<RematCudaStats> &worst;
  MinMedian time, kernel;
  /// The device peak with the inputs, and without them.
  uint64_t peak = 0, stepPeak = 0;
};

/// This rank's JSON report.
void printJSONRun(llvm::raw_ostream &os, const RunnerOptions &options,
                  StringRef name, const RankEntry &ranked,
                  const StepRuns &measured, double compileSeconds,
                  const RankSession &session) {
  RunSummary summary(measured);
  printJSONReport(
      os, options.inputFilename, name, "cuda", ranked.resultSpecs,
      measured.checksums, options.printResults, [&](llvm::json::OStream &j) {
        if (session.isDistributed()) {
          j.attribute("rank", session.getRank());
          j.attribute("ranks", session.getSize());
        }
        j.attribute("peak_device_bytes", static_cast<int64_t>(summary.peak));
        j.attribute("peak_bytes", static_cast<int64_t>(summary.stepPeak));
        j.attribute("pool_peak_bytes",
                    static_cast<int64_t>(summary.worst.memory.poolPeakBytes));
        printAllocationsJSON(j, summary.worst, measured.inputBytes);
        j.attribute("num_launches",
                    static_cast<int64_t>(summary.worst.memory.numLaunches));
        j.attribute("repeat", static_cast<int64_t>(options.repeatCount));
        j.attribute("time_ms_min", summary.time.min);
        j.attribute("time_ms_median", summary.time.median);
        j.attribute("kernel_ms_min", summary.kernel.min);
        j.attribute("kernel_ms_median", summary.kernel.median);
        j.attribute("compile_ms", compileSeconds * 1e3);
      });
}

/// The text report of rank 0 (with every rank's row after it when the run
/// is distributed).
void printTextRun(llvm::raw_ostream &os, const RunnerOptions &options,
                  StringRef name, const RankEntry &ranked,
                  const StepRuns &measured, double compileSeconds,
                  const RankSession &session, ArrayRef<std::string> reports) {
  RunSummary summary(measured);
  const RunStats<RematCudaStats> &worst = summary.worst;
  if (session.isDistributed())
    os << "rank 0 of " << session.getSize() << "\n";
  printTextReport(os, name, "cuda", ranked.resultSpecs, measured.checksums,
                  options.printResults);
  os << "peak_device_bytes: " << summary.peak << " (inputs included)\n";
  os << "peak_bytes: " << summary.stepPeak << " (inputs excluded)\n";
  os << "pool_peak_bytes: " << worst.memory.poolPeakBytes << "\n";
  os << "num_allocs: " << worst.memory.numAllocs << "\n";
  os << "returned_bytes: " << worst.returnedBytes << "\n";
  os << "leaked_bytes: " << worst.leakedBytes << "\n";
  os << "input_bytes: " << measured.inputBytes << "\n";
  os << "num_launches: " << worst.memory.numLaunches << "\n";
  os << llvm::format("kernel_ms: min=%.3f median=%.3f\n", summary.kernel.min,
                     summary.kernel.median);
  os << llvm::format("time_ms: min=%.3f median=%.3f (repeat=%u)\n",
                     summary.time.min, summary.time.median,
                     options.repeatCount.getValue());
  os << llvm::format("compile_ms: %.1f\n", compileSeconds * 1e3);
  if (session.isDistributed())
    printRankTable(kToolName, os, reports);
}

/// Prints the report on stdout: rank 0 gathers every rank's JSON report
/// when the run is distributed; the other ranks print nothing.
void report(const RunnerOptions &options, StringRef name,
            const RankEntry &ranked, const StepRuns &measured,
            double compileSeconds, RankSession &session) {
  printRunReport(
      session, options.emitJson,
      [&](llvm::raw_ostream &os) {
        printJSONRun(os, options, name, ranked, measured, compileSeconds,
                     session);
      },
      [&](llvm::raw_ostream &os, ArrayRef<std::string> reports) {
        printTextRun(os, options, name, ranked, measured, compileSeconds,
                     session, reports);
      });
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);

  mlir::registerAllPasses();
  remat::registerRematPipelines();
  RunnerOptions options(
      kToolName, runCategory,
      "Pass pipeline that lowers the module to LLVM host code with "
      "embedded kernels, e.g. "
      "'builtin.module(remat-lower-to-nvvm{format=bin})'. Default: "
      "remat-lower-to-nvvm with its default options. 'none' runs no pass.",
      "Print the module after the lowering pipeline and exit (needs no GPU)");
  options.parseCommandLine(
      argc, argv,
      "remat-gpu-run: lower, run on a CUDA GPU and measure a training step\n");
  const std::string &inputFilename = options.inputFilename;

  // Parse. Syntax errors are reported by the parser's diagnostics on stderr.
  RunnerInput input(kToolName, inputFilename, [](DialectRegistry &registry) {
    registerAllGPUToLLVMIRTranslations(registry);
  });
  ModuleOp module = input.getModule();

  std::string entryError;
  func::FuncOp entry =
      findEntry(module, options.entryName, inputFilename, entryError);
  if (!entry)
    fail(entryError);
  std::string name = entry.getName().str();
  // Data-parallel steps: the per-rank program, whose arguments are the
  // rank's blocks (as in remat-run).
  RankSession session(kToolName, communicates(module), argc, argv);
  RankEntry ranked =
      prepareRankEntry(kToolName, module, entry, inputFilename, session);

  // Lower; then the GPU: load the runtime before JIT-compiling, whose
  // initialization loads the kernels (global constructors call
  // mgpuModuleLoad).
  auto compileStart = std::chrono::steady_clock::now();
  lowerStep(module, options);
  if (options.printLowered) {
    module.print(llvm::outs());
    llvm::outs() << "\n";
    return 0;
  }
  if (!module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    fail("after lowering, '" + name +
         "' is not an llvm.func: the pipeline must lower to the LLVM dialect");
  Runtime rt = loadRuntime(session);
  if (session.isDistributed() && !session.acceptsCudaBuffers())
    fail("the step communicates, but the MPI library does not accept CUDA "
         "device buffers (not CUDA-aware; OpenMPI: ompi_info shows "
         "mpi_built_with_cuda_support false); the lowered step passes "
         "device buffers to MPI");
  JITEntry jit = compileStep(module, name, rt, options);
  double compileSeconds = std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - compileStart)
                              .count();

  StepRuns measured = runStep(rt, jit, ranked, session, options);
  report(options, name, ranked, measured, compileSeconds, session);
  return 0;
}
