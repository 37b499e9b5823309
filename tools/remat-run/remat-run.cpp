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
#include "remat/Runner/RunnerSupport.h"
#include "remat/Runtime/AllocTracker.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
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

#if REMAT_ENABLE_MPI
#include <mpi.h>
#endif

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

/// The processes of a data-parallel run: MPI is initialized only for a step
/// that communicates; otherwise this is rank 0 of 1.
class RankSession {
public:
  RankSession(bool distributed, int &argc, char **&argv) {
    if (!distributed)
      return;
#if REMAT_ENABLE_MPI
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized)
      MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    active = true;
#else
    fail("the step communicates (shard or mpi ops), but remat-run was built "
         "without MPI (install libopenmpi-dev and reconfigure)");
#endif
  }
  ~RankSession() {
#if REMAT_ENABLE_MPI
    if (active)
      MPI_Finalize();
#endif
  }

  bool isDistributed() const { return active; }
  int getRank() const { return rank; }
  int getSize() const { return size; }

  /// Waits for every rank (so that the timed calls start together).
  void barrier() {
#if REMAT_ENABLE_MPI
    if (active)
      MPI_Barrier(MPI_COMM_WORLD);
#endif
  }

  /// On rank 0, every rank's `text` in rank order; elsewhere nothing.
  std::vector<std::string> gather(const std::string &text) {
    if (!active)
      return {text};
    std::vector<std::string> texts;
#if REMAT_ENABLE_MPI
    int length = static_cast<int>(text.size());
    std::vector<int> lengths(size), offsets(size);
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0,
               MPI_COMM_WORLD);
    int total = 0;
    for (int r = 0; r < size; ++r) {
      offsets[r] = total;
      total += lengths[r];
    }
    std::vector<char> all(std::max(total, 1));
    MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(),
                offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0)
      for (int r = 0; r < size; ++r)
        texts.emplace_back(all.data() + offsets[r], lengths[r]);
#endif
    return texts;
  }

private:
  bool active = false;
  int rank = 0;
  int size = 1;
};

/// Whether `module` holds ops of the `shard` or `mpi` dialects.
bool communicates(ModuleOp module) {
  bool found = false;
  module.walk([&](Operation *op) {
    found =
        isa_and_present<shard::ShardDialect, mpi::MPIDialect>(op->getDialect());
    return found ? WalkResult::interrupt() : WalkResult::advance();
  });
  return found;
}

/// Partitions a `shard`-annotated `entry` into its per-rank program
/// (remat-shard-partition) and checks that its argument `i` now has the
/// shape of block `splits[i]` of `globalSpecs[i]`; `localSpecs` gets the
/// per-rank signature.
void partitionEntry(ModuleOp module, func::FuncOp entry, StringRef filename,
                    ArrayRef<ArgSplit> splits, ArrayRef<ValueSpec> globalSpecs,
                    SmallVectorImpl<ValueSpec> &localSpecs,
                    SmallVectorImpl<ValueSpec> &resultSpecs) {
  bool annotated = false;
  entry.walk([&](shard::ShardOp) { annotated = true; });
  if (annotated)
    lowerModule(kToolName, module, "builtin.module(remat-shard-partition)",
                filename, [](PassManager &) {});
  getSignatureSpecs(kToolName, entry, localSpecs, resultSpecs);
  for (auto [i, split] : llvm::enumerate(splits)) {
    SmallVector<int64_t> expected = globalSpecs[i].shape;
    if (split.dim >= 0)
      expected[split.dim] /= split.parts;
    if (localSpecs[i].shape != ArrayRef<int64_t>(expected))
      fail("argument #" + Twine(i) + " of the per-rank '" + entry.getName() +
           "' is " + localSpecs[i].typeString +
           ", not the block of its annotation");
  }
}

/// The symbols the JIT'd code of a data-parallel step needs from the MPI
/// library that its name lookup would miss: upstream's OpenMPI lowering of
/// `mpi.allreduce` names the reduction `ompi_mpi_<op>`, but OpenMPI exports
/// `ompi_mpi_op_<op>` (docs/Distributed.md).
SmallVector<std::pair<StringRef, void *>> getMPISymbols() {
  SmallVector<std::pair<StringRef, void *>> symbols;
#if REMAT_ENABLE_MPI && defined(OPEN_MPI)
#define REMAT_OMPI_OP(name)                                                    \
  symbols.push_back({"ompi_mpi_" #name, &ompi_mpi_op_##name});
  REMAT_OMPI_OP(max)
  REMAT_OMPI_OP(min)
  REMAT_OMPI_OP(sum)
  REMAT_OMPI_OP(prod)
  REMAT_OMPI_OP(land)
  REMAT_OMPI_OP(band)
  REMAT_OMPI_OP(lor)
  REMAT_OMPI_OP(bor)
  REMAT_OMPI_OP(lxor)
  REMAT_OMPI_OP(bxor)
  REMAT_OMPI_OP(maxloc)
  REMAT_OMPI_OP(minloc)
  REMAT_OMPI_OP(replace)
  REMAT_OMPI_OP(no_op)
#undef REMAT_OMPI_OP
#endif
  return symbols;
}

/// Prints, on rank 0, the per-rank table of a data-parallel run from every
/// rank's JSON report.
void printRankTable(llvm::raw_ostream &os, ArrayRef<std::string> reports) {
  os << "rank  peak_bytes  input_bytes  leaked_bytes  time_ms_min  "
        "results_fnv1a64\n";
  for (auto [rank, report] : llvm::enumerate(reports)) {
    llvm::Expected<llvm::json::Value> value = llvm::json::parse(report);
    if (!value)
      fail("rank " + Twine(rank) +
           " sent a malformed report: " + llvm::toString(value.takeError()));
    const llvm::json::Object &o = *value->getAsObject();
    // One hash over the result hashes, in result order.
    uint64_t hash = Checksum().fnv;
    for (const llvm::json::Value &result : *o.getArray("results"))
      for (char c : result.getAsObject()->getString("fnv1a64").value_or(""))
        hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
    os << llvm::format("%-4zu  %10lld  %11lld  %12lld  %11.3f  ", rank,
                       (long long)o.getInteger("peak_bytes").value_or(-1),
                       (long long)o.getInteger("input_bytes").value_or(-1),
                       (long long)o.getInteger("leaked_bytes").value_or(-1),
                       o.getNumber("time_ms_min").value_or(-1))
       << formatHex64(hash) << "\n";
  }
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
  const std::string &inputFilename = options.inputFilename;
  const std::string &entryName = options.entryName;
  bool printResults = options.printResults;

  // Parse. Syntax errors are reported by the parser's diagnostics on stderr.
  RunnerInput input(kToolName, inputFilename, [](DialectRegistry &registry) {
    registerBuiltinDialectTranslation(registry);
    registerLLVMDialectTranslation(registry);
  });
  ModuleOp module = input.getModule();

  // Pick the entry and read its signature before lowering erases it.
  func::FuncOp entry;
  if (!entryName.empty()) {
    entry = module.lookupSymbol<func::FuncOp>(entryName);
    if (!entry) {
      if (module.lookupSymbol<LLVM::LLVMFuncOp>(entryName))
        fail("entry '" + entryName +
             "' is already in the LLVM dialect; remat-run needs the "
             "func.func form (tensors or memrefs) to build its inputs");
      fail("no function named '" + entryName + "' in '" + inputFilename + "'");
    }
    if (entry.isExternal())
      fail("entry '" + entryName + "' has no body");
  } else {
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || !func.isPublic() || func.getName() == "main")
        continue;
      entry = func;
      break;
    }
    if (!entry)
      fail("no entry function: '" + inputFilename +
           "' has no public func.func with a body other than 'main' (use "
           "--entry)");
  }
  std::string name = entry.getName().str();

  // Data-parallel steps: each argument's split from its annotations, then
  // the per-rank program, whose arguments are the rank's blocks.
  std::string splitError;
  FailureOr<SmallVector<ArgSplit>> splits = getArgSplits(entry, splitError);
  if (failed(splits))
    fail("'" + name + "': " + splitError);
  FailureOr<int64_t> gridProcesses = getGridProcessCount(module, splitError);
  if (failed(gridProcesses))
    fail(splitError);
  RankSession session(communicates(module), argc, argv);
  if (*gridProcesses > 0 && *gridProcesses != session.getSize())
    fail("the step's grid has " + Twine(*gridProcesses) +
         " processes, but this run has " + Twine(session.getSize()) +
         " ranks (mpirun -np " + Twine(*gridProcesses) + ")");
  SmallVector<ValueSpec> globalSpecs, argSpecs, resultSpecs;
  getSignatureSpecs(kToolName, entry, globalSpecs, resultSpecs);
  resultSpecs.clear();
  partitionEntry(module, entry, inputFilename, *splits, globalSpecs, argSpecs,
                 resultSpecs);

  // Keep only the entry and the functions it references (transitively):
  // the others need not be lowered nor compiled.
  {
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

  // Lower.
  auto compileStart = std::chrono::steady_clock::now();
  lowerModule(kToolName, module, options.pipeline, inputFilename,
              [&](PassManager &pm) {
                RematLowerToCPUPipelineOptions cpuOptions;
                // Ownership-based deallocation refuses input that already
                // frees its buffers (bufferized IR written by hand or by
                // another tool).
                bool hasDeallocs = false;
                module.walk([&](memref::DeallocOp) { hasDeallocs = true; });
                if (hasDeallocs)
                  cpuOptions.deallocate = false;
                buildRematLowerToCPUPipeline(pm, cpuOptions);
              });
  if (options.printLowered) {
    module.print(llvm::outs());
    llvm::outs() << "\n";
    return 0;
  }
  auto lowered = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
  if (!lowered)
    fail("after lowering, '" + name +
         "' is not an llvm.func: the pipeline must lower to the LLVM dialect");

  // JIT.
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
  JITEntry jit = compileEntry(kToolName, module, name, options.optLevel,
                              libPaths, allocHooks);
  double compileSeconds = std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - compileStart)
                              .count();

  // Inputs: owned by remat-run, allocated outside the tracker (not counted).
  // Each memref argument is passed as its expanded descriptor fields.
  uint64_t inputBytes = 0;
  SmallVector<void *> inputBuffers;
  for (const ValueSpec &spec : argSpecs) {
    if (!spec.isMemRef) {
      inputBuffers.push_back(nullptr);
      continue;
    }
    inputBytes += spec.byteSize();
    void *buffer = std::aligned_alloc(
        64, std::max<uint64_t>(64, llvm::alignTo(spec.byteSize(), 64)));
    if (!buffer)
      fail("out of memory allocating inputs");
    inputBuffers.push_back(buffer);
  }
  PackedCall call(argSpecs, resultSpecs, inputBuffers);

  SmallVector<RunStats<RematAllocStats>> runs;
  SmallVector<Checksum> checksums;
  for (unsigned run = 0; run < options.repeatCount; ++run) {
    // Fresh inputs every run: the entry may update its arguments in place.
    for (auto [i, spec] : llvm::enumerate(argSpecs)) {
      if (spec.isMemRef)
        fillInputBlock(globalSpecs[i], i, (*splits)[i], session.getRank(),
                       inputBuffers[i]);
      else
        fillInput(spec, i, call.getScalarArg(i));
    }
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
          return d.aligned + d.offset * resultSpecs[i].elemBytes();
        });
    for (void *p : call.getResultAllocations())
      if (rematAllocTrackerSizeOf(p) >= 0)
        _mlir_memref_to_llvm_free(p);
    RematAllocStats after;
    rematAllocTrackerGetStats(&after);
    stats.leakedBytes = after.currentBytes - before.currentBytes;
    runs.push_back(stats);
  }
  for (void *buffer : inputBuffers)
    std::free(buffer);

  // Report.
  SmallVector<double> times;
  for (const RunStats<RematAllocStats> &r : runs)
    times.push_back(r.seconds);
  MinMedian time = getMinAndMedian(times);
  double minMs = time.min * 1e3;
  double medianMs = time.median * 1e3;
  const auto &worst = getWorstRun<RematAllocStats>(runs);
  bool samePeak = llvm::all_of(runs, [&](const RunStats<RematAllocStats> &r) {
    return r.memory.peakBytes == runs.front().memory.peakBytes;
  });

  auto printJSON = [&](llvm::raw_ostream &os) {
    printJSONReport(os, inputFilename, name, /*device=*/"", resultSpecs,
                    checksums, printResults, [&](llvm::json::OStream &j) {
                      if (session.isDistributed()) {
                        j.attribute("rank", session.getRank());
                        j.attribute("ranks", session.getSize());
                      }
                      j.attribute("peak_bytes",
                                  static_cast<int64_t>(worst.memory.peakBytes));
                      j.attribute("peak_bytes_same_every_run", samePeak);
                      printAllocationsJSON(j, worst, inputBytes);
                      j.attribute("repeat",
                                  static_cast<int64_t>(options.repeatCount));
                      j.attribute("time_ms_min", minMs);
                      j.attribute("time_ms_median", medianMs);
                      j.attribute("compile_ms", compileSeconds * 1e3);
                    });
  };
  std::vector<std::string> reports;
  if (session.isDistributed()) {
    std::string report;
    llvm::raw_string_ostream reportStream(report);
    printJSON(reportStream);
    reports = session.gather(report);
    if (session.getRank() != 0)
      return 0;
  }
  if (options.emitJson) {
    if (!session.isDistributed()) {
      printJSON(llvm::outs());
      return 0;
    }
    // Every rank's report, in rank order.
    llvm::outs() << "{\"ranks\": " << reports.size() << ", \"per_rank\": [\n";
    for (auto [rank, report] : llvm::enumerate(reports))
      llvm::outs() << (rank ? ",\n" : "") << StringRef(report).rtrim();
    llvm::outs() << "\n]}\n";
    return 0;
  }

  llvm::raw_ostream &os = llvm::outs();
  if (session.isDistributed())
    os << "rank 0 of " << session.getSize() << "\n";
  printTextReport(os, name, /*device=*/"", resultSpecs, checksums,
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
  os << "input_bytes: " << inputBytes << " (allocated by remat-run, not "
     << "counted)\n";
  os << llvm::format("time_ms: min=%.3f median=%.3f (repeat=%u)\n", minMs,
                     medianMs, options.repeatCount.getValue());
  os << llvm::format("compile_ms: %.1f\n", compileSeconds * 1e3);
  if (session.isDistributed())
    printRankTable(os, reports);
  return 0;
}
