//===- PlanArena.cpp - one arena for a bufferized function ----------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Implements `remat-plan-arena` (include/remat/Transforms/PlanArena.h): which
// allocations may live in the arena, their live ranges from the memory
// analysis, the offsets from Solver/Arena/Arena.h, and the rewrite into views.
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/PlanArena.h"

#include "remat/Analysis/CostModel.h"
#include "remat/Analysis/MemoryAnalysis.h"
#include "remat/Analysis/Storage.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Transforms/FunctionFilter.h"
#include "remat/Transforms/PassOptions.h"
#include "remat/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/BufferViewFlowAnalysis.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/Support/FormatVariadic.h"

namespace remat {
#define GEN_PASS_DEF_REMATPLANARENA
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

//===----------------------------------------------------------------------===//
// Bounds of dynamic sizes
//===----------------------------------------------------------------------===//

/// The bound a `cf.assert` at the top of `func` puts on dimension `dim` of
/// argument `arg` (`dim(arg, d) <= C`, what guardDynamicSizes writes).
static std::optional<int64_t> getGuard(func::FuncOp func, BlockArgument arg,
                                       int64_t dim) {
  for (auto check : func.getBody().front().getOps<cf::AssertOp>()) {
    auto cmp = check.getArg().getDefiningOp<arith::CmpIOp>();
    if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::ule)
      continue;
    Operation *dimOp = cmp.getLhs().getDefiningOp();
    if (!isa_and_nonnull<memref::DimOp, tensor::DimOp>(dimOp) ||
        dimOp->getOperand(0) != arg)
      continue;
    std::optional<int64_t> index = getConstantIntValue(dimOp->getOperand(1));
    std::optional<int64_t> bound = getConstantIntValue(cmp.getRhs());
    if (index == dim && bound)
      return bound;
  }
  return std::nullopt;
}

/// A bound on the dynamic size `size`: a constant, or the size of a
/// dimension of an argument that the dynamic-size guard checks.
static std::optional<int64_t> getSizeBound(func::FuncOp func, Value size) {
  if (std::optional<int64_t> constant = getConstantIntValue(size))
    return constant;
  Operation *dimOp = size.getDefiningOp();
  if (!isa_and_nonnull<memref::DimOp, tensor::DimOp>(dimOp))
    return std::nullopt;
  auto arg = dyn_cast<BlockArgument>(dimOp->getOperand(0));
  std::optional<int64_t> dim = getConstantIntValue(dimOp->getOperand(1));
  if (!arg || !dim || arg.getOwner() != &func.getBody().front())
    return std::nullopt;
  return getGuard(func, arg, *dim);
}

/// The SSA name of `value` as the printer writes it (`%dim`).
static std::string getValueName(func::FuncOp func, Value value) {
  AsmState state(func, OpPrintingFlags().useLocalScope());
  std::string name;
  llvm::raw_string_ostream os(name);
  value.printAsOperand(os, state);
  return name;
}

//===----------------------------------------------------------------------===//
// The planner
//===----------------------------------------------------------------------===//

namespace {

/// A `memref.alloc` and why it keeps its own allocation (empty: it goes
/// into the arena).
struct Candidate {
  memref::AllocOp alloc;
  std::string reason;
};

/// The allocations a value may come from: candidates, and whether anything
/// else (an argument, a call result, a global, a select) may be it.
struct Origins {
  llvm::SmallPtrSet<Operation *, 4> allocs;
  bool other = false;
};

class ArenaPlanner {
public:
  ArenaPlanner(func::FuncOp func, const PlanArenaOptions &options)
      : func(func), options(options), aliases(func) {}

  FailureOr<ArenaSummary> run();

private:
  LogicalResult collect();
  std::string getReason(memref::AllocOp alloc);
  LogicalResult checkDynamicSizes(memref::AllocOp alloc);
  Origins getOrigins(Value value);
  void exclude(Operation *alloc, const Twine &reason);
  void excludeFrees();
  bool excludeReturns();
  FailureOr<ArenaPlan> plan(ArenaSummary &summary);
  void rewrite(const ArenaPlan &arena);
  void report(const ArenaSummary &summary);

  func::FuncOp func;
  const PlanArenaOptions &options;
  BufferViewFlowAnalysis aliases;
  std::optional<int64_t> hint;
  SmallVector<Candidate> candidates;
  DenseMap<Operation *, unsigned> candidateOf;
  /// Deallocations that free exactly one candidate.
  SmallVector<std::pair<memref::DeallocOp, Operation *>> frees;
  /// The planned candidates, in the problem's order, and their offsets.
  SmallVector<memref::AllocOp> planned;
  /// The alignment of every offset and of the arena.
  int64_t alignment = kDefaultArenaAlignment;
  bool returnsArena = false;
};

} // namespace

/// The op between `op` and `func` whose region may run more than once (a
/// loop, or an op we know nothing of), if any.
static Operation *getRepeatingAncestor(Operation *op, func::FuncOp func) {
  for (Operation *parent = op->getParentOp(); parent && parent != func;
       parent = parent->getParentOp())
    if (!isa<scf::IfOp, scf::ExecuteRegionOp, scf::IndexSwitchOp>(parent))
      return parent;
  return nullptr;
}

LogicalResult ArenaPlanner::checkDynamicSizes(memref::AllocOp alloc) {
  if (alloc.getDynamicSizes().empty() || hint || !options.requireHint)
    return success();
  MemRefType type = alloc.getType();
  unsigned operand = 0;
  for (int64_t dim = 0; dim < type.getRank(); ++dim) {
    if (!type.isDynamicDim(dim))
      continue;
    Value size = alloc.getDynamicSizes()[operand++];
    return alloc.emitError()
           << "size " << getValueName(func, size) << " of dimension " << dim
           << " is dynamic and '" << func.getSymName()
           << "' records no dynamic-size hint, so the arena cannot bound "
              "this buffer (plan the step with dynamic-size-hint=N, or "
              "lower it with arena=false)";
  }
  return success();
}

std::string ArenaPlanner::getReason(memref::AllocOp alloc) {
  MemRefType type = alloc.getType();
  if (Operation *loop = getRepeatingAncestor(alloc, func))
    return ("it is allocated inside '" + loop->getName().getStringRef() +
            "', which may run it more than once")
        .str();
  if (!type.getLayout().isIdentity())
    return "its layout is not the identity, which a view into the arena "
           "must have";
  if (type.getMemorySpace())
    return "it is not in the default memory space, the arena's";
  for (Value size : alloc.getDynamicSizes()) {
    if (!hint)
      return "its size " + getValueName(func, size) +
             " is dynamic and the function records no dynamic-size hint";
    std::optional<int64_t> bound = getSizeBound(func, size);
    if (!bound || *bound < 0 || *bound > *hint)
      return "its dynamic size " + getValueName(func, size) +
             " is not bounded by the dynamic-size hint (only dimensions of "
             "the arguments are checked against it)";
  }
  return "";
}

LogicalResult ArenaPlanner::collect() {
  hint = getDynamicSizeHint(func);
  bool failedAny = false;
  func.walk([&](memref::AllocOp alloc) {
    if (failed(checkDynamicSizes(alloc))) {
      failedAny = true;
      return;
    }
    candidateOf[alloc] = candidates.size();
    candidates.push_back({alloc, getReason(alloc)});
  });
  return failure(failedAny);
}

/// The values `value` may be a view of: arguments of `func`'s body and
/// results of ops that are no views (allocations, calls, selects, ...).
static SmallVector<Value> getRoots(BufferViewFlowAnalysis &aliases,
                                   func::FuncOp func, Value value) {
  SmallVector<Value> roots;
  for (Value origin : aliases.resolveReverse(value)) {
    // Block arguments of nested regions get their values from ops whose
    // operands are in the set too.
    if (auto arg = dyn_cast<BlockArgument>(origin)) {
      if (arg.getOwner() == &func.getBody().front())
        roots.push_back(origin);
      continue;
    }
    if (!isa<ViewLikeOpInterface>(origin.getDefiningOp()))
      roots.push_back(origin);
  }
  return roots;
}

Origins ArenaPlanner::getOrigins(Value value) {
  Origins origins;
  for (Value root : getRoots(aliases, func, value)) {
    Operation *def = root.getDefiningOp();
    if (def && candidateOf.count(def))
      origins.allocs.insert(def);
    else
      origins.other = true;
  }
  return origins;
}

void ArenaPlanner::exclude(Operation *alloc, const Twine &reason) {
  Candidate &candidate = candidates[candidateOf.lookup(alloc)];
  if (candidate.reason.empty())
    candidate.reason = reason.str();
}

/// A deallocation is removed when it frees exactly one candidate; a buffer
/// that another free may release together with other buffers stays out.
void ArenaPlanner::excludeFrees() {
  func.walk([&](Operation *op) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return;
    for (Value operand : op->getOperands()) {
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffectsOnValue(operand, instances);
      if (llvm::none_of(instances, [](const auto &instance) {
            return isa<MemoryEffects::Free>(instance.getEffect());
          }))
        continue;
      Origins origins = getOrigins(operand);
      auto dealloc = dyn_cast<memref::DeallocOp>(op);
      if (dealloc && !origins.other && origins.allocs.size() == 1) {
        frees.push_back({dealloc, *origins.allocs.begin()});
        continue;
      }
      for (Operation *alloc : origins.allocs)
        exclude(alloc, llvm::formatv("it may be freed by '{0}' together "
                                     "with another buffer",
                                     op->getName()));
    }
  });
}

/// Returned candidates live in the arena when the caller may own it;
/// returns whether an exclusion changed anything (exclusions can make other
/// returns mixed).
bool ArenaPlanner::excludeReturns() {
  bool changed = false;
  returnsArena = false;
  Operation *terminator = func.getBody().front().getTerminator();
  for (Value operand : terminator->getOperands()) {
    if (!isa<BaseMemRefType>(operand.getType()))
      continue;
    Origins origins = getOrigins(operand);
    bool mixed = origins.other;
    for (Operation *alloc : origins.allocs)
      mixed |= !candidates[candidateOf.lookup(alloc)].reason.empty();
    for (Operation *alloc : origins.allocs) {
      Candidate &candidate = candidates[candidateOf.lookup(alloc)];
      if (!candidate.reason.empty())
        continue;
      if (!options.resultsInArena || options.callersFreeEach || mixed) {
        changed = true;
        candidate.reason =
            !options.resultsInArena
                ? "it is returned and results-in-arena is off"
            : options.callersFreeEach
                ? "it is returned to a caller in the module that may free "
                  "the results one by one"
                : "it is returned where another buffer may be";
        continue;
      }
      returnsArena = true;
    }
  }
  return changed;
}

/// The bytes the rematerialization plan of `func` leaves the arena: its
/// `remat.planned_arena`, which counts the arguments, minus the arguments'
/// bytes; -1 when there is none or an argument's size is unknown.
static int64_t getArenaTarget(func::FuncOp func, std::optional<int64_t> hint) {
  auto planned =
      func->getAttrOfType<IntegerAttr>(RematDialect::kPlannedArenaAttrName);
  if (!planned)
    return -1;
  int64_t target = planned.getInt();
  for (Type type : func.getArgumentTypes()) {
    if (!isa<BaseMemRefType>(type))
      continue;
    std::optional<int64_t> bytes = getStorageBytes(type, func, hint);
    if (!bytes || isSaturated(*bytes))
      return -1;
    target -= *bytes;
  }
  return std::max<int64_t>(target, -1);
}

FailureOr<ArenaPlan> ArenaPlanner::plan(ArenaSummary &summary) {
  MemoryAnalysisOptions analysisOptions;
  analysisOptions.countArguments = false;
  // Without a hint, dynamic buffers stay out of the arena: any size serves
  // for the live ranges of the others.
  analysisOptions.dynamicSizeHint = hint.value_or(1);
  MemoryAnalysis analysis(func, analysisOptions);
  if (failed(analysis.emitError()))
    return failure();
  auto isPlanned = [&](Operation *op) {
    auto it = candidateOf.find(op);
    return it != candidateOf.end() && candidates[it->second].reason.empty();
  };
  // Buffers that ask for more alignment (buffer-alignment=) get it.
  alignment = options.alignment;
  for (Candidate &candidate : candidates)
    if (std::optional<uint64_t> asked = candidate.alloc.getAlignment();
        asked && candidate.reason.empty() && llvm::isPowerOf2_64(*asked))
      alignment = std::max<int64_t>(alignment, *asked);
  SmallVector<const BufferLiveRange *> selected;
  ArenaProblem problem = getArenaProblem(
      analysis, alignment,
      [&](const BufferLiveRange &buffer) {
        return buffer.kind == BufferLiveRange::Kind::Allocation &&
               isPlanned(buffer.op);
      },
      &selected);
  for (const BufferLiveRange *buffer : selected)
    planned.push_back(cast<memref::AllocOp>(buffer->op));
  ArenaOptions arenaOptions;
  arenaOptions.exact = options.effort == ArenaEffort::Exact;
  if (options.effort == ArenaEffort::Greedy)
    arenaOptions.searchIterations = 0;
  arenaOptions.exactOptions.nodeLimit = options.exactNodes;
  arenaOptions.targetBytes = getArenaTarget(func, hint);
  arenaOptions.closeShare = kArenaCloseShare;
  ArenaPlan arena = planArena(problem, arenaOptions);
  if (!arena.valid()) {
    InFlightDiagnostic diag = func.emitError()
                              << "cannot plan the arena of '"
                              << func.getSymName() << "': " << arena.error;
    if (problem.maxBytes < kMaxTotalBytes)
      diag << " (the most its " << llvm::Log2_64(problem.maxBytes + 1) + 1
           << "-bit index type addresses)";
    else
      diag << " (2^62, the largest byte count the memory model represents)";
    return diag;
  }
  // Empty buffers (the analysis tracks none) sit at offset 0.
  for (const Candidate &candidate : candidates)
    if (candidate.reason.empty() &&
        !llvm::is_contained(planned, candidate.alloc)) {
      planned.push_back(candidate.alloc);
      arena.offsets.push_back(0);
    }
  summary.arenaBytes = arena.bytes;
  summary.lowerBound = arena.lowerBound;
  summary.targetBytes = arenaOptions.targetBytes;
  summary.planned = planned.size();
  summary.unplanned = candidates.size() - planned.size();
  summary.planner = arena.planner;
  summary.optimal = arena.optimal;
  summary.returned = returnsArena;
  for (Value operand : func.getBody().front().getTerminator()->getOperands()) {
    bool inArena = false;
    if (isa<BaseMemRefType>(operand.getType())) {
      Origins origins = getOrigins(operand);
      inArena = !origins.other && !origins.allocs.empty() &&
                llvm::all_of(origins.allocs, isPlanned);
    }
    summary.arenaResults.push_back(inArena);
  }
  return arena;
}

void ArenaPlanner::rewrite(const ArenaPlan &arena) {
  Block &entry = func.getBody().front();
  auto builder = OpBuilder::atBlockBegin(&entry);
  Location loc = func.getLoc();
  auto type = MemRefType::get({arena.bytes}, builder.getI8Type());
  // malloc and cuMemAlloc align to 16 bytes at least; more must be asked.
  IntegerAttr alignmentAttr;
  if (alignment > kDefaultArenaAlignment)
    alignmentAttr = builder.getI64IntegerAttr(alignment);
  Value base = memref::AllocOp::create(builder, loc, type, alignmentAttr);
  for (auto [dealloc, alloc] : frees)
    if (llvm::is_contained(planned, alloc))
      dealloc.erase();
  for (auto [alloc, offset] : llvm::zip(planned, arena.offsets)) {
    builder.setInsertionPoint(alloc);
    Value shift =
        arith::ConstantIndexOp::create(builder, alloc.getLoc(), offset);
    auto view = memref::ViewOp::create(builder, alloc.getLoc(), alloc.getType(),
                                       base, shift, alloc.getDynamicSizes());
    alloc.getResult().replaceAllUsesWith(view.getResult());
    alloc.erase();
  }
  if (returnsArena)
    return;
  builder.setInsertionPoint(entry.getTerminator());
  memref::DeallocOp::create(builder, loc, base);
}

void ArenaPlanner::report(const ArenaSummary &summary) {
  for (Candidate &candidate : candidates)
    if (!candidate.reason.empty())
      candidate.alloc.emitRemark()
          << "keeps its own allocation: " << candidate.reason;
  InFlightDiagnostic remark = mlir::emitRemark(func.getLoc());
  if (summary.planned == 0) {
    remark << "arena of 0 bytes: no buffer of '" << func.getSymName()
           << "' to place";
  } else {
    remark << "arena of " << summary.arenaBytes << " bytes for "
           << summary.planned << " buffer(s) of '" << func.getSymName() << "', "
           << summary.planner << (summary.optimal ? ", optimal" : "")
           << " (the most they hold "
           << "at once: " << summary.lowerBound << " bytes)";
  }
  if (summary.targetBytes >= 0 && summary.arenaBytes > summary.targetBytes)
    remark << "; " << summary.arenaBytes - summary.targetBytes
           << " bytes above the " << summary.targetBytes
           << " its remat.planned_arena leaves after the arguments";
  if (summary.unplanned > 0)
    remark << "; " << summary.unplanned
           << " buffer(s) keep their own allocation";
  if (summary.returned)
    remark << "; the results live in the arena, which the caller frees once";
}

FailureOr<ArenaSummary> ArenaPlanner::run() {
  if (failed(collect()))
    return failure();
  excludeFrees();
  while (excludeReturns()) {
  }
  ArenaSummary summary;
  FailureOr<ArenaPlan> arena = plan(summary);
  if (failed(arena))
    return failure();
  if (options.remarks)
    report(summary);
  // Planning nothing writes nothing: a runner takes remat.arena_bytes for
  // an arena that runs.
  if (planned.empty())
    return summary;
  rewrite(*arena);
  Builder builder(func.getContext());
  func->setAttr(RematDialect::kArenaBytesAttrName,
                builder.getI64IntegerAttr(summary.arenaBytes));
  // The arena it records replaces the one it was to meet.
  func->removeAttr(RematDialect::kPlannedArenaAttrName);
  return summary;
}

std::optional<int64_t> remat::getHeldArenaBytes(func::FuncOp func) {
  if (func.isExternal())
    return std::nullopt;
  for (auto alloc : func.getBody().front().getOps<memref::AllocOp>()) {
    MemRefType type = alloc.getType();
    if (type.getRank() != 1 || !type.hasStaticShape() ||
        !type.getElementType().isInteger(8))
      continue;
    if (llvm::any_of(alloc->getUsers(), llvm::IsaPred<memref::ViewOp>))
      return type.getNumElements();
  }
  return std::nullopt;
}

FailureOr<ArenaSummary>
remat::planFunctionArena(func::FuncOp func, const PlanArenaOptions &options) {
  if (func.isExternal())
    return ArenaSummary();
  if (!func.getBody().hasOneBlock()) {
    if (!options.remarks)
      return ArenaSummary();
    mlir::emitRemark(func.getLoc())
        << "arena not planned: '" << func.getSymName() << "' has "
        << func.getBody().getBlocks().size()
        << " blocks; its buffers keep their own allocations";
    return ArenaSummary();
  }
  return ArenaPlanner(func, options).run();
}

//===----------------------------------------------------------------------===//
// Callers in the module
//===----------------------------------------------------------------------===//

/// Whether `op` may free a memref operand: calls do not (the ABI the
/// ownership-based deallocation follows: a callee neither frees nor keeps
/// its memref arguments), nor do region ops and terminators themselves.
static bool freesMemory(Operation *op) {
  if (isa<CallOpInterface, RegionBranchOpInterface>(op) ||
      op->hasTrait<OpTrait::IsTerminator>())
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return !isMemoryEffectFree(op);
  return effects.hasEffect<MemoryEffects::Free>();
}

/// The value `value` is a view of through a chain of views, or itself.
static Value getViewRoot(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    if (view.getViewSource() == value)
      break;
    else
      value = view.getViewSource();
  return value;
}

/// Adds to `frees` the deallocations of `value` and of its views; fails
/// when one of them escapes through a terminator or another free.
static LogicalResult collectViewFrees(Value value,
                                      SmallVectorImpl<Operation *> &frees) {
  for (Operation *user : value.getUsers()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(user);
        view && view.getViewSource() == value) {
      for (Value result : user->getResults())
        if (isa<BaseMemRefType>(result.getType()) &&
            failed(collectViewFrees(result, frees)))
          return failure();
      continue;
    }
    if (user->hasTrait<OpTrait::IsTerminator>())
      return failure();
    if (!freesMemory(user))
      continue;
    if (!isa<memref::DeallocOp>(user))
      return failure();
    if (!llvm::is_contained(frees, user))
      frees.push_back(user);
  }
  return success();
}

std::optional<SmallVector<Operation *>>
remat::getMergeableResultFrees(CallOpInterface call) {
  if (!call->getParentOfType<func::FuncOp>())
    return std::nullopt;
  SmallVector<Operation *> frees;
  for (Value result : call->getResults())
    if (isa<BaseMemRefType>(result.getType()) &&
        failed(collectViewFrees(result, frees)))
      return std::nullopt;
  return frees;
}

void remat::mergeResultFrees(CallOpInterface call, ArrayRef<Operation *> frees,
                             ArrayRef<bool> arenaResults) {
  auto caller = call->getParentOfType<func::FuncOp>();
  Block &body = caller.getBody().front();
  SmallVector<Operation *> merged;
  Operation *last = nullptr;
  for (Operation *free : frees) {
    Value root = getViewRoot(free->getOperand(0));
    if (!arenaResults[cast<OpResult>(root).getResultNumber()])
      continue;
    merged.push_back(free);
    Operation *top = body.findAncestorOpInBlock(*free);
    if (!last || last->isBeforeInBlock(top))
      last = top;
  }
  if (!last)
    return;
  // Any result in the arena frees it: its allocated pointer is the arena's.
  auto result = llvm::find(arenaResults, true) - arenaResults.begin();
  OpBuilder builder(last->getContext());
  builder.setInsertionPointAfter(last);
  memref::DeallocOp::create(builder, call.getLoc(), call->getResult(result));
  for (Operation *free : merged)
    free->erase();
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
/// The calls of a function in the module and the frees of their results.
struct CallSites {
  SmallVector<std::pair<CallOpInterface, SmallVector<Operation *>>> calls;
  /// Some caller may free the results one by one.
  bool freeEach = false;
};

/// The call sites of `func` in `module`.
CallSites getCallSites(func::FuncOp func, ModuleOp module) {
  CallSites sites;
  std::optional<SymbolTable::UseRange> uses =
      SymbolTable::getSymbolUses(func, module);
  if (!uses)
    sites.freeEach = true;
  for (const SymbolTable::SymbolUse &use :
       uses ? *uses : SymbolTable::UseRange({})) {
    auto call = dyn_cast<CallOpInterface>(use.getUser());
    std::optional<SmallVector<Operation *>> frees =
        call ? getMergeableResultFrees(call) : std::nullopt;
    if (!frees) {
      sites.freeEach = true;
      continue;
    }
    sites.calls.push_back({call, std::move(*frees)});
  }
  return sites;
}

struct PlanArenaPass : public BlankCheckedOptions<
                           remat::impl::RematPlanArenaBase<PlanArenaPass>> {
  using BlankCheckedOptions::BlankCheckedOptions;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (alignment < 1 || (alignment & (alignment - 1)) != 0) {
      mlir::emitError(module.getLoc())
          << getArgument() << ": alignment=" << alignment.getValue()
          << " is not a power of two";
      return signalPassFailure();
    }
    SmallVector<std::pair<func::FuncOp, CallSites>> selected;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      FailureOr<bool> isSelected =
          isSelectedFunction(func, functions, getArgument());
      if (failed(isSelected))
        return signalPassFailure();
      if (*isSelected)
        selected.push_back({func, getCallSites(func, module)});
    }
    bool failedAny = false;
    for (auto &[func, sites] : selected) {
      FailureOr<ArenaSummary> summary =
          planFunctionArena(func, getOptions(sites));
      if (failed(summary)) {
        failedAny = true;
        continue;
      }
      if (summary->returned)
        for (auto &[call, frees] : sites.calls)
          mergeResultFrees(call, frees, summary->arenaResults);
    }
    if (failedAny)
      signalPassFailure();
  }

  PlanArenaOptions getOptions(const CallSites &sites) const {
    PlanArenaOptions options;
    options.alignment = alignment;
    options.effort = effort;
    options.exactNodes = exactNodes;
    options.resultsInArena = resultsInArena;
    options.callersFreeEach = sites.freeEach;
    options.requireHint = requireHint;
    options.remarks = remarks;
    return options;
  }
};
} // namespace
