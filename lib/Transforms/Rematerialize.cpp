//===- Rematerialize.cpp - apply a rematerialization plan -----------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Applies the schedule stored as `remat.steps` attributes: clones, orders and
// rewires ops so that the program computes exactly what the plan says, and
// nothing else. See docs/Rematerialization.md.
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/Rematerialize.h"
#include "remat/Analysis/CostModel.h"
#include "remat/Transforms/FunctionFilter.h"
#include "remat/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

#include <deque>
#include <limits>

namespace remat {
#define GEN_PASS_DEF_REMATREMATERIALIZE
#define GEN_PASS_DEF_REMATSTRIPBARRIERS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

RematPlan remat::readRematPlan(func::FuncOp func) {
  RematPlan plan;
  if (func.isExternal())
    return plan;
  for (Operation &op : func.getBody().front()) {
    if (auto steps =
            op.getAttrOfType<DenseI64ArrayAttr>(RematDialect::kStepsAttrName))
      plan.steps[&op].assign(steps.asArrayRef().begin(),
                             steps.asArrayRef().end());
    if (auto pairs = op.getAttrOfType<DenseI64ArrayAttr>(
            RematDialect::kOffloadsAttrName))
      plan.offloads[&op].assign(pairs.asArrayRef().begin(),
                                pairs.asArrayRef().end());
  }
  return plan;
}

void remat::writeRematPlan(const RematPlan &plan) {
  for (const auto &[op, steps] : plan.steps)
    op->setAttr(RematDialect::kStepsAttrName,
                DenseI64ArrayAttr::get(op->getContext(), steps));
  for (const auto &[op, pairs] : plan.offloads)
    op->setAttr(RematDialect::kOffloadsAttrName,
                DenseI64ArrayAttr::get(op->getContext(), pairs));
}

/// Calls `fn(operand, definingOp)` for every operand of `op` and of the ops
/// nested in it whose value is defined by an op directly in `body`.
static void
forEachBodyOperand(Operation *op, Block &body,
                   llvm::function_ref<void(OpOperand &, Operation *)> fn) {
  op->walk([&](Operation *nested) {
    for (OpOperand &operand : nested->getOpOperands()) {
      Operation *def = operand.get().getDefiningOp();
      if (def && def->getBlock() == &body)
        fn(operand, def);
    }
  });
}

/// The values `op` reads from the function body, in a canonical order.
static SmallVector<Value> getBodyOperands(Operation *op, Block &body) {
  SmallVector<Value> values;
  forEachBodyOperand(op, body, [&](OpOperand &operand, Operation *) {
    values.push_back(operand.get());
  });
  for (Value operand : op->getOperands())
    if (isa<BlockArgument>(operand))
      values.push_back(operand);
  return values;
}

/// Gives every top-level op of `body` that writes into a `tensor.empty`, or
/// into a `bufferization.alloc_tensor` another op also uses, its own
/// `bufferization.alloc_tensor` right before it. The ops whose uses were all
/// replaced are added to `unused` (the caller erases them once nothing refers
/// to them). Returns the number of allocations created.
///
/// Two reasons, both found by measuring (docs/Rematerialization.md, §3-4):
///  * a clone writing into its original's `tensor.empty` made one-shot
///    bufferization give both ONE buffer, live from the original's
///    computation to the clone's last use, so the plan's free never happened;
///  * `cse` merges identical `tensor.empty` ops (they are pure), so every
///    writer of a given type ended up writing into the first one, hoisted to
///    the first writer: the measured peak of a rematerialized resnet8 rose
///    from 653,908 to 793,172 bytes against a budget of 666,772.
///    `alloc_tensor` has an allocation effect: `cse` never merges two, and
///    canonicalization only erases unused ones.
static int64_t giveOwnDestinations(Block &body,
                                   llvm::SetVector<Operation *> &unused) {
  int64_t created = 0;
  llvm::SetVector<Operation *> replaced;
  OpBuilder builder(body.getParentOp()->getContext());
  for (Operation &op : body.without_terminator()) {
    if (isa<tensor::EmptyOp, bufferization::AllocTensorOp>(op))
      continue;
    for (OpOperand &operand : op.getOpOperands()) {
      Operation *def = operand.get().getDefiningOp();
      if (!def || def->getBlock() != &body)
        continue;
      auto type = dyn_cast<RankedTensorType>(operand.get().getType());
      if (!type)
        continue;
      SmallVector<Value> dynamicSizes;
      if (auto empty = dyn_cast<tensor::EmptyOp>(def)) {
        dynamicSizes.assign(empty.getDynamicSizes().begin(),
                            empty.getDynamicSizes().end());
      } else if (auto alloc = dyn_cast<bufferization::AllocTensorOp>(def)) {
        if (alloc.getCopy() || alloc.getSizeHint() || alloc.getMemorySpace() ||
            alloc->hasOneUse())
          continue;
        dynamicSizes.assign(alloc.getDynamicSizes().begin(),
                            alloc.getDynamicSizes().end());
      } else {
        continue;
      }
      builder.setInsertionPoint(&op);
      auto own = bufferization::AllocTensorOp::create(builder, def->getLoc(),
                                                      type, dynamicSizes);
      if (Attribute cost = def->getAttr(RematDialect::kCostAttrName))
        own->setAttr(RematDialect::kCostAttrName, cost);
      if (Attribute phase = op.getAttr(RematDialect::kPhaseAttrName))
        own->setAttr(RematDialect::kPhaseAttrName, phase);
      // It stands for the recomputed `tensor.empty` it replaces, so that
      // remat-verify-memory counts the plan's recomputations.
      if (Attribute recomputed =
              def->getAttr(RematDialect::kRecomputedAttrName))
        own->setAttr(RematDialect::kRecomputedAttrName, recomputed);
      operand.set(own.getResult());
      replaced.insert(def);
      ++created;
    }
  }
  for (Operation *def : replaced)
    if (def->use_empty())
      unused.insert(def);
  return created;
}

/// The plan covers every non-constant op and gives each step to one op.
static LogicalResult validateCoverage(Block &body, const RematPlan &plan) {
  llvm::DenseMap<int64_t, Operation *> stepOwner;
  for (Operation &op : body.without_terminator()) {
    if (isFreeOp(&op))
      continue;
    auto it = plan.steps.find(&op);
    if (it == plan.steps.end())
      return op.emitError() << "op is not covered by the rematerialization "
                               "plan (no '"
                            << RematDialect::kStepsAttrName << "')";
    for (int64_t step : it->second) {
      auto [owner, inserted] = stepOwner.try_emplace(step, &op);
      if (!inserted) {
        InFlightDiagnostic diag = op.emitError() << "schedule step " << step
                                                 << " is given to two ops";
        diag.attachNote(owner->second->getLoc()) << "also given here";
        return diag;
      }
    }
  }
  return success();
}

/// `op` runs before `earlier`, which comes before it in the program: a
/// located error.
static LogicalResult emitMovedBefore(Operation &op, Operation *earlier,
                                     StringRef what) {
  InFlightDiagnostic diag = op.emitError() << "plan moves this " << what
                                           << " before an earlier one";
  diag.attachNote(earlier->getLoc()) << "earlier op here";
  return diag;
}

namespace {
/// The latest first step among ops of one kind seen so far, and its op.
struct Latest {
  Operation *op = nullptr;
  int64_t step = -1;
  void update(Operation *candidate, int64_t candidateStep) {
    if (candidateStep > step) {
      op = candidate;
      step = candidateStep;
    }
  }
};
} // namespace

/// Ops with memory effects and collectives run once and keep their order;
/// a parameter gather (isParameterGather) may run again, but its first
/// computation stays between the pinned collectives around it in the
/// program: the same collectives in the same order on every rank.
static LogicalResult validateEffectOrder(Block &body, const RematPlan &plan) {
  Latest effect, collective, gather;
  for (Operation &op : body.without_terminator()) {
    auto it = plan.steps.find(&op);
    if (isFreeOp(&op) || it == plan.steps.end())
      continue;
    ArrayRef<int64_t> steps = it->second;
    bool isGather = isParameterGather(&op);
    bool isCollective = isCollectiveOp(&op);
    if (!keepsEffectOrder(&op) && !isGather)
      continue;
    StringRef what = isCollective ? "collective" : "op with memory effects";
    if (isGather) {
      if (steps.front() < collective.step)
        return emitMovedBefore(op, collective.op, what);
      gather.update(&op, steps.front());
      continue;
    }
    if (steps.size() > 1)
      return op.emitError()
             << (isCollective ? "op is a collective (every rank runs it "
                                "exactly once)"
                              : "op has memory effects")
             << " and cannot be recomputed, but the plan computes it "
             << steps.size() << " times";
    if (steps.front() < effect.step)
      return emitMovedBefore(op, effect.op, what);
    if (isCollective && steps.front() < gather.step)
      return emitMovedBefore(op, gather.op, what);
    effect.update(&op, steps.front());
    if (isCollective)
      collective.update(&op, steps.front());
  }
  return success();
}

/// Every use comes after some computation of its operand.
static LogicalResult validateOperandOrder(Block &body, const RematPlan &plan) {
  for (const auto &[op, steps] : plan.steps) {
    Operation *user = op;
    int64_t firstUse = steps.front();
    LogicalResult result = success();
    forEachBodyOperand(user, body, [&](OpOperand &, Operation *def) {
      if (failed(result) || isFreeOp(def))
        return;
      auto defSteps = plan.steps.find(def);
      if (defSteps != plan.steps.end() && defSteps->second.front() < firstUse)
        return;
      InFlightDiagnostic diag = user->emitError()
                                << "plan computes this op at step " << firstUse
                                << " before any computation of its operand";
      diag.attachNote(def->getLoc()) << "operand defined here";
      result = failure();
    });
    if (failed(result))
      return failure();
  }
  return success();
}

/// No op reads a value between its offload and its prefetch: steps a < s <
/// p of a triple (a, w, p) of the op it reads.
static LogicalResult validateOffloadReads(Block &body, const RematPlan &plan) {
  for (const auto &[user, steps] : plan.steps) {
    LogicalResult result = success();
    forEachBodyOperand(user, body, [&](OpOperand &, Operation *def) {
      auto pairs = plan.offloads.find(def);
      if (failed(result) || pairs == plan.offloads.end())
        return;
      ArrayRef<int64_t> triples = pairs->second;
      for (int64_t step : steps)
        for (size_t i = 0; i + 2 < triples.size(); i += 3)
          if (triples[i] < step && step < triples[i + 2] && succeeded(result)) {
            InFlightDiagnostic diag =
                user->emitError()
                << "plan reads an offloaded value at step " << step
                << ", between its offload after step " << triples[i]
                << " and its prefetch before step " << triples[i + 2];
            diag.attachNote(def->getLoc()) << "value defined here";
            result = failure();
          }
    });
    if (failed(result))
      return failure();
  }
  return success();
}

/// Checks that `plan` applies to `body`: its ops are in the body with
/// strictly increasing steps, it covers every op but the constants, no step
/// is given twice, ops with memory effects are computed once and keep their
/// order, offloaded values are neither recomputed nor read while on the
/// host, and every use comes after some computation of its operand.
static LogicalResult validatePlan(func::FuncOp func, Block &body,
                                  const RematPlan &plan) {
  for (const auto &[op, steps] : plan.steps) {
    if (op->getBlock() != &body)
      return mlir::emitError(func.getLoc())
             << "rematerialization plan names an op outside the body of '"
             << func.getSymName() << "'";
    if (steps.empty())
      return op->emitError() << "rematerialization plan gives no step for "
                                "this op";
    for (size_t i = 1; i < steps.size(); ++i)
      if (steps[i] <= steps[i - 1])
        return op->emitError()
               << "rematerialization plan steps must strictly increase";
  }
  for (const auto &[op, pairs] : plan.offloads) {
    auto steps = plan.steps.find(op);
    if (failed(verifyOffloadSteps(
            op, pairs,
            steps == plan.steps.end() ? ArrayRef<int64_t>() : steps->second)))
      return failure();
  }
  if (failed(validateCoverage(body, plan)) ||
      failed(validateEffectOrder(body, plan)) ||
      failed(validateOffloadReads(body, plan)))
    return failure();
  return validateOperandOrder(body, plan);
}

namespace {
/// One computation of a planned op: the original at its first step, a
/// clone at each later one.
struct Instance {
  int64_t step;
  Operation *original;
  Operation *op;
};
} // namespace

/// One instance per step, sorted by step; clones are made before any
/// rewiring so that every operand still names an original op.
static SmallVector<Instance> cloneInstances(Block &body, const RematPlan &plan,
                                            RematerializeStats &stats) {
  SmallVector<Instance> instances;
  Operation *terminator = body.getTerminator();
  MLIRContext *ctx = terminator->getContext();
  for (const auto &[op, steps] : plan.steps) {
    op->removeAttr(RematDialect::kStepsAttrName);
    op->removeAttr(RematDialect::kOffloadsAttrName);
    instances.push_back({steps.front(), op, op});
    for (int64_t step : ArrayRef<int64_t>(steps).drop_front()) {
      Operation *clone = op->clone();
      clone->setAttr(RematDialect::kRecomputedAttrName, UnitAttr::get(ctx));
      body.getOperations().insert(Block::iterator(terminator), clone);
      instances.push_back({step, op, clone});
      ++stats.numClones;
      if (auto cost = op->getAttrOfType<CostAttr>(RematDialect::kCostAttrName))
        stats.recomputeCost += cost.getComputeCost();
    }
  }
  llvm::stable_sort(instances, [](const Instance &a, const Instance &b) {
    return a.step < b.step;
  });
  return instances;
}

namespace {
/// One op of a planned offload: the offload after step `step`, or the wait
/// or the prefetch before it, of the value of `original`'s latest
/// computation.
struct Copy {
  int64_t step;
  Operation *original;
};

/// The offloads, waits and prefetches of a plan, each sorted by step.
struct Copies {
  SmallVector<Copy> offloads, waits, prefetches;
};
} // namespace

static Copies getCopies(const RematPlan &plan) {
  Copies copies;
  for (const auto &[op, triples] : plan.offloads)
    for (size_t i = 0; i + 2 < triples.size(); i += 3) {
      copies.offloads.push_back({triples[i], op});
      copies.waits.push_back({triples[i + 1], op});
      copies.prefetches.push_back({triples[i + 2], op});
    }
  auto byStep = [](const Copy &a, const Copy &b) { return a.step < b.step; };
  llvm::stable_sort(copies.offloads, byStep);
  llvm::stable_sort(copies.waits, byStep);
  llvm::stable_sort(copies.prefetches, byStep);
  return copies;
}

/// Orders the instances, each reading the most recent computation of every
/// operand before it (the terminator: the last), with the plan's offloads
/// after their steps, and its waits, then its prefetches, before theirs:
/// the uses after a prefetch read what it brought back.
static void orderAndRewire(Block &body, ArrayRef<Instance> instances,
                           const RematPlan &plan, RematerializeStats &stats) {
  Operation *terminator = body.getTerminator();
  OpBuilder builder(terminator);
  llvm::DenseMap<Operation *, Operation *> current;
  llvm::DenseMap<Operation *, Value> onHost;
  auto rewire = [&](Operation *op) {
    forEachBodyOperand(op, body, [&](OpOperand &operand, Operation *def) {
      auto it = current.find(def);
      if (it == current.end() || it->second == def)
        return;
      operand.set(it->second->getResult(
          cast<OpResult>(operand.get()).getResultNumber()));
    });
  };
  // The copies cost no compute; the host copy holds no device bytes, the
  // copy back those of the value (its cost's, for a dynamic shape).
  auto copyCost = [&](Operation *original, bool device) {
    auto cost = original->getAttrOfType<CostAttr>(RematDialect::kCostAttrName);
    int64_t bytes = device && cost && !cost.getBytes().empty()
                        ? cost.getBytes().front()
                        : 0;
    return CostAttr::get(builder.getContext(), {bytes}, 0, std::nullopt,
                         std::nullopt);
  };
  Copies copies = getCopies(plan);
  const Copy *offload = copies.offloads.begin();
  const Copy *wait = copies.waits.begin();
  const Copy *prefetch = copies.prefetches.begin();
  // The device values offloaded and not yet waited for, oldest first.
  llvm::DenseMap<Operation *, std::deque<Value>> offloaded;
  auto copyUpTo = [&](int64_t step) {
    for (; wait != copies.waits.end() && wait->step <= step; ++wait) {
      // Never empty: the plan waits after its offload (a < w, verified).
      std::deque<Value> &values = offloaded[wait->original];
      if (values.empty())
        continue;
      WaitOp::create(builder, wait->original->getLoc(), values.front());
      values.pop_front();
    }
    for (; prefetch != copies.prefetches.end() && prefetch->step <= step;
         ++prefetch) {
      Operation *original = prefetch->original;
      Value host = onHost[original];
      auto copy =
          PrefetchOp::create(builder, original->getLoc(), host.getType(), host);
      if (original->hasAttr(RematDialect::kCostAttrName))
        copy->setAttr(RematDialect::kCostAttrName, copyCost(original, true));
      current[original] = copy;
      ++stats.numOffloads;
    }
  };
  for (auto [i, instance] : llvm::enumerate(instances)) {
    copyUpTo(instance.step);
    instance.op->moveBefore(terminator);
    rewire(instance.op);
    current[instance.original] = instance.op;
    int64_t next = i + 1 < instances.size()
                       ? instances[i + 1].step
                       : std::numeric_limits<int64_t>::max();
    for (; offload != copies.offloads.end() && offload->step < next;
         ++offload) {
      Operation *value = current[offload->original];
      Value result = value->getResult(0);
      offloaded[offload->original].push_back(result);
      auto copy =
          OffloadOp::create(builder, value->getLoc(), result.getType(), result);
      if (value->hasAttr(RematDialect::kCostAttrName))
        copy->setAttr(RematDialect::kCostAttrName,
                      copyCost(offload->original, false));
      onHost[offload->original] = copy;
    }
  }
  copyUpTo(std::numeric_limits<int64_t>::max());
  rewire(terminator);
}

/// Allocations that own no bytes in the model (`tensor.empty`,
/// `bufferization.alloc_tensor`) become buffers where they stand once
/// bufferized; a solver may have scheduled them anywhere, since they cost
/// nothing. Sinks each right before its first user so the buffer is live
/// from the op that writes it, as the model counts it. Positions are taken
/// once: moving an allocation does not reorder the other ops (and
/// isBeforeInBlock would renumber the block after every move).
static void sinkAllocations(Block &body) {
  llvm::DenseMap<Operation *, unsigned> position;
  SmallVector<Operation *> inits;
  for (Operation &op : body.without_terminator()) {
    position[&op] = position.size();
    if (isa<tensor::EmptyOp>(op) ||
        (isa<bufferization::AllocTensorOp>(op) &&
         !cast<bufferization::AllocTensorOp>(op).getCopy()))
      inits.push_back(&op);
  }
  position[body.getTerminator()] = position.size();
  for (Operation *init : inits) {
    Operation *firstUser = nullptr;
    for (Operation *user : init->getUsers()) {
      Operation *top = body.findAncestorOpInBlock(*user);
      if (top && (!firstUser || position[top] < position[firstUser]))
        firstUser = top;
    }
    if (firstUser && position[init] < position[firstUser])
      init->moveBefore(firstUser);
  }
}

/// Keeps `cse` from merging a clone with another computation of the same
/// op that reads exactly the same values: a barrier on its first operand.
static void insertBarriers(Block &body, ArrayRef<Instance> instances,
                           RematerializeStats &stats) {
  MLIRContext *ctx = body.getParentOp()->getContext();
  llvm::DenseMap<Operation *, SmallVector<Operation *>> computations;
  OpBuilder builder(ctx);
  for (const Instance &instance : instances) {
    SmallVector<Operation *> &seen = computations[instance.original];
    if (instance.op != instance.original && instance.op->getNumOperands() > 0) {
      SmallVector<Value> operands = getBodyOperands(instance.op, body);
      bool identical = llvm::any_of(seen, [&](Operation *other) {
        return getBodyOperands(other, body) == operands;
      });
      if (identical) {
        builder.setInsertionPoint(instance.op);
        Value input = instance.op->getOperand(0);
        auto barrier = BarrierOp::create(builder, instance.op->getLoc(),
                                         input.getType(), input);
        barrier->setAttr(
            RematDialect::kCostAttrName,
            CostAttr::get(ctx, {0}, 0, std::nullopt, std::nullopt));
        if (Attribute phase =
                instance.op->getAttr(RematDialect::kPhaseAttrName))
          barrier->setAttr(RematDialect::kPhaseAttrName, phase);
        instance.op->setOperand(0, barrier.getResult());
        ++stats.numBarriers;
      }
    }
    seen.push_back(instance.op);
  }
}

FailureOr<RematerializeStats>
remat::applyRematPlan(func::FuncOp func, const RematPlan &plan,
                      const RematerializeOptions &options) {
  if (func.isExternal() || !func.getBody().hasOneBlock())
    return mlir::emitError(func.getLoc())
           << "rematerialization expects a function with one block";
  Block &body = func.getBody().front();
  if (failed(validatePlan(func, body, plan)))
    return failure();

  // Constants to the top, in their order.
  SmallVector<Operation *> constants;
  for (Operation &op : body.without_terminator())
    if (isFreeOp(&op))
      constants.push_back(&op);
  for (Operation *op : llvm::reverse(constants))
    op->moveBefore(&body, body.begin());

  RematerializeStats stats;
  SmallVector<Instance> instances = cloneInstances(body, plan, stats);
  orderAndRewire(body, instances, plan, stats);
  llvm::SetVector<Operation *> unused;
  stats.numAllocations = giveOwnDestinations(body, unused);
  sinkAllocations(body);
  if (options.insertBarriers)
    insertBarriers(body, instances, stats);
  // The destinations `giveOwnDestinations` replaced, last: `instances`
  // names them.
  for (Operation *op : unused)
    op->erase();
  // Even a plan without recomputations reorders ops, hoists constants, sinks
  // allocations and drops `remat.steps`.
  stats.changed = true;
  return stats;
}

FailureOr<RematerializeStats>
remat::rematerialize(func::FuncOp func, const RematerializeOptions &options) {
  RematPlan plan = readRematPlan(func);
  if (plan.steps.empty())
    return RematerializeStats();
  return applyRematPlan(func, plan, options);
}

void remat::stripBarriers(Operation *root, bool stripAttributes) {
  SmallVector<BarrierOp> barriers;
  root->walk([&](Operation *op) {
    if (auto barrier = dyn_cast<BarrierOp>(op))
      barriers.push_back(barrier);
    if (!stripAttributes)
      return;
    SmallVector<StringAttr> names;
    for (NamedAttribute attr : op->getDiscardableAttrs())
      if (attr.getName().getValue().starts_with("remat."))
        names.push_back(attr.getName());
    // The dynamic-size hint describes the arguments, whose guards stay: the
    // arena planner bounds dynamic buffers with it after bufferization.
    if (isa<FunctionOpInterface>(op))
      llvm::erase(names,
                  StringAttr::get(op->getContext(),
                                  RematDialect::kDynamicSizeHintAttrName));
    // The plan's arena is what that planner must meet (docs/Arena.md).
    auto plan = op->getAttrOfType<PlanAttr>(RematDialect::kPlanAttrName);
    for (StringAttr name : names)
      op->removeDiscardableAttr(name);
    if (plan && plan.getArena() && isa<FunctionOpInterface>(op))
      op->setAttr(RematDialect::kPlannedArenaAttrName,
                  IntegerAttr::get(IntegerType::get(op->getContext(), 64),
                                   *plan.getArena()));
  });
  for (BarrierOp barrier : barriers) {
    barrier.getResult().replaceAllUsesWith(barrier.getInput());
    barrier->erase();
  }
}

//===----------------------------------------------------------------------===//
// Passes
//===----------------------------------------------------------------------===//

namespace {
struct RematerializePass
    : public SelectedFunctionsPass<
          remat::impl::RematRematerializeBase<RematerializePass>> {
  using SelectedFunctionsPass::SelectedFunctionsPass;

  void runOnSelectedFunction(func::FuncOp func) override {
    RematerializeOptions options;
    options.insertBarriers = insertBarriers;
    FailureOr<RematerializeStats> stats = rematerialize(func, options);
    if (failed(stats))
      return signalPassFailure();
    // Reordering alone changes liveness: analyses (MemoryAnalysis) survive
    // only when nothing at all changed.
    if (!stats->changed)
      markAllAnalysesPreserved();
  }
};

struct StripBarriersPass
    : public remat::impl::RematStripBarriersBase<StripBarriersPass> {
  using RematStripBarriersBase::RematStripBarriersBase;

  void runOnOperation() override {
    stripBarriers(getOperation(), stripAttributes);
  }
};
} // namespace
