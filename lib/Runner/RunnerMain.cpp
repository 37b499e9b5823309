//===- RunnerMain.cpp - the main every step runner shares -----------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Runner/RunnerMain.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/InitAllPasses.h"
#include "remat/Runner/IndexBounds.h"
#include "remat/Transforms/PlanArena.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <memory>

using namespace mlir;
using namespace remat;

void remat::eraseUnreachableFunctions(ModuleOp module, func::FuncOp entry) {
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

/// Makes each function's remat.arena_bytes say what it holds: the size of
/// the arena it really holds (getHeldArenaBytes), or no attribute. A stale
/// one (hand-written, or what remat-plan-arena wrote on tensor IR before
/// planning nothing wrote nothing) is dropped with a warning: taken at its
/// word, the runner lowered the function without deallocation and reported
/// an arena that never ran.
static void recordHeldArenas(ModuleOp module) {
  Builder builder(module.getContext());
  StringRef name = RematDialect::kArenaBytesAttrName;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (std::optional<int64_t> held = getHeldArenaBytes(func)) {
      func->setAttr(name, builder.getI64IntegerAttr(*held));
      continue;
    }
    if (!func->hasAttr(name))
      continue;
    mlir::emitWarning(func.getLoc())
        << "ignoring " << name << " on '" << func.getSymName()
        << "': it holds no arena (no memref.view of an i8 allocation); the "
           "attribute is dropped";
    func->removeAttr(name);
  }
}

namespace {

/// One invocation of a runner: the steps of runnerMain, in order, each
/// returning its error. Members are destroyed in reverse order: the session
/// (MPI) before the input (the MLIR context).
class RunnerDriver {
public:
  RunnerDriver(const RunnerConfig &config, const RunnerOptions &options)
      : config(config), options(options) {}

  llvm::Error run(int &argc, char **&argv);

  /// Leaves MPI unfinalized after an error (RankSession::abandon).
  void abandon() {
    if (session)
      session->abandon();
  }

private:
  /// Parses the input, picks the entry and prepares this rank's program.
  llvm::Error prepare(int &argc, char **&argv);
  /// Lowers with --pipeline or the runner's default.
  llvm::Error lower();
  /// JIT-compiles the lowered entry with what the runner links to it.
  llvm::Expected<JITEntry> compile();
  /// Runs the entry through the runner and prints the report.
  llvm::Error runAndReport(JITEntry &jit, double compileMs);

  const RunnerConfig &config;
  const RunnerOptions &options;
  std::unique_ptr<RunnerInput> input;
  std::unique_ptr<RankSession> session;
  RankEntry ranked;
  std::string entryName;
  /// remat.arena_bytes of the lowered entry (RunContext::arenaBytes).
  int64_t arenaBytes = 0;
};

} // namespace

llvm::Error RunnerDriver::run(int &argc, char **&argv) {
  if (llvm::Error error = prepare(argc, argv))
    return error;
  auto compileStart = std::chrono::steady_clock::now();
  if (llvm::Error error = lower())
    return error;
  if (options.printLowered) {
    input->getModule().print(llvm::outs());
    llvm::outs() << "\n";
    return llvm::Error::success();
  }
  llvm::Expected<JITEntry> jit = compile();
  if (!jit)
    return jit.takeError();
  std::chrono::duration<double, std::milli> compileTime =
      std::chrono::steady_clock::now() - compileStart;
  return runAndReport(*jit, compileTime.count());
}

llvm::Error RunnerDriver::prepare(int &argc, char **&argv) {
  llvm::Expected<std::unique_ptr<RunnerInput>> opened =
      RunnerInput::open(options.inputFilename, config.registerTranslations);
  if (!opened)
    return opened.takeError();
  input = std::move(*opened);
  ModuleOp module = input->getModule();
  if (llvm::Error error =
          checkRegisteredOps(module, options.inputFilename, config.toolName))
    return error;

  // The entry, and its signature before lowering erases it.
  std::string error;
  func::FuncOp entry =
      findEntry(module, options.entryName, options.inputFilename, error);
  if (!entry)
    return makeRunnerError(error);
  entryName = entry.getName().str();

  // Data-parallel steps: each argument's split from its annotations, then
  // the per-rank program.
  llvm::Expected<std::unique_ptr<RankSession>> created =
      RankSession::create(config.toolName, communicates(module), argc, argv);
  if (!created)
    return created.takeError();
  session = std::move(*created);
  llvm::Expected<RankEntry> prepared = prepareRankEntry(
      config.toolName, module, entry, options.inputFilename, *session);
  if (!prepared)
    return prepared.takeError();
  ranked = std::move(*prepared);
  if (llvm::Error error = checkIndexBounds(entry, ranked.argSpecs))
    return error;
  eraseUnreachableFunctions(module, entry);
  recordHeldArenas(module);
  return checkStorageSizes(module, options.inputFilename,
                           getPhysicalMemoryBytes());
}

llvm::Error RunnerDriver::lower() {
  ModuleOp module = input->getModule();
  return lowerModule(
      module, options.pipeline, options.inputFilename,
      [&](PassManager &pm) { config.buildDefaultPipeline(pm, module); });
}

llvm::Expected<JITEntry> RunnerDriver::compile() {
  ModuleOp module = input->getModule();
  auto lowered = module.lookupSymbol<LLVM::LLVMFuncOp>(entryName);
  if (!lowered)
    return makeRunnerError(
        "after lowering, '" + entryName +
        "' is not an llvm.func: the pipeline must lower to the LLVM dialect");
  if (auto arena = lowered->getAttrOfType<IntegerAttr>(
          RematDialect::kArenaBytesAttrName))
    arenaBytes = arena.getInt();
  llvm::Expected<JITLinkage> linkage = config.prepareJIT(*session);
  if (!linkage)
    return linkage.takeError();
  linkage->symbols.append(getMPISymbols());
  SmallVector<StringRef> libs(linkage->sharedLibs.begin(),
                              linkage->sharedLibs.end());
  return compileEntry(module, entryName, options.optLevel, libs,
                      linkage->symbols);
}

llvm::Error RunnerDriver::runAndReport(JITEntry &jit, double compileMs) {
  RunReport report;
  report.file = options.inputFilename;
  report.entry = entryName;
  report.device = config.device.str();
  if (session->isDistributed()) {
    report.rank = session->getRank();
    report.ranks = session->getSize();
  }
  report.resultSpecs = ranked.resultSpecs;
  report.printValues = options.printResults;
  RunContext context{jit, ranked, *session, options, arenaBytes};
  if (llvm::Error error = config.runEntry(context, report))
    return error;
  report.addFigure({"compile_ms",
                    llvm::formatv("{0:F1}", compileMs).str(),
                    {{"compile_ms", compileMs}}});
  return printRunReport(*session, report, options.emitJson);
}

/// Prints `error` as "<tool>: error: <message>" and returns the exit status
/// it carries (1 unless a RunnerError says otherwise).
static int reportError(llvm::StringRef tool, llvm::Error error) {
  int exitCode = 1;
  llvm::handleAllErrors(
      std::move(error),
      [&](const RunnerError &runnerError) {
        exitCode = runnerError.getExitCode();
        llvm::errs() << tool << ": error: ";
        runnerError.log(llvm::errs());
        llvm::errs() << "\n";
      },
      [&](const llvm::ErrorInfoBase &other) {
        llvm::errs() << tool << ": error: " << other.message() << "\n";
      });
  return exitCode;
}

int remat::runnerMain(int argc, char **argv, const RunnerConfig &config) {
  llvm::InitLLVM initLLVM(argc, argv);
  mlir::registerAllPasses();
  remat::registerAllPasses();
  RunnerOptions options(*config.category, config.pipelineHelp,
                        config.printLoweredHelp);
  RunnerDriver driver(config, options);
  llvm::Error error = options.parseCommandLine(argc, argv, config.overview);
  if (!error)
    error = driver.run(argc, argv);
  if (!error)
    return 0;
  driver.abandon();
  return reportError(config.toolName, std::move(error));
}
