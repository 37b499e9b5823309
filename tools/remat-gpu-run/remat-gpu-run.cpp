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
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Pipelines/Pipelines.h"
#include "remat/Runner/RunnerSupport.h"
#include "remat/Runtime/CudaRuntime.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>

#include <chrono>
#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace remat;

namespace cl = llvm::cl;

static cl::OptionCategory runCategory("remat-gpu-run options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input .mlir file>"),
                                          cl::init("-"), cl::cat(runCategory));

static cl::opt<std::string> pipelineString(
    "pipeline",
    cl::desc("Pass pipeline that lowers the module to LLVM host code with "
             "embedded kernels, e.g. "
             "'builtin.module(remat-lower-to-nvvm{format=bin})'. Default: "
             "remat-lower-to-nvvm with its default options. 'none' runs no "
             "pass."),
    cl::init(""), cl::cat(runCategory));

static cl::opt<std::string>
    entryName("entry",
              cl::desc("Function to run (default: the first public function "
                       "with a body that is not 'main')"),
              cl::init(""), cl::cat(runCategory));

static cl::opt<bool> emitJson("json",
                              cl::desc("Print one JSON object on stdout"),
                              cl::init(false), cl::cat(runCategory));

static cl::opt<unsigned> repeatCount(
    "repeat",
    cl::desc("Run the entry N times (fresh inputs each time); times are "
             "reported as min and median, the peak as the maximum"),
    cl::init(1), cl::cat(runCategory));

static cl::opt<bool> printResults("print-results",
                                  cl::desc("Also print every result value"),
                                  cl::init(false), cl::cat(runCategory));

static cl::opt<unsigned>
    optLevel("opt-level",
             cl::desc("LLVM optimization level of the host JIT (0-3)"),
             cl::init(2), cl::cat(runCategory));

static cl::opt<std::string> runtimeLibrary(
    "cuda-runtime",
    cl::desc("Path of libremat_cuda_runtime.so (default: the one built "
             "with this tool)"),
    cl::init(REMAT_CUDA_RUNTIME_PATH), cl::cat(runCategory));

static cl::opt<bool> printLowered(
    "print-lowered",
    cl::desc("Print the module after the lowering pipeline and exit (needs "
             "no GPU)"),
    cl::init(false), cl::cat(runCategory));

namespace {

/// Exit with a CLI error.
[[noreturn]] void fail(const Twine &message, int code = 1) {
  llvm::errs() << "remat-gpu-run: error: " << message << "\n";
  std::exit(code);
}

/// The runtime library's functions remat-gpu-run calls itself.
struct Runtime {
  void *handle = nullptr;
  decltype(&rematCudaInitialize) initialize = nullptr;
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

/// Loads the CUDA runtime library and initializes the GPU, or exits with a
/// clear message and REMAT_CUDA_EXIT_CODE.
Runtime loadRuntime() {
  Runtime rt;
  rt.handle = dlopen(runtimeLibrary.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!rt.handle)
    fail(Twine("cannot load the CUDA runtime library: ") + dlerror() +
             " (is the NVIDIA driver installed? remat-gpu-run needs a CUDA "
             "GPU; --print-lowered works without one)",
         REMAT_CUDA_EXIT_CODE);
  rt.bind(rt.initialize, "rematCudaInitialize");
  rt.bind(rt.getStats, "rematCudaGetStats");
  rt.bind(rt.reset, "rematCudaReset");
  rt.bind(rt.setKernelTiming, "rematCudaSetKernelTiming");
  rt.bind(rt.sizeOf, "rematCudaSizeOf");
  rt.bind(rt.copyToDevice, "rematCudaCopyToDevice");
  rt.bind(rt.copyToHost, "rematCudaCopyToHost");
  rt.bind(rt.memAlloc, "mgpuMemAlloc");
  rt.bind(rt.memFree, "mgpuMemFree");
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

struct RunStats {
  RematCudaStats device;
  uint64_t returnedBytes = 0;
  uint64_t leakedBytes = 0;
  double seconds = 0;
};

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  mlir::registerAllPasses();
  remat::registerRematPipelines();
  cl::HideUnrelatedOptions(runCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "remat-gpu-run: lower, run on a CUDA GPU and measure a training step\n");
  if (repeatCount == 0)
    fail("--repeat must be at least 1");
  if (optLevel > 3)
    fail("--opt-level must be 0, 1, 2 or 3");

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registry.insert<remat::RematDialect>();
  registerAllGPUToLLVMIRTranslations(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  if (inputFilename != "-" && !llvm::sys::fs::exists(inputFilename))
    fail("cannot open '" + inputFilename + "': no such file");
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  std::string openError;
  auto file = openInputFile(inputFilename, &openError);
  if (!file)
    fail("cannot open '" + inputFilename + "': " + openError);
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    fail("could not parse '" + inputFilename + "'");

  std::string entryError;
  func::FuncOp entry = findEntry(*module, entryName, entryError);
  if (!entry)
    fail(entryError + " in '" + inputFilename + "'");
  std::string name = entry.getName().str();
  SmallVector<ValueSpec> argSpecs, resultSpecs;
  FunctionType funcType = entry.getFunctionType();
  for (auto [isResult, types] : {std::make_pair(false, funcType.getInputs()),
                                 std::make_pair(true, funcType.getResults())}) {
    for (auto [i, type] : llvm::enumerate(types)) {
      std::string reason;
      FailureOr<ValueSpec> spec = getValueSpec(type, reason);
      if (failed(spec)) {
        std::string typeString;
        llvm::raw_string_ostream os(typeString);
        type.print(os);
        fail("unsupported type " + typeString + " of " +
             (isResult ? "result" : "argument") + " #" + Twine(i) + " of '" +
             name + "': " + reason);
      }
      (isResult ? resultSpecs : argSpecs).push_back(*spec);
    }
  }

  // Lower.
  auto compileStart = std::chrono::steady_clock::now();
  if (pipelineString != "none") {
    PassManager pm(&context);
    if (pipelineString.empty()) {
      buildRematLowerToNVVMPipeline(pm, RematLowerToNVVMPipelineOptions());
    } else {
      StringRef text = StringRef(pipelineString).trim();
      if (text.starts_with("builtin.module(") && text.ends_with(")"))
        text = text.drop_front(strlen("builtin.module(")).drop_back();
      std::string errorMessage;
      llvm::raw_string_ostream errorStream(errorMessage);
      if (failed(parsePassPipeline(text, pm, errorStream)))
        fail("invalid --pipeline '" + pipelineString +
             "': " + StringRef(errorMessage).trim());
    }
    if (failed(pm.run(*module)))
      fail("lowering '" + inputFilename +
           "' failed (see the diagnostics "
           "above)");
  }
  if (printLowered) {
    module->print(llvm::outs());
    llvm::outs() << "\n";
    return 0;
  }
  if (!module->lookupSymbol<LLVM::LLVMFuncOp>(name))
    fail("after lowering, '" + name +
         "' is not an llvm.func: the pipeline must lower to the LLVM dialect");

  // The GPU: load the runtime before JIT-compiling, whose initialization
  // loads the kernels (global constructors call mgpuModuleLoad).
  Runtime rt = loadRuntime();
  ExecutionEngineOptions engineOptions;
  auto transformer = makeOptimizingTransformer(optLevel, /*sizeLevel=*/0,
                                               /*targetMachine=*/nullptr);
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel =
      static_cast<llvm::CodeGenOptLevel>(optLevel.getValue());
  auto maybeEngine = ExecutionEngine::create(*module, engineOptions);
  if (!maybeEngine)
    fail("JIT compilation failed: " + llvm::toString(maybeEngine.takeError()));
  std::unique_ptr<ExecutionEngine> engine = std::move(*maybeEngine);
  engine->registerSymbols([&](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap map;
    for (const char *symbol : kMgpuSymbols)
      if (void *address = dlsym(rt.handle, symbol))
        map[interner(symbol)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                                 llvm::JITSymbolFlags::Exported};
    return map;
  });
  engine->initialize();
  auto packed = engine->lookupPacked(name);
  if (!packed)
    fail("cannot find '" + name +
         "' in the JIT'd code: " + llvm::toString(packed.takeError()));
  double compileSeconds = std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - compileStart)
                              .count();

  // Inputs: host copies filled by the shared formula, uploaded into device
  // buffers allocated through the runtime (counted).
  uint64_t inputBytes = 0;
  SmallVector<std::vector<char>> hostInputs;
  SmallVector<void *> deviceInputs;
  SmallVector<SmallVector<int64_t>> argWords;
  for (const ValueSpec &spec : argSpecs) {
    if (spec.isMemRef) {
      inputBytes += spec.byteSize();
      hostInputs.emplace_back(spec.byteSize());
      void *device = rt.memAlloc(spec.byteSize(), nullptr, 0);
      deviceInputs.push_back(device);
      argWords.push_back(makeDescriptorWords(spec, device));
    } else {
      hostInputs.emplace_back(8);
      deviceInputs.push_back(nullptr);
      argWords.push_back({0});
    }
  }
  SmallVector<void *> packedArgs;
  for (auto &words : argWords)
    for (int64_t &w : words)
      packedArgs.push_back(&w);
  SmallVector<unsigned> resultOffsets;
  unsigned resultBytes = 0;
  for (const ValueSpec &spec : resultSpecs) {
    resultBytes = llvm::alignTo(resultBytes, getLoweredAlign(spec));
    resultOffsets.push_back(resultBytes);
    resultBytes += getLoweredSize(spec);
  }
  SmallVector<int64_t> resultStorage(llvm::divideCeil(resultBytes, 8) + 1, 0);
  if (!resultSpecs.empty())
    packedArgs.push_back(resultStorage.data());

  rt.setKernelTiming(1);
  SmallVector<RunStats> runs;
  SmallVector<Checksum> checksums;
  for (unsigned run = 0; run < repeatCount; ++run) {
    for (auto [i, spec] : llvm::enumerate(argSpecs)) {
      fillInput(spec, i, hostInputs[i].data());
      if (spec.isMemRef)
        rt.copyToDevice(deviceInputs[i], hostInputs[i].data(), spec.byteSize());
      else
        std::memcpy(argWords[i].data(), hostInputs[i].data(), 8);
    }
    std::fill(resultStorage.begin(), resultStorage.end(), 0);

    RematCudaStats before;
    rt.reset();
    rt.getStats(&before);
    auto start = std::chrono::steady_clock::now();
    // The entry ends with a stream synchronization: the kernels are done.
    (*packed)(packedArgs.data());
    auto stop = std::chrono::steady_clock::now();
    RunStats stats;
    rt.getStats(&stats.device);
    stats.seconds = std::chrono::duration<double>(stop - start).count();
    stats.returnedBytes = stats.device.currentBytes - before.currentBytes;

    // Download, checksum, then free what the step allocated and returned
    // (two results may share a buffer; a result may be an argument).
    checksums.assign(resultSpecs.size(), Checksum());
    SmallVector<void *> toFree;
    const char *storage = reinterpret_cast<const char *>(resultStorage.data());
    for (auto [i, spec] : llvm::enumerate(resultSpecs)) {
      const char *field = storage + resultOffsets[i];
      if (!spec.isMemRef) {
        addElement(checksums[i], spec.kind, field, spec.elemBytes(),
                   printResults);
        continue;
      }
      const int64_t *w = reinterpret_cast<const int64_t *>(field);
      void *allocated = reinterpret_cast<void *>(w[0]);
      const char *aligned = reinterpret_cast<const char *>(w[1]);
      int64_t offset = w[2];
      const int64_t *sizes = w + 3;
      const int64_t *strides = w + 3 + spec.rank();
      // The span of elements the view touches, downloaded in one copy.
      int64_t last = 0;
      for (int64_t d = 0; d < spec.rank(); ++d)
        last += (sizes[d] - 1) * strides[d];
      std::vector<char> host((last + 1) * spec.elemBytes());
      rt.copyToHost(host.data(), aligned + offset * spec.elemBytes(),
                    host.size());
      addMemRef(checksums[i], spec, host.data(), 0, sizes, strides,
                printResults);
      if (rt.sizeOf(allocated) >= 0 &&
          !llvm::is_contained(deviceInputs, allocated) &&
          !llvm::is_contained(toFree, allocated))
        toFree.push_back(allocated);
    }
    for (void *p : toFree)
      rt.memFree(p, nullptr);
    RematCudaStats after;
    rt.getStats(&after);
    stats.leakedBytes = after.currentBytes - before.currentBytes;
    runs.push_back(stats);
  }
  for (void *p : deviceInputs)
    if (p)
      rt.memFree(p, nullptr);

  // Report.
  SmallVector<double> times, kernelTimes;
  for (const RunStats &r : runs) {
    times.push_back(r.seconds * 1e3);
    kernelTimes.push_back(r.device.kernelMs);
  }
  llvm::sort(times);
  llvm::sort(kernelTimes);
  const RunStats *worst = &runs.front();
  for (const RunStats &r : runs)
    if (r.device.peakBytes > worst->device.peakBytes)
      worst = &r;
  uint64_t peak = worst->device.peakBytes;
  uint64_t stepPeak = peak - inputBytes;

  if (emitJson) {
    llvm::json::OStream j(llvm::outs(), /*IndentSize=*/2);
    j.object([&] {
      j.attribute("file", inputFilename.getValue());
      j.attribute("entry", name);
      j.attribute("device", "cuda");
      j.attributeArray("results", [&] {
        for (auto [i, spec] : llvm::enumerate(resultSpecs)) {
          j.object([&] {
            j.attribute("index", static_cast<int64_t>(i));
            j.attribute("type", spec.typeString);
            j.attribute("sum", checksums[i].sum);
            j.attribute("abs_sum", checksums[i].absSum);
            j.attribute("fnv1a64", formatHex64(checksums[i].fnv));
            if (printResults)
              j.attributeArray("values", [&] {
                for (double v : checksums[i].values)
                  j.value(v);
              });
          });
        }
      });
      j.attribute("peak_device_bytes", static_cast<int64_t>(peak));
      j.attribute("peak_bytes", static_cast<int64_t>(stepPeak));
      j.attribute("pool_peak_bytes",
                  static_cast<int64_t>(worst->device.poolPeakBytes));
      j.attribute("num_allocs", static_cast<int64_t>(worst->device.numAllocs));
      j.attribute("total_allocated_bytes",
                  static_cast<int64_t>(worst->device.totalBytes));
      j.attribute("returned_bytes", static_cast<int64_t>(worst->returnedBytes));
      j.attribute("leaked_bytes", static_cast<int64_t>(worst->leakedBytes));
      j.attribute("unknown_frees",
                  static_cast<int64_t>(worst->device.unknownFrees));
      j.attribute("input_bytes", static_cast<int64_t>(inputBytes));
      j.attribute("num_launches",
                  static_cast<int64_t>(worst->device.numLaunches));
      j.attribute("repeat", static_cast<int64_t>(repeatCount));
      j.attribute("time_ms_min", times.front());
      j.attribute("time_ms_median", times[times.size() / 2]);
      j.attribute("kernel_ms_min", kernelTimes.front());
      j.attribute("kernel_ms_median", kernelTimes[kernelTimes.size() / 2]);
      j.attribute("compile_ms", compileSeconds * 1e3);
    });
    llvm::outs() << "\n";
    return 0;
  }

  llvm::raw_ostream &os = llvm::outs();
  os << "entry: @" << name << " (cuda)\n";
  for (auto [i, spec] : llvm::enumerate(resultSpecs)) {
    os << "result #" << i << ": " << spec.typeString
       << llvm::format(" sum=%.9g abs_sum=%.9g", checksums[i].sum,
                       checksums[i].absSum)
       << " fnv1a64=" << formatHex64(checksums[i].fnv) << "\n";
    if (printResults) {
      os << "  values: [";
      llvm::interleaveComma(checksums[i].values, os,
                            [&](double v) { os << llvm::format("%.9g", v); });
      os << "]\n";
    }
  }
  os << "peak_device_bytes: " << peak << " (inputs included)\n";
  os << "peak_bytes: " << stepPeak << " (inputs excluded)\n";
  os << "pool_peak_bytes: " << worst->device.poolPeakBytes << "\n";
  os << "num_allocs: " << worst->device.numAllocs << "\n";
  os << "returned_bytes: " << worst->returnedBytes << "\n";
  os << "leaked_bytes: " << worst->leakedBytes << "\n";
  os << "input_bytes: " << inputBytes << "\n";
  os << "num_launches: " << worst->device.numLaunches << "\n";
  os << llvm::format("kernel_ms: min=%.3f median=%.3f\n", kernelTimes.front(),
                     kernelTimes[kernelTimes.size() / 2]);
  os << llvm::format("time_ms: min=%.3f median=%.3f (repeat=%u)\n",
                     times.front(), times[times.size() / 2],
                     repeatCount.getValue());
  os << llvm::format("compile_ms: %.1f\n", compileSeconds * 1e3);
  return 0;
}
