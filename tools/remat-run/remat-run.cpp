//===- remat-run.cpp - run a training step and measure its heap -----------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// remat-run lowers a module holding a tensor-level (or bufferized) training
// step in-process, JIT-compiles it with mlir::ExecutionEngine, runs the entry
// function on deterministic inputs built from its signature, and reports for
// every result a checksum (sum, sum of |x|, FNV-1a hash of the raw bytes),
// the measured peak heap bytes, the number of allocations, and the time.
//
//   remat-run step.mlir [--pipeline=<pass pipeline>] [--entry=<fn>] [--json]
//                       [--repeat=N] [--print-results]
//
// Heap bytes are counted by libremat_alloc_tracker (lib/Runtime), whose
// _mlir_memref_to_llvm_alloc/_free the JIT'd code is bound to. See
// docs/Running.md for the input formula and what the peak includes. The
// input formula, checksums, calling convention and report format are shared
// with remat-gpu-run (lib/Runner).
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/InitAllPasses.h"
#include "remat/Pipelines/Pipelines.h"
#include "remat/Runner/RunnerSupport.h"
#include "remat/Runtime/AllocTracker.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

using namespace mlir;
using namespace remat;

namespace cl = llvm::cl;

static constexpr const char *kToolName = "remat-run";

static cl::OptionCategory runCategory("remat-run options");

static cl::list<std::string>
    sharedLibs("shared-libs",
               cl::desc("Libraries to load into the JIT (comma separated)"),
               cl::CommaSeparated, cl::cat(runCategory));

namespace {

/// Exit with a CLI error.
[[noreturn]] void fail(const Twine &message) {
  exitWithError(kToolName, message);
}

} // namespace

/// Erases every func.func that `entry` does not reference (transitively):
/// they need not be lowered nor compiled.
static void keepReachable(ModuleOp module, func::FuncOp entry) {
  llvm::SmallPtrSet<Operation *, 8> reachable;
  SmallVector<Operation *> worklist{entry};
  SymbolTableCollection symbolTables;
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!reachable.insert(op).second)
      continue;
    op->walk([&](Operation *nested) {
      for (NamedAttribute attr : nested->getAttrs()) {
        attr.getValue().walk([&](SymbolRefAttr ref) {
          if (Operation *target =
                  symbolTables.lookupNearestSymbolFrom(nested, ref))
            worklist.push_back(target);
        });
      }
    });
  }
  for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (!reachable.contains(func))
      func.erase();
}

/// Lowers `module` with `--pipeline`, by default remat-lower-to-cpu (without
/// deallocation when the input already frees its buffers: ownership-based
/// deallocation refuses such input).
static void lowerForCPU(ModuleOp module, const RunnerOptions &options) {
  lowerModule(kToolName, module, options.pipeline, options.inputFilename,
              [&](PassManager &pm) {
                RematLowerToCPUPipelineOptions cpuOptions;
                bool hasDeallocs = false;
                module.walk([&](memref::DeallocOp) { hasDeallocs = true; });
                if (hasDeallocs)
                  cpuOptions.deallocate = false;
                buildRematLowerToCPUPipeline(pm, cpuOptions);
              });
}

/// JIT-compiles the lowered entry `name` with the allocation hooks bound to
/// the tracker explicitly, whatever else the process or the shared libraries
/// export.
static JITEntry compileWithTracker(ModuleOp module, StringRef name,
                                   const RunnerOptions &options) {
  std::vector<std::string> libStorage(sharedLibs.begin(), sharedLibs.end());
#ifdef REMAT_MLIR_C_RUNNER_UTILS
  // memref.copy of non-contiguous views calls memrefCopy.
  if (llvm::sys::fs::exists(REMAT_MLIR_C_RUNNER_UTILS))
    libStorage.push_back(REMAT_MLIR_C_RUNNER_UTILS);
#endif
  SmallVector<StringRef> libPaths(libStorage.begin(), libStorage.end());
  std::pair<StringRef, void *> allocHooks[] = {
      {"_mlir_memref_to_llvm_alloc",
       reinterpret_cast<void *>(&_mlir_memref_to_llvm_alloc)},
      {"_mlir_memref_to_llvm_aligned_alloc",
       reinterpret_cast<void *>(&_mlir_memref_to_llvm_aligned_alloc)},
      {"_mlir_memref_to_llvm_free",
       reinterpret_cast<void *>(&_mlir_memref_to_llvm_free)}};
  return compileEntry(kToolName, module, name, options.optLevel, libPaths,
                      allocHooks);
}

namespace {
/// The measurements of every run.
struct Measurements {
  SmallVector<RunStats<RematAllocStats>> runs;
  SmallVector<Checksum> checksums;
  /// Bytes of the inputs, allocated by remat-run outside the tracker.
  uint64_t inputBytes = 0;
  double compileSeconds = 0;
};
} // namespace

/// One run on fresh inputs (the entry may update its arguments in place):
/// its time and heap, the results' checksums; then frees the returned
/// buffers. Two results may share a buffer, and a result may be an input or
/// a global: only pointers the tracker handed out are freed, once each.
static RunStats<RematAllocStats>
runOnce(JITEntry &jit, PackedCall &call, ArrayRef<ValueSpec> argSpecs,
        ArrayRef<ValueSpec> resultSpecs, ArrayRef<void *> inputBuffers,
        bool printResults, SmallVector<Checksum> &checksums) {
  for (auto [i, spec] : llvm::enumerate(argSpecs)) {
    if (spec.isMemRef)
      fillInput(spec, i, inputBuffers[i]);
    else
      fillInput(spec, i, call.getScalarArg(i));
  }
  call.clearResults();

  RematAllocStats before;
  rematAllocTrackerReset();
  rematAllocTrackerGetStats(&before);
  auto start = std::chrono::steady_clock::now();
  jit.call(call.getArgs());
  auto stop = std::chrono::steady_clock::now();
  RunStats<RematAllocStats> stats;
  rematAllocTrackerGetStats(&stats.memory);
  stats.seconds = std::chrono::duration<double>(stop - start).count();
  stats.returnedBytes = stats.memory.currentBytes - before.currentBytes;

  checksums = call.checksumResults(
      printResults, [&](unsigned i, const DescriptorView &d) {
        return d.aligned + d.offset * resultSpecs[i].elemBytes();
      });
  for (void *p : call.getResultAllocations())
    if (rematAllocTrackerSizeOf(p) >= 0)
      _mlir_memref_to_llvm_free(p);
  RematAllocStats after;
  rematAllocTrackerGetStats(&after);
  stats.leakedBytes = after.currentBytes - before.currentBytes;
  return stats;
}

/// Runs the entry `repeatCount` times. Inputs are owned by remat-run and
/// allocated outside the tracker (not counted); each memref argument is
/// passed as its expanded descriptor fields.
static void runAll(JITEntry &jit, ArrayRef<ValueSpec> argSpecs,
                   ArrayRef<ValueSpec> resultSpecs,
                   const RunnerOptions &options, Measurements &m) {
  SmallVector<void *> inputBuffers;
  for (const ValueSpec &spec : argSpecs) {
    if (!spec.isMemRef) {
      inputBuffers.push_back(nullptr);
      continue;
    }
    m.inputBytes += spec.byteSize();
    void *buffer = std::aligned_alloc(
        64, std::max<uint64_t>(64, llvm::alignTo(spec.byteSize(), 64)));
    if (!buffer)
      fail("out of memory allocating inputs");
    inputBuffers.push_back(buffer);
  }
  PackedCall call(argSpecs, resultSpecs, inputBuffers);
  for (unsigned run = 0; run < options.repeatCount; ++run)
    m.runs.push_back(runOnce(jit, call, argSpecs, resultSpecs, inputBuffers,
                             options.printResults, m.checksums));
  for (void *buffer : inputBuffers)
    std::free(buffer);
}

/// Prints the report (JSON with --json, else text) of the worst run.
static void report(StringRef name, ArrayRef<ValueSpec> resultSpecs,
                   const RunnerOptions &options, const Measurements &m) {
  SmallVector<double> times;
  for (const RunStats<RematAllocStats> &r : m.runs)
    times.push_back(r.seconds);
  MinMedian time = getMinAndMedian(times);
  double minMs = time.min * 1e3;
  double medianMs = time.median * 1e3;
  const auto &worst = getWorstRun<RematAllocStats>(m.runs);
  bool samePeak = llvm::all_of(m.runs, [&](const RunStats<RematAllocStats> &r) {
    return r.memory.peakBytes == m.runs.front().memory.peakBytes;
  });
  bool printResults = options.printResults;

  if (options.emitJson) {
    printJSONReport(
        llvm::outs(), options.inputFilename, name, /*device=*/"", resultSpecs,
        m.checksums, printResults, [&](llvm::json::OStream &j) {
          j.attribute("peak_bytes",
                      static_cast<int64_t>(worst.memory.peakBytes));
          j.attribute("peak_bytes_same_every_run", samePeak);
          printAllocationsJSON(j, worst, m.inputBytes);
          j.attribute("repeat", static_cast<int64_t>(options.repeatCount));
          j.attribute("time_ms_min", minMs);
          j.attribute("time_ms_median", medianMs);
          j.attribute("compile_ms", m.compileSeconds * 1e3);
        });
    return;
  }

  llvm::raw_ostream &os = llvm::outs();
  printTextReport(os, name, /*device=*/"", resultSpecs, m.checksums,
                  printResults);
  os << "peak_bytes: " << worst.memory.peakBytes << "\n";
  if (!samePeak)
    os << "note: the peak differed between runs; the maximum is shown\n";
  os << "num_allocs: " << worst.memory.numAllocs << "\n";
  os << "total_allocated_bytes: " << worst.memory.totalBytes << "\n";
  os << "returned_bytes: " << worst.returnedBytes << "\n";
  os << "leaked_bytes: " << worst.leakedBytes << "\n";
  if (worst.memory.unknownFrees)
    os << "unknown_frees: " << worst.memory.unknownFrees << "\n";
  os << "input_bytes: " << m.inputBytes << " (allocated by remat-run, not "
     << "counted)\n";
  os << llvm::format("time_ms: min=%.3f median=%.3f (repeat=%u)\n", minMs,
                     medianMs, options.repeatCount.getValue());
  os << llvm::format("compile_ms: %.1f\n", m.compileSeconds * 1e3);
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);

  mlir::registerAllPasses();
  remat::registerAllPasses();
  RunnerOptions options(
      kToolName, runCategory,
      "Pass pipeline that lowers the module to the LLVM dialect, e.g. "
      "'builtin.module(remat-lower-to-cpu{buffer-alignment=64})'. "
      "Default: remat-lower-to-cpu with its default options "
      "(deallocate=false if the input already holds deallocations). "
      "'none' runs no pass.",
      "Print the module after the lowering pipeline and exit");
  options.parseCommandLine(
      argc, argv,
      "remat-run: lower, JIT-execute and measure a training step\n");

  // Parse. Syntax errors are reported by the parser's diagnostics on stderr.
  RunnerInput input(kToolName, options.inputFilename,
                    [](DialectRegistry &registry) {
                      registerBuiltinDialectTranslation(registry);
                      registerLLVMDialectTranslation(registry);
                    });
  ModuleOp module = input.getModule();

  // Pick the entry and read its signature before lowering erases it.
  std::string error;
  func::FuncOp entry =
      findEntry(module, options.entryName, options.inputFilename, error);
  if (!entry)
    fail(error);
  std::string name = entry.getName().str();
  SmallVector<ValueSpec> argSpecs, resultSpecs;
  getSignatureSpecs(kToolName, entry, argSpecs, resultSpecs);
  keepReachable(module, entry);

  auto compileStart = std::chrono::steady_clock::now();
  lowerForCPU(module, options);
  if (options.printLowered) {
    module.print(llvm::outs());
    llvm::outs() << "\n";
    return 0;
  }
  if (!module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    fail("after lowering, '" + name +
         "' is not an llvm.func: the pipeline must lower to the LLVM dialect");
  JITEntry jit = compileWithTracker(module, name, options);
  Measurements m;
  m.compileSeconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - compileStart)
                         .count();

  runAll(jit, argSpecs, resultSpecs, options, m);
  report(name, resultSpecs, options, m);
  return 0;
}
