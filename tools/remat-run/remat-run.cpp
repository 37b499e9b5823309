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
// A data-parallel step (one with `shard` annotations or collectives) runs
// under `mpirun -np N`: each rank partitions the step (remat-shard-partition),
// feeds its block of the single-process inputs, runs, and measures its own
// heap; rank 0 prints every rank's report (docs/Distributed.md).
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/InitAllPasses.h"
#include "remat/Pipelines/Pipelines.h"
#include "remat/Runner/Ranks.h"
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
#include <string>
#include <vector>

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

/// The entry function: `entryName`, or else the first public func.func with
/// a body other than `main`. Exits with a CLI error when there is none.
func::FuncOp findEntry(ModuleOp module, StringRef entryName,
                       StringRef filename) {
  if (entryName.empty()) {
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && func.isPublic() && func.getName() != "main")
        return func;
    fail("no entry function: '" + filename +
         "' has no public func.func with a body other than 'main' (use "
         "--entry)");
  }
  auto entry = module.lookupSymbol<func::FuncOp>(entryName);
  if (!entry) {
    if (module.lookupSymbol<LLVM::LLVMFuncOp>(entryName))
      fail("entry '" + entryName +
           "' is already in the LLVM dialect; remat-run needs the "
           "func.func form (tensors or memrefs) to build its inputs");
    fail("no function named '" + entryName + "' in '" + filename + "'");
  }
  if (entry.isExternal())
    fail("entry '" + entryName + "' has no body");
  return entry;
}

/// Keeps only `entry` and the functions it references (transitively): the
/// others need not be lowered nor compiled.
void eraseUnreachableFunctions(ModuleOp module, func::FuncOp entry) {
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

/// Lowers `module` with --pipeline, or by default with remat-lower-to-cpu.
void lowerStep(ModuleOp module, const RunnerOptions &options) {
  lowerModule(kToolName, module, options.pipeline, options.inputFilename,
              [&](PassManager &pm) {
                RematLowerToCPUPipelineOptions cpuOptions;
                // Ownership-based deallocation refuses input that already
                // frees its buffers (bufferized IR written by hand or by
                // another tool). Input whose arena is planned already must
                // not go through it either: it cannot tell that a view at a
                // nonzero offset shares the arena's allocation.
                bool hasDeallocs = false;
                module.walk([&](memref::DeallocOp) { hasDeallocs = true; });
                bool hasArena = false;
                module.walk([&](func::FuncOp func) {
                  hasArena |= func->hasAttr(RematDialect::kArenaBytesAttrName);
                });
                if (hasDeallocs || hasArena)
                  cpuOptions.deallocate = false;
                if (hasArena)
                  cpuOptions.arena = false;
                buildRematLowerToCPUPipeline(pm, cpuOptions);
              });
}

/// JIT-compiles the lowered entry `name` with the allocation hooks bound to
/// the tracker and the --shared-libs loaded.
JITEntry compileStep(ModuleOp module, StringRef name,
                     const RunnerOptions &options) {
  if (!module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    fail("after lowering, '" + name +
         "' is not an llvm.func: the pipeline must lower to the LLVM dialect");
  std::vector<std::string> libStorage(sharedLibs.begin(), sharedLibs.end());
#ifdef REMAT_MLIR_C_RUNNER_UTILS
  // memref.copy of non-contiguous views calls memrefCopy.
  if (llvm::sys::fs::exists(REMAT_MLIR_C_RUNNER_UTILS))
    libStorage.push_back(REMAT_MLIR_C_RUNNER_UTILS);
#endif
  SmallVector<StringRef> libPaths(libStorage.begin(), libStorage.end());
  // Bind the allocation hooks to the tracker explicitly, whatever else the
  // process or the shared libraries export.
  SmallVector<std::pair<StringRef, void *>> allocHooks = {
      {"_mlir_memref_to_llvm_alloc",
       reinterpret_cast<void *>(&_mlir_memref_to_llvm_alloc)},
      {"_mlir_memref_to_llvm_aligned_alloc",
       reinterpret_cast<void *>(&_mlir_memref_to_llvm_aligned_alloc)},
      {"_mlir_memref_to_llvm_free",
       reinterpret_cast<void *>(&_mlir_memref_to_llvm_free)}};
  allocHooks.append(getMPISymbols());
  return compileEntry(kToolName, module, name, options.optLevel, libPaths,
                      allocHooks);
}

/// What the timed calls measured.
struct StepRuns {
  SmallVector<RunStats<RematAllocStats>> runs;
  /// The results' checksums of the last run.
  SmallVector<Checksum> checksums;
  /// Bytes of the inputs (allocated by remat-run, not counted).
  uint64_t inputBytes = 0;
};

/// One timed call of the entry from fresh inputs: its heap statistics; the
/// returned buffers are checksummed into `checksums`, then freed.
RunStats<RematAllocStats> runOnce(JITEntry &jit, PackedCall &call,
                                  const RankEntry &signature,
                                  ArrayRef<void *> inputBuffers,
                                  RankSession &session, bool printResults,
                                  SmallVector<Checksum> &checksums) {
  // Fresh inputs every run: the entry may update its arguments in place.
  for (auto [i, spec] : llvm::enumerate(signature.argSpecs))
    fillRankInput(signature, i, session,
                  spec.isMemRef ? inputBuffers[i] : call.getScalarArg(i));
  call.clearResults();
  session.barrier();

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

  // Checksums, then free the returned buffers (owned by the caller). Two
  // results may share a buffer, and a result may be an input or a global:
  // free only pointers the tracker handed out, once each.
  checksums = call.checksumResults(
      printResults, [&](unsigned i, const DescriptorView &d) {
        return d.aligned + d.offset * signature.resultSpecs[i].elemBytes();
      });
  for (void *p : call.getResultAllocations())
    if (rematAllocTrackerSizeOf(p) >= 0)
      _mlir_memref_to_llvm_free(p);
  RematAllocStats after;
  rematAllocTrackerGetStats(&after);
  stats.leakedBytes = after.currentBytes - before.currentBytes;
  return stats;
}

/// Runs the entry --repeat times. Inputs are owned by remat-run, allocated
/// outside the tracker (not counted); each memref argument is passed as its
/// expanded descriptor fields.
StepRuns runStep(JITEntry &jit, const RankEntry &signature,
                 RankSession &session, const RunnerOptions &options) {
  StepRuns measured;
  SmallVector<void *> inputBuffers;
  for (const ValueSpec &spec : signature.argSpecs) {
    if (!spec.isMemRef) {
      inputBuffers.push_back(nullptr);
      continue;
    }
    measured.inputBytes += spec.byteSize();
    void *buffer = std::aligned_alloc(
        64, std::max<uint64_t>(64, llvm::alignTo(spec.byteSize(), 64)));
    if (!buffer)
      fail("out of memory allocating inputs");
    inputBuffers.push_back(buffer);
  }
  PackedCall call(signature.argSpecs, signature.resultSpecs, inputBuffers);
  for (unsigned run = 0; run < options.repeatCount; ++run)
    measured.runs.push_back(runOnce(jit, call, signature, inputBuffers, session,
                                    options.printResults, measured.checksums));
  for (void *buffer : inputBuffers)
    std::free(buffer);
  return measured;
}

/// The figures of the report, over the runs.
struct RunSummary {
  RunSummary(const StepRuns &measured)
      : worst(getWorstRun<RematAllocStats>(measured.runs)) {
    SmallVector<double> times;
    for (const RunStats<RematAllocStats> &r : measured.runs)
      times.push_back(r.seconds);
    MinMedian time = getMinAndMedian(times);
    minMs = time.min * 1e3;
    medianMs = time.median * 1e3;
    samePeak =
        llvm::all_of(measured.runs, [&](const RunStats<RematAllocStats> &r) {
          return r.memory.peakBytes == measured.runs.front().memory.peakBytes;
        });
  }
  const RunStats<RematAllocStats> &worst;
  double minMs = 0, medianMs = 0;
  bool samePeak = true;
};

/// This rank's JSON report.
void printJSONRun(llvm::raw_ostream &os, const RunnerOptions &options,
                  StringRef name, const RankEntry &signature,
                  const StepRuns &measured, double compileSeconds,
                  const RankSession &session) {
  RunSummary summary(measured);
  printJSONReport(
      os, options.inputFilename, name, /*device=*/"", signature.resultSpecs,
      measured.checksums, options.printResults, [&](llvm::json::OStream &j) {
        if (session.isDistributed()) {
          j.attribute("rank", session.getRank());
          j.attribute("ranks", session.getSize());
        }
        j.attribute("peak_bytes",
                    static_cast<int64_t>(summary.worst.memory.peakBytes));
        j.attribute("peak_bytes_same_every_run", summary.samePeak);
        printAllocationsJSON(j, summary.worst, measured.inputBytes);
        j.attribute("repeat", static_cast<int64_t>(options.repeatCount));
        j.attribute("time_ms_min", summary.minMs);
        j.attribute("time_ms_median", summary.medianMs);
        j.attribute("compile_ms", compileSeconds * 1e3);
      });
}

/// The text report of rank 0 (with every rank's row after it when the run
/// is distributed).
void printTextRun(llvm::raw_ostream &os, const RunnerOptions &options,
                  StringRef name, const RankEntry &signature,
                  const StepRuns &measured, double compileSeconds,
                  const RankSession &session, ArrayRef<std::string> reports) {
  RunSummary summary(measured);
  const RunStats<RematAllocStats> &worst = summary.worst;
  if (session.isDistributed())
    os << "rank 0 of " << session.getSize() << "\n";
  printTextReport(os, name, /*device=*/"", signature.resultSpecs,
                  measured.checksums, options.printResults);
  os << "peak_bytes: " << worst.memory.peakBytes << "\n";
  if (!summary.samePeak)
    os << "note: the peak differed between runs; the maximum is shown\n";
  os << "num_allocs: " << worst.memory.numAllocs << "\n";
  os << "total_allocated_bytes: " << worst.memory.totalBytes << "\n";
  os << "returned_bytes: " << worst.returnedBytes << "\n";
  os << "leaked_bytes: " << worst.leakedBytes << "\n";
  if (worst.memory.unknownFrees)
    os << "unknown_frees: " << worst.memory.unknownFrees << "\n";
  os << "input_bytes: " << measured.inputBytes << " (allocated by remat-run, "
     << "not counted)\n";
  os << llvm::format("time_ms: min=%.3f median=%.3f (repeat=%u)\n",
                     summary.minMs, summary.medianMs,
                     options.repeatCount.getValue());
  os << llvm::format("compile_ms: %.1f\n", compileSeconds * 1e3);
  if (session.isDistributed())
    printRankTable(kToolName, os, reports);
}

/// Prints the report on stdout: rank 0 gathers every rank's JSON report
/// when the run is distributed; the other ranks print nothing.
void report(const RunnerOptions &options, StringRef name,
            const RankEntry &signature, const StepRuns &measured,
            double compileSeconds, RankSession &session) {
  printRunReport(
      session, options.emitJson,
      [&](llvm::raw_ostream &os) {
        printJSONRun(os, options, name, signature, measured, compileSeconds,
                     session);
      },
      [&](llvm::raw_ostream &os, ArrayRef<std::string> reports) {
        printTextRun(os, options, name, signature, measured, compileSeconds,
                     session, reports);
      });
}

} // namespace

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
  func::FuncOp entry =
      findEntry(module, options.entryName, options.inputFilename);
  std::string name = entry.getName().str();

  // Data-parallel steps: each argument's split from its annotations, then
  // the per-rank program.
  RankSession session(kToolName, communicates(module), argc, argv);
  RankEntry signature = prepareRankEntry(kToolName, module, entry,
                                         options.inputFilename, session);
  eraseUnreachableFunctions(module, entry);

  // Lower and JIT.
  auto compileStart = std::chrono::steady_clock::now();
  lowerStep(module, options);
  if (options.printLowered) {
    module.print(llvm::outs());
    llvm::outs() << "\n";
    return 0;
  }
  JITEntry jit = compileStep(module, name, options);
  double compileSeconds = std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - compileStart)
                              .count();

  StepRuns measured = runStep(jit, signature, session, options);
  report(options, name, signature, measured, compileSeconds, session);
  return 0;
}
