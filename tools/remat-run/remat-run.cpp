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
// The main is the one every runner shares (runnerMain, lib/Runner); this
// file holds what is the CPU's: the default lowering, the allocation hooks
// bound in the JIT, and the timed calls with their heap figures.
//
//===----------------------------------------------------------------------===//

#include "remat/Pipelines/Pipelines.h"
#include "remat/Runner/RunnerMain.h"
#include "remat/Runtime/AllocTracker.h"
#include "remat/Transforms/PlanArena.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

using namespace mlir;
using namespace remat;

namespace cl = llvm::cl;

static cl::OptionCategory runCategory("remat-run options");

static cl::list<std::string>
    sharedLibs("shared-libs",
               cl::desc("Libraries to load into the JIT (comma separated)"),
               cl::CommaSeparated, cl::cat(runCategory));

namespace {

/// The default lowering: remat-lower-to-cpu.
void buildCPUPipeline(PassManager &pm, ModuleOp module) {
  RematLowerToCPUPipelineOptions cpuOptions;
  // Ownership-based deallocation refuses input that already frees its
  // buffers (bufferized IR written by hand or by another tool). Input whose
  // arena is planned already must not go through it either: it cannot tell
  // that a view at a nonzero offset shares the arena's allocation.
  bool hasDeallocs = false;
  module.walk([&](memref::DeallocOp) { hasDeallocs = true; });
  // What the IR holds decides, not remat.arena_bytes alone (a stale one is
  // dropped before lowering: recordHeldArenas in RunnerMain.cpp).
  bool hasArena =
      llvm::any_of(module.getOps<func::FuncOp>(), [](func::FuncOp func) {
        return getHeldArenaBytes(func).has_value();
      });
  if (hasDeallocs || hasArena)
    cpuOptions.deallocate = false;
  if (hasArena)
    cpuOptions.arena = false;
  buildRematLowerToCPUPipeline(pm, cpuOptions);
}

/// The --shared-libs, MLIR's C runner utilities, and the allocation hooks
/// bound to the tracker.
JITLinkage getCPULinkage() {
  JITLinkage linkage;
  linkage.sharedLibs.assign(sharedLibs.begin(), sharedLibs.end());
#ifdef REMAT_MLIR_C_RUNNER_UTILS
  // memref.copy of non-contiguous views calls memrefCopy.
  if (llvm::sys::fs::exists(REMAT_MLIR_C_RUNNER_UTILS))
    linkage.sharedLibs.push_back(REMAT_MLIR_C_RUNNER_UTILS);
#endif
  // Bind the allocation hooks to the tracker explicitly, whatever else the
  // process or the shared libraries export.
  linkage.symbols = {
      {"_mlir_memref_to_llvm_alloc",
       reinterpret_cast<void *>(&_mlir_memref_to_llvm_alloc)},
      {"_mlir_memref_to_llvm_aligned_alloc",
       reinterpret_cast<void *>(&_mlir_memref_to_llvm_aligned_alloc)},
      {"_mlir_memref_to_llvm_free",
       reinterpret_cast<void *>(&_mlir_memref_to_llvm_free)}};
  return linkage;
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
RunStats<RematAllocStats> runOnce(const RunContext &context, PackedCall &call,
                                  ArrayRef<void *> inputBuffers,
                                  SmallVector<Checksum> &checksums) {
  const RankEntry &signature = context.entry;
  // Fresh inputs every run: the entry may update its arguments in place.
  for (auto [i, spec] : llvm::enumerate(signature.argSpecs))
    fillRankInput(signature, i, context.session,
                  spec.isMemRef ? inputBuffers[i] : call.getScalarArg(i));
  call.clearResults();
  context.session.barrier();

  RematAllocStats before;
  rematAllocTrackerReset();
  rematAllocTrackerGetStats(&before);
  auto start = std::chrono::steady_clock::now();
  context.jit.call(call.getArgs());
  auto stop = std::chrono::steady_clock::now();
  RunStats<RematAllocStats> stats;
  rematAllocTrackerGetStats(&stats.memory);
  stats.rssGrowthBytes = rematAllocTrackerRSSGrowth();
  stats.seconds = std::chrono::duration<double>(stop - start).count();
  stats.returnedBytes = stats.memory.currentBytes - before.currentBytes;

  // Checksums, then free the returned buffers (owned by the caller). Two
  // results may share a buffer, and a result may be an input or a global:
  // free only pointers the tracker handed out, once each.
  checksums = call.checksumResults(
      context.options.printResults, [&](unsigned i, const DescriptorView &d) {
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
llvm::Expected<StepRuns> runStep(const RunContext &context) {
  StepRuns measured;
  SmallVector<void *> inputBuffers;
  llvm::scope_exit freeInputs([&] {
    for (void *buffer : inputBuffers)
      std::free(buffer);
  });
  for (auto [i, spec] : llvm::enumerate(context.entry.argSpecs)) {
    if (!spec.isMemRef) {
      inputBuffers.push_back(nullptr);
      continue;
    }
    measured.inputBytes += spec.byteSize();
    void *buffer = std::aligned_alloc(
        64, std::max<uint64_t>(64, llvm::alignTo(spec.byteSize(), 64)));
    if (!buffer)
      return makeRunnerError("out of memory allocating the " +
                             Twine(spec.byteSize()) + " bytes of argument #" +
                             Twine(i) + " (" + spec.typeString + ")");
    inputBuffers.push_back(buffer);
  }
  PackedCall call(context.entry.argSpecs, context.entry.resultSpecs,
                  inputBuffers);
  for (unsigned run = 0; run < context.options.repeatCount; ++run)
    measured.runs.push_back(
        runOnce(context, call, inputBuffers, measured.checksums));
  return std::move(measured);
}

/// Runs the entry and adds its heap figures to `report`: the peak (the
/// largest of the runs), the allocation counts of that run and the times.
llvm::Error runOnCPU(const RunContext &context, RunReport &report) {
  llvm::Expected<StepRuns> measured = runStep(context);
  if (!measured)
    return measured.takeError();
  report.checksums = measured->checksums;
  const RunStats<RematAllocStats> &worst =
      getWorstRun<RematAllocStats>(measured->runs);
  bool samePeak =
      llvm::all_of(measured->runs, [&](const RunStats<RematAllocStats> &r) {
        return r.memory.peakBytes == worst.memory.peakBytes;
      });
  report.addCount("peak_bytes", worst.memory.peakBytes);
  report.addFigure({samePeak ? "" : "note",
                    "the peak differed between runs; the maximum is shown",
                    {{"peak_bytes_same_every_run", samePeak}}});
  addMemoryPlanFigures(report, context.arenaBytes, context.hostCopies);
  // The first run usually grows the resident set most: later ones reuse
  // what the system allocator kept.
  int64_t rssGrowth = -1;
  for (const RunStats<RematAllocStats> &r : measured->runs)
    rssGrowth = std::max(rssGrowth, r.rssGrowthBytes);
  report.addFigure({"rss_growth_bytes",
                    rssGrowth < 0
                        ? "unknown (/proc not readable)"
                        : std::to_string(rssGrowth) +
                              " (the process's peak resident set, most of the "
                              "runs)",
                    {{"rss_growth_bytes", rssGrowth}}});
  addAllocationFigures(report, worst, measured->inputBytes,
                       "(allocated by remat-run, not counted)");
  addRunTimes<RematAllocStats>(report, measured->runs,
                               context.options.repeatCount);
  return llvm::Error::success();
}

} // namespace

int main(int argc, char **argv) {
  RunnerConfig config;
  config.toolName = "remat-run";
  config.overview =
      "remat-run: lower, JIT-execute and measure a training step\n";
  config.category = &runCategory;
  config.pipelineHelp =
      "Pass pipeline that lowers the module to the LLVM dialect, e.g. "
      "'builtin.module(remat-lower-to-cpu{buffer-alignment=64})'. "
      "Default: remat-lower-to-cpu with its default options "
      "(deallocate=false if the input already holds deallocations). "
      "'none' runs no pass.";
  config.printLoweredHelp =
      "Print the module after the lowering pipeline and exit";
  auto prepareJIT = [](const RankSession &) -> llvm::Expected<JITLinkage> {
    return getCPULinkage();
  };
  config.buildDefaultPipeline = buildCPUPipeline;
  config.prepareJIT = prepareJIT;
  config.runEntry = runOnCPU;
  return runnerMain(argc, argv, config);
}
