//===- RunnerMain.cpp - the main every step runner shares -----------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Runner/RunnerMain.h"

#include "remat/Analysis/Storage.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/InitAllPasses.h"
#include "remat/Runner/IndexBounds.h"
#include "remat/Support/Diagnostics.h"
#include "remat/Transforms/PlanArena.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <unistd.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

using namespace mlir;
using namespace remat;

namespace cl = llvm::cl;

//===----------------------------------------------------------------------===//
// Options and input
//===----------------------------------------------------------------------===//

RunnerOptions::RunnerOptions(cl::OptionCategory &category,
                             StringRef pipelineHelp, StringRef printLoweredHelp)
    : category(category),
      inputFilename(cl::Positional, cl::desc("<input .mlir file>"),
                    cl::init("-"), cl::cat(category)),
      pipeline("pipeline", cl::desc(pipelineHelp), cl::init(""),
               cl::cat(category)),
      entryName("entry",
                cl::desc("Function to run (default: the first public function "
                         "with a body that is not 'main')"),
                cl::init(""), cl::cat(category)),
      emitJson("json", cl::desc("Print one JSON object on stdout"),
               cl::init(false), cl::cat(category)),
      repeatCount(
          "repeat",
          cl::desc("Run the entry N times (fresh inputs each time); times are "
                   "reported as min and median, the peak as the maximum"),
          cl::init(1), cl::cat(category)),
      printResults("print-results", cl::desc("Also print every result value"),
                   cl::init(false), cl::cat(category)),
      optLevel("opt-level",
               cl::desc("LLVM optimization level of the host JIT (0-3)"),
               cl::init(2), cl::cat(category)),
      printLowered("print-lowered", cl::desc(printLoweredHelp), cl::init(false),
                   cl::cat(category)) {}

llvm::Error RunnerOptions::parseCommandLine(int argc, char **argv,
                                            StringRef overview) {
  cl::HideUnrelatedOptions(category);
  if (!cl::ParseCommandLineOptions(argc, argv, overview, &llvm::errs()))
    return makeRunnerError("bad command line (see above; --help lists the "
                           "options)");
  if (repeatCount == 0)
    return makeRunnerError("--repeat must be at least 1");
  if (optLevel > 3)
    return makeRunnerError("--opt-level must be 0, 1, 2 or 3");
  return llvm::Error::success();
}

/// Registers what a runner parses: every upstream dialect and extension and
/// the remat dialect (the caller adds the LLVM IR translations it needs).
static void registerRunnerDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registry.insert<RematDialect>();
}

namespace {

/// The input of a runner: a context holding the runner dialects (see
/// registerRunnerDialects), the builtin and LLVM dialects' LLVM IR
/// translations (every JIT needs them) and those `registerTranslations` adds
/// (may be null), the module parsed from a file, and the handler that prints
/// the diagnostics of the context with their locations in the file on stderr
/// (also while the module is lowered).
class RunnerInput {
public:
  /// Opens and parses `filename` ("-" is stdin). Fails when the file is
  /// missing or does not parse (the parser's diagnostics say where). Ops of
  /// unregistered dialects parse, for checkRegisteredOps to refuse them.
  static llvm::Expected<std::unique_ptr<RunnerInput>>
  open(llvm::StringRef filename,
       llvm::function_ref<void(mlir::DialectRegistry &)> registerTranslations);

  mlir::ModuleOp getModule() { return *module; }

private:
  RunnerInput() = default;

  std::unique_ptr<mlir::MLIRContext> context;
  std::unique_ptr<llvm::SourceMgr> sourceMgr;
  std::unique_ptr<mlir::SourceMgrDiagnosticHandler> diagHandler;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

} // namespace

llvm::Expected<std::unique_ptr<RunnerInput>> RunnerInput::open(
    StringRef filename,
    function_ref<void(DialectRegistry &)> registerTranslations) {
  std::unique_ptr<RunnerInput> input(new RunnerInput());
  DialectRegistry registry;
  registerRunnerDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  if (registerTranslations)
    registerTranslations(registry);
  input->context = std::make_unique<MLIRContext>(registry);
  input->context->loadAllAvailableDialects();
  // Parsed, so that checkRegisteredOps can name them at their location.
  input->context->allowUnregisteredDialects();
  input->sourceMgr = std::make_unique<llvm::SourceMgr>();
  input->diagHandler = std::make_unique<SourceMgrDiagnosticHandler>(
      *input->sourceMgr, input->context.get());
  registerLongLineDiagnosticHandler(input->context.get());
  if (filename != "-" && !llvm::sys::fs::exists(filename))
    return makeRunnerError("cannot open '" + filename + "': no such file");
  std::string openError;
  auto file = openInputFile(filename, &openError);
  if (!file)
    return makeRunnerError("cannot open '" + filename + "': " + openError);
  input->sourceMgr->AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  input->module =
      parseSourceFile<ModuleOp>(*input->sourceMgr, input->context.get());
  if (!input->module)
    return makeRunnerError("could not parse '" + filename + "'");
  return std::move(input);
}

//===----------------------------------------------------------------------===//
// The entry, and what the runners refuse before lowering
//===----------------------------------------------------------------------===//

/// The entry named `name` in `module`, or null with `error` set.
static func::FuncOp findNamedEntry(ModuleOp module, StringRef name,
                                   StringRef source, std::string &error) {
  auto entry = module.lookupSymbol<func::FuncOp>(name);
  if (!entry && module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    error = ("entry '" + name +
             "' is already in the LLVM dialect; the runner needs the "
             "func.func form (tensors or memrefs) to build its inputs")
                .str();
  else if (!entry)
    error = ("no function named '" + name + "' in '" + source + "'").str();
  else if (entry.isExternal())
    error = ("entry '" + name + "' has no body").str();
  return error.empty() ? entry : nullptr;
}

/// The functions of `module` that a call in another function names, except
/// in `main` (a driver calling the step, never an entry itself).
static llvm::StringSet<> getCalledFunctions(ModuleOp module) {
  llvm::StringSet<> called;
  module.walk([&](CallOpInterface call) {
    auto callee =
        llvm::dyn_cast_if_present<SymbolRefAttr>(call.getCallableForCallee());
    auto caller = call->getParentOfType<func::FuncOp>();
    StringRef callerName = caller ? caller.getName() : "";
    if (callee && callerName != "main" &&
        callerName != callee.getLeafReference())
      called.insert(callee.getLeafReference());
  });
  return called;
}

/// "@a, @b": the names of `funcs`.
static std::string joinNames(ArrayRef<func::FuncOp> funcs) {
  std::string names;
  llvm::raw_string_ostream os(names);
  llvm::interleaveComma(
      funcs, os, [&](func::FuncOp func) { os << "@" << func.getName(); });
  return names;
}

/// The entry named `name`; when `name` is empty, the public func.func with a
/// body other than `main` that no other function calls, if exactly one is
/// (its public helpers are no candidates). Sets `error` (naming `source`, the
/// input file, and the candidates when there are several) and returns null
/// on failure.
static func::FuncOp findEntry(ModuleOp module, StringRef name, StringRef source,
                              std::string &error) {
  if (!name.empty())
    return findNamedEntry(module, name, source, error);
  SmallVector<func::FuncOp> publics;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() && func.isPublic() && func.getName() != "main")
      publics.push_back(func);
  if (publics.empty()) {
    error = ("no entry function: '" + source +
             "' has no public func.func with a body other than 'main' (use "
             "--entry)")
                .str();
    return nullptr;
  }
  // A step's public helpers are called by it: they are no candidates.
  llvm::StringSet<> called = getCalledFunctions(module);
  SmallVector<func::FuncOp> roots(
      llvm::make_filter_range(publics, [&](func::FuncOp func) {
        return !called.contains(func.getName());
      }));
  if (roots.size() == 1)
    return roots.front();
  error = ("several possible entries in '" + source +
           "': " + joinNames(roots.empty() ? publics : roots) +
           (roots.empty() ? " (public functions with a body, each called by "
                            "another)"
                          : " (public functions with a body that no other "
                            "function calls)") +
           "; name one with --entry")
              .str();
  return nullptr;
}

/// The physical memory of this machine in bytes (0 when unknown).
static uint64_t getPhysicalMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || pageSize <= 0)
    return 0;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize);
}

/// The bytes of `value` when it is of a static tensor or memref type.
static std::optional<int64_t> getStaticBytes(Value value,
                                             const DataLayout &layout) {
  auto type = dyn_cast<ShapedType>(value.getType());
  if (!type || !type.hasStaticShape() ||
      !isa<TensorType, BaseMemRefType>(type))
    return std::nullopt;
  return getStorageBytes(type, layout);
}

/// Fails, after a located error at the first op of each name, when `module`
/// holds ops that no registered dialect defines (custom ops of another
/// stack): `tool` cannot lower or run them. `filename` names the input.
/// RunnerInput::open parses such ops so that this can name them.
static llvm::Error checkRegisteredOps(ModuleOp module, StringRef filename,
                                      StringRef tool) {
  llvm::StringSet<> reported;
  module.walk([&](Operation *op) {
    if (!op->isRegistered() &&
        reported.insert(op->getName().getStringRef()).second)
      mlir::emitError(op->getLoc())
          << "unregistered op '" << op->getName() << "': " << tool
          << " lowers and runs only ops of registered dialects; replace it "
             "(with a linalg.generic, or a call to a func.func with a body) "
             "before running";
  });
  if (reported.empty())
    return llvm::Error::success();
  return makeRunnerError("'" + filename +
                         "' holds unregistered ops (see the diagnostics "
                         "above): " +
                         tool + " does not accept them");
}

/// Fails, after a located error at each, when a value of `module` (an op
/// result or a block argument of a static tensor or memref type) takes more
/// bytes than the storage model can count (2^63: its lowering would compute
/// a wrapped-around allocation size) or than `limitBytes` (the memory of the
/// machine: its allocation would fail inside the JIT'd code, which does not
/// check). `filename` names the input.
static llvm::Error checkStorageSizes(ModuleOp module, StringRef filename,
                                     uint64_t limitBytes) {
  bool tooLarge = false;
  DataLayout layout = DataLayout::closest(module);
  auto report = [&](Value value, Location loc, const Twine &what) {
    std::optional<int64_t> bytes = getStaticBytes(value, layout);
    if (!bytes || (!isSaturated(*bytes) &&
                   (!limitBytes || static_cast<uint64_t>(*bytes) <= limitBytes)))
      return;
    InFlightDiagnostic diag = mlir::emitError(loc)
                              << what << " of type " << value.getType();
    if (isSaturated(*bytes))
      diag << " takes more than 2^63 bytes: it cannot be allocated";
    else
      diag << " takes " << *bytes << " bytes, more than the " << limitBytes
           << " bytes of memory of this machine";
    tooLarge = true;
  };
  module.walk([&](Operation *op) {
    for (OpResult result : op->getResults())
      report(result, op->getLoc(),
             "result #" + Twine(result.getResultNumber()));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          report(arg, arg.getLoc(),
                 "block argument #" + Twine(arg.getArgNumber()));
  });
  if (tooLarge)
    return makeRunnerError("'" + filename +
                           "' holds values too large to allocate (see the "
                           "diagnostics above)");
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// The driver
//===----------------------------------------------------------------------===//

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
  /// remat.arena_bytes and remat.host_copies of the lowered entry
  /// (RunContext::arenaBytes, RunContext::hostCopies).
  int64_t arenaBytes = 0;
  llvm::SmallVector<int64_t, 3> hostCopies;
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
  if (auto copies = lowered->getAttrOfType<DenseI64ArrayAttr>(
          RematDialect::kHostCopiesAttrName))
    hostCopies.assign(copies.asArrayRef().begin(), copies.asArrayRef().end());
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
  RunContext context{jit, ranked, *session, options, arenaBytes, hostCopies};
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
