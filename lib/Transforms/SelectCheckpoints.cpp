//===- SelectCheckpoints.cpp - choose a rematerialization plan ------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Builds the problem graph of a training step, asks the planner (Planner.h:
// the one planning policy, shared with remat-solve) or reads a saved
// schedule, checks the schedule with the simulator and records it on the IR
// (`remat.plan`, `remat.steps`).
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/SelectCheckpoints.h"
#include "remat/Analysis/BatchAnalysis.h"
#include "remat/Analysis/CostModel.h"
#include "remat/Analysis/MemoryAnalysis.h"
#include "remat/Solver/Core/Budget.h"
#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/IO/GraphJSON.h"
#include "remat/Solver/Search/Offload.h"
#include "remat/Solver/Search/Planner.h"
#include "remat/Transforms/AnnotateCosts.h"
#include "remat/Transforms/FunctionFilter.h"
#include "remat/Transforms/PassOptions.h"
#include "remat/Transforms/Passes.h"
#include "remat/Transforms/Rematerialize.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <array>
#include <cmath>

namespace remat {
#define GEN_PASS_DEF_REMATSELECTCHECKPOINTS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {
/// The problem built from a function, and its checkpoint-all reference.
struct PlanProblem {
  FunctionGraph functionGraph;
  PlanBaseline baseline;
  /// The host link offloads go over, priced for the graph; none when the
  /// options offload nothing.
  std::optional<HostLink> link;
};

/// A schedule to record on the IR and what it answers.
struct PlanAnswer {
  SolveResult result;
  /// The solver and mode recorded in `remat.plan`.
  std::string solver;
  Mode mode = Mode::MinCompute;
  /// The budget recorded; -1: the schedule's own peak.
  int64_t budget = -1;
  /// Whether the budget was asked for (an option, or the schedule file's
  /// own): then the arena is fitted to it and recorded; else the budget is
  /// the reference peak and the arena only reported.
  bool budgetGiven = false;
  /// The schedule file it was read from; empty when just solved.
  std::string schedulePath;
  /// Max-batch: the batch, in samples, the schedule is for; 0 otherwise.
  int64_t batch = 0;
  /// The static memory plan fitted to the budget (options.arena).
  std::optional<ArenaFit> arena;
  /// Wall time of the whole plan: searches, fall-backs and arena fits.
  double seconds = 0;
};
} // namespace

/// The host link of `options` priced for `graph` into `link` (none for
/// host-link=none); a located error for an unknown link or a bad host
/// budget.
static LogicalResult getHostLink(func::FuncOp func,
                                 const SelectCheckpointsOptions &options,
                                 const Graph &graph,
                                 std::optional<HostLink> &link) {
  if (options.hostLink == "none")
    return success();
  link = findHostLink(options.hostLink, graph);
  if (!link)
    return mlir::emitError(func.getLoc())
           << "unknown host-link '" << options.hostLink
           << "' (expected one of: " << hostLinkNames() << ")";
  link->carriesGathers = options.gathersOnHostLink;
  if (options.hostBudget.empty())
    return success();
  std::string error;
  std::optional<int64_t> bytes = parseHostBudget(options.hostBudget, error);
  if (!bytes)
    return mlir::emitError(func.getLoc())
           << "invalid host-budget '" << options.hostBudget << "': " << error;
  link->hostBudget = *bytes;
  return success();
}

/// Builds the problem graph of `func` and simulates its own order.
static FailureOr<PlanProblem>
buildPlanProblem(func::FuncOp func, const SelectCheckpointsOptions &options) {
  GraphBuilderOptions graphOptions = options.graph;
  if (options.arena)
    graphOptions.transientAlignment = options.arenaAlignment;
  FailureOr<FunctionGraph> built = buildFunctionGraph(func, graphOptions);
  if (failed(built))
    return failure();
  PlanProblem problem{std::move(*built), {}, {}};
  if (failed(getHostLink(func, options, problem.functionGraph.graph,
                         problem.link)))
    return failure();
  problem.baseline = computeBaseline(problem.functionGraph.graph, options.arena,
                                     options.arenaAlignment);
  if (!problem.baseline.checkpointAll.valid())
    return mlir::emitError(func.getLoc())
           << "internal error: the function's own order is "
              "not a valid schedule: "
           << problem.baseline.checkpointAll.error;
  return problem;
}

/// Checks that max-batch can plan `func` at a batch it chooses: the batch
/// dimension (dimension 0 of the data arguments) is dynamic and no other
/// argument dimension is. The planner checks the budget and the graph's
/// batch scaling.
static LogicalResult
checkMaxBatchStep(func::FuncOp func, const PlanProblem &problem,
                  const SelectCheckpointsOptions &options) {
  if (options.budget.empty())
    return success();
  if (!problem.functionGraph.graph.hasBatchScaling())
    return mlir::emitError(func.getLoc())
           << "mode=max-batch cannot tell how this step scales with the "
              "batch: "
           << problem.functionGraph.batchProblem;
  for (BlockArgument arg : func.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    for (int64_t dim = 0; type && dim < type.getRank(); ++dim) {
      bool isBatch = dim == 0 && isDataArgument(func, arg.getArgNumber(),
                                                options.graph.numDataArgs);
      if (isBatch && !type.isDynamicDim(dim))
        return mlir::emitError(func.getLoc())
               << "mode=max-batch: the batch dimension (dimension 0 of "
                  "argument #"
               << arg.getArgNumber() << ", " << type
               << ") is static; the plan is made for the batch the search "
                  "finds, which needs a dynamic batch dimension ('?')";
      if (!isBatch && type.isDynamicDim(dim))
        return mlir::emitError(func.getLoc())
               << "mode=max-batch: dimension " << dim << " of argument #"
               << arg.getArgNumber() << " (" << type
               << ") is dynamic but is not the batch dimension; max-batch "
                  "sizes every dynamic dimension as the batch";
    }
  }
  return success();
}

/// The planner's request for `options` on `problem`.
static PlanRequest getPlanRequest(const SelectCheckpointsOptions &options,
                                  const PlanProblem &problem) {
  PlanRequest request;
  if (problem.link)
    request.offload = OffloadRequest{*problem.link, options.offload};
  request.solver = options.solver;
  request.mode = options.mode;
  request.budget = options.budget;
  request.solve.effort = options.effort;
  request.solve.timeLimitSeconds = options.timeLimitSeconds;
  request.arena = options.arena;
  request.arenaAlignment = options.arenaAlignment;
  return request;
}

/// The located error for a request the planner could not plan; where the
/// solver found no schedule, with where the memory goes in the function's
/// own order (the few ops that matter, never the whole function).
static LogicalResult emitPlanFailure(func::FuncOp func,
                                     const PlanOutcome &outcome) {
  InFlightDiagnostic diag = mlir::emitError(func.getLoc());
  switch (outcome.failure) {
  case PlanFailure::Unsupported:
    diag << "solver '" << outcome.solver
         << "' does not apply to this function: " << outcome.reason;
    return diag;
  case PlanFailure::NoArena:
    diag << "cannot plan the arena of '" << func.getSymName()
         << "': " << outcome.reason;
    return diag;
  case PlanFailure::NoSchedule:
    diag << outcome.reason;
    MemoryAnalysis(func).attachPeakNotes(diag, "the checkpoint-all peak");
    return diag;
  default:
    diag << outcome.reason;
    return diag;
  }
}

/// Plans `func` with the planner, as `options` ask.
static FailureOr<PlanAnswer>
solvePlan(func::FuncOp func, const PlanProblem &problem,
          const SelectCheckpointsOptions &options) {
  if (options.mode == Mode::MaxBatch && options.budget != "min" &&
      failed(checkMaxBatchStep(func, problem, options)))
    return failure();
  PlanOutcome outcome =
      plan(problem.functionGraph.graph, getPlanRequest(options, problem));
  if (!outcome.succeeded())
    return emitPlanFailure(func, outcome);
  for (const std::string &remark : outcome.remarks)
    mlir::emitRemark(func.getLoc()) << remark;
  PlanAnswer answer;
  answer.result = std::move(outcome.result);
  answer.solver = outcome.solver;
  answer.mode = outcome.mode;
  answer.budget = outcome.budget;
  answer.budgetGiven = !options.budget.empty();
  answer.batch = outcome.batch;
  answer.arena = std::move(outcome.arena);
  answer.seconds = outcome.seconds;
  return answer;
}

/// The `budget` option in bytes, relative to the reference peak
/// (PlanBaseline::reference).
static FailureOr<int64_t> getBudget(func::FuncOp func,
                                    const SelectCheckpointsOptions &options,
                                    const PlanProblem &problem) {
  std::string error;
  std::optional<int64_t> budget =
      parseBudget(options.budget, problem.baseline.reference(), error);
  if (!budget)
    return mlir::emitError(func.getLoc())
           << "invalid budget '" << options.budget << "': " << error;
  return *budget;
}

/// The mode of a schedule file named `name`, when its plan applies to the
/// IR as it is (max-batch plans are for another batch).
static std::optional<Mode> parseSavedMode(StringRef name) {
  Mode mode;
  if (!parseMode(name.str(), mode) ||
      (mode != Mode::MinCompute && mode != Mode::MinPeak &&
       mode != Mode::MinBudget))
    return std::nullopt;
  return mode;
}

/// Checks that `saved` (read from `path`) holds a plan for this function's
/// graph; returns its mode.
static FailureOr<Mode> checkSavedResult(func::FuncOp func, StringRef path,
                                        const SavedResult &saved,
                                        const PlanProblem &problem) {
  GraphFingerprint actual = fingerprintGraph(problem.functionGraph.graph);
  std::string mismatch = describeMismatch(saved.graph, actual);
  if (!mismatch.empty())
    return mlir::emitError(func.getLoc())
           << "schedule '" << path << "' was computed for another graph: "
           << "graph '" << saved.graph.name
           << "' differs from this function's graph '" << actual.name << "' in "
           << mismatch
           << "; export this function's graph with --remat-export-graph and "
              "solve it again";
  if (!saved.result.feasible())
    return mlir::emitError(func.getLoc())
           << "schedule '" << path << "' holds no plan: its status is '"
           << toString(saved.result.status) << "'"
           << (saved.result.message.empty() ? "" : ": ")
           << saved.result.message;
  std::optional<Mode> mode = parseSavedMode(saved.mode);
  if (!mode)
    return mlir::emitError(func.getLoc())
           << "schedule '" << path << "' was solved in mode '" << saved.mode
           << "'; only min-compute, min-peak and min-budget plans apply to "
              "the IR";
  return *mode;
}

/// Reads the schedule file of `options` (remat-solve's result JSON) and
/// checks that it holds a plan for this function's graph.
static FailureOr<PlanAnswer> loadPlan(func::FuncOp func,
                                      const PlanProblem &problem,
                                      const SelectCheckpointsOptions &options) {
  StringRef path = options.schedulePath;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return mlir::emitError(func.getLoc())
           << "cannot read schedule '" << path
           << "': " << buffer.getError().message();
  SavedResult saved;
  std::string error;
  if (!parseResultJSON((*buffer)->getBuffer().str(), saved, error))
    return mlir::emitError(func.getLoc())
           << "malformed schedule '" << path << "': " << error;
  FailureOr<Mode> mode = checkSavedResult(func, path, saved, problem);
  if (failed(mode))
    return failure();

  PlanAnswer answer;
  answer.result = std::move(saved.result);
  // A schedule written without waits (Offload.h): its offloads' device
  // buffers live until the link has copied them.
  if (problem.link)
    answer.result.schedule = placeOffloadWaits(
        problem.functionGraph.graph, answer.result.schedule, *problem.link);
  answer.solver = answer.result.solver;
  answer.mode = *mode;
  answer.schedulePath = path.str();
  // The budget given, else the file's (remat-solve writes the budget it was
  // asked for, budget=min's included), else what solving would record.
  answer.budgetGiven = !options.budget.empty() || saved.budget >= 0;
  if (!options.budget.empty()) {
    FailureOr<int64_t> budget = getBudget(func, options, problem);
    if (failed(budget))
      return failure();
    answer.budget = *budget;
  } else if (saved.budget >= 0) {
    answer.budget = saved.budget;
  } else if (*mode == Mode::MinCompute) {
    answer.budget = problem.baseline.reference();
  }
  return answer;
}

/// Who chose the schedule, for messages.
static std::string describeSource(const PlanAnswer &answer) {
  if (answer.schedulePath.empty())
    return "solver '" + answer.solver + "'";
  return "schedule '" + answer.schedulePath + "'";
}

/// The steps of `schedule` on the ops: compute step k of node n -> step k
/// on n's op; an offload after compute step a, the wait and the prefetch
/// before compute steps w and p of the same node (the node's oldest open
/// offload) -> the triple (a, w, p) in its `remat.offloads` (w = a + 1
/// without a wait). A located error for a copy of a node without an op of
/// one tensor result.
static FailureOr<RematPlan> translateSchedule(func::FuncOp func,
                                              const FunctionGraph &graph,
                                              const Schedule &schedule) {
  RematPlan plan;
  int64_t step = 0;
  // Per node, its offloads' triples, with the waits and prefetches met so
  // far (-1 until then).
  llvm::DenseMap<int, SmallVector<std::array<int64_t, 3>>> copies;
  auto open = [&](int node, size_t part) -> int64_t * {
    for (std::array<int64_t, 3> &triple : copies[node])
      if (triple[part] < 0)
        return &triple[part];
    return nullptr;
  };
  for (const Step &s : schedule.steps) {
    Operation *op = graph.nodeOps[s.node];
    if (s.kind == Step::Kind::Compute) {
      if (op)
        plan.steps[op].push_back(step);
      ++step;
      continue;
    }
    if (s.kind == Step::Kind::Free)
      continue;
    if (!op || op->getNumResults() != 1)
      return mlir::emitError(func.getLoc())
             << "the plan moves node " << s.node << " ('"
             << graph.graph.nodes[s.node].name
             << "') to the host, which is not the one result of an op";
    if (s.kind == Step::Kind::Offload)
      copies[s.node].push_back({step - 1, -1, -1});
    else if (int64_t *at = open(s.node, s.kind == Step::Kind::Wait ? 1 : 2))
      *at = step;
  }
  for (const Step &s : schedule.steps) {
    auto it = copies.find(s.node);
    if (s.kind != Step::Kind::Offload || it == copies.end())
      continue;
    for (std::array<int64_t, 3> triple : it->second) {
      if (triple[1] < 0)
        triple[1] = triple[0] + 1;
      plan.offloads[graph.nodeOps[s.node]].append(triple.begin(), triple.end());
    }
    copies.erase(it);
  }
  return plan;
}

/// Checks the answer's schedule with the simulator against its budget and
/// translates it into `remat.steps`: compute step k of node n -> step k on
/// n's op. Errors in a solver's schedule are internal errors.
static FailureOr<RematPlan> checkSchedule(func::FuncOp func,
                                          const PlanProblem &problem,
                                          const PlanAnswer &answer,
                                          Simulation &simulated) {
  const FunctionGraph &functionGraph = problem.functionGraph;
  const Graph &graph = functionGraph.graph;
  std::string source = describeSource(answer);
  StringRef internal = answer.schedulePath.empty() ? "internal error: " : "";
  simulated = simulate(graph, answer.result.schedule, nullptr,
                       problem.link ? &*problem.link : nullptr);
  if (!simulated.valid())
    return mlir::emitError(func.getLoc())
           << internal << source
           << " is not a valid schedule of this function: " << simulated.error;
  if (answer.budget >= 0 && simulated.peakBytes > answer.budget)
    return mlir::emitError(func.getLoc())
           << internal << source << " peaks at " << simulated.peakBytes
           << " bytes, over the budget of " << answer.budget << " bytes";

  FailureOr<RematPlan> plan =
      translateSchedule(func, functionGraph, answer.result.schedule);
  if (failed(plan))
    return failure();
  for (auto [id, op] : llvm::enumerate(functionGraph.nodeOps)) {
    if (!op)
      continue;
    auto it = plan->steps.find(op);
    if (it == plan->steps.end())
      return op->emitError() << internal << source << " never computes this op";
    // Not every solver honours pins; never let a pinned op be recomputed.
    if (graph.nodes[id].keep == KeepPolicy::Always && it->second.size() > 1)
      return op->emitError()
             << source << " recomputes this op, which "
             << (isRecomputable(op) ? "is pinned by remat.keep<always>"
                                    : "has memory effects")
             << "; choose a solver that honours pins";
  }
  return plan;
}

/// The static memory plan of the answer (options.arena): the one fitted
/// while solving, or else the schedule's own, which must fit a budget
/// given. Fails with a located error.
static FailureOr<std::optional<ArenaFit>>
getRecordedArena(func::FuncOp func, const PlanProblem &problem,
                 const SelectCheckpointsOptions &options,
                 const PlanAnswer &answer) {
  if (!options.arena)
    return std::optional<ArenaFit>();
  if (answer.arena)
    return answer.arena;
  int64_t budget = answer.budgetGiven ? answer.budget : -1;
  ArenaFit fit = planRecordedArena(problem.functionGraph.graph, answer.result,
                                   budget, options.arenaAlignment);
  if (!fit.error.empty())
    return mlir::emitError(func.getLoc())
           << "cannot plan the arena of '" << func.getSymName()
           << "': " << fit.error;
  if (!fit.fits)
    return mlir::emitError(func.getLoc())
           << describeArenaOverBudget(fit, budget, -1);
  return std::optional<ArenaFit>(std::move(fit));
}

/// The part of the plan's remark about the arena: its size, its planner
/// and gap to the most bytes live at once, and the steps that fitted it.
static void reportArena(InFlightDiagnostic &remark, const ArenaFit &fit,
                        bool recorded) {
  const ArenaPlan &arena = fit.arena;
  remark << "; arena " << fit.totalBytes << " bytes ";
  StringRef planner = arena.offsets.empty() ? StringRef("no buffer to place")
                                            : StringRef(arena.planner);
  if (!recorded)
    remark << "(no budget given: not checked; " << planner;
  else
    remark << "(" << planner;
  if (arena.bytes > arena.lowerBound)
    remark << ", "
           << formatPercent(
                  static_cast<double>(arena.bytes - arena.lowerBound) /
                  std::max<int64_t>(arena.bytes, 1))
           << " above the sum-of-live bound";
  remark << ")";
  if (!fit.steps.empty())
    remark << " after: " << llvm::join(fit.steps, "; ");
}

/// Records the answer on the IR (`remat.steps`, `remat.plan`) and reports it
/// in a remark.
static FailureOr<PlanAttr> recordPlan(func::FuncOp func,
                                      const PlanProblem &problem,
                                      const SelectCheckpointsOptions &options,
                                      const PlanAnswer &answer) {
  Simulation simulated;
  FailureOr<RematPlan> plan = checkSchedule(func, problem, answer, simulated);
  if (failed(plan))
    return failure();
  FailureOr<std::optional<ArenaFit>> arena =
      getRecordedArena(func, problem, options, answer);
  if (failed(arena))
    return failure();
  writeRematPlan(*plan);

  const SolveResult &result = answer.result;
  const Simulation &baseline = problem.baseline.checkpointAll;
  int64_t budget = answer.budget >= 0 ? answer.budget : simulated.peakBytes;
  // The arena is recorded (and so checked by remat-verify-memory) with a
  // budget given, and with one the mode derives (min-budget, min-peak),
  // which then grows to cover it; the default 100 % only reports it.
  std::optional<int64_t> arenaBytes;
  if (*arena && (answer.budgetGiven || answer.budget < 0)) {
    arenaBytes = (*arena)->totalBytes;
    budget = std::max(budget, *arenaBytes);
  }
  std::optional<int64_t> lowerBound;
  if (result.lowerBound >= 0)
    lowerBound = static_cast<int64_t>(std::floor(result.lowerBound));
  StringRef status =
      result.status == SolveStatus::Optimal ? "optimal" : "feasible";
  StringRef modeName = toString(answer.mode);
  auto attr = PlanAttr::get(
      func.getContext(), answer.solver, modeName, status, budget,
      simulated.peakBytes, baseline.peakBytes, std::llround(simulated.cost),
      std::llround(baseline.cost), lowerBound, arenaBytes);
  func->setAttr(RematDialect::kPlanAttrName, attr);

  // Every non-resident node is computed at least once.
  int64_t computed = 0;
  for (const Step &s : result.schedule.steps)
    computed += s.kind == Step::Kind::Compute;
  int64_t recomputations = computed - static_cast<int64_t>(plan->steps.size());
  double overhead =
      baseline.cost > 0 ? (simulated.cost - baseline.cost) / baseline.cost : 0;
  // Reported at the function's location, without dumping the function.
  InFlightDiagnostic remark = mlir::emitRemark(func.getLoc());
  remark << "remat plan: ";
  if (!answer.schedulePath.empty())
    remark << "schedule '" << answer.schedulePath << "' of ";
  remark << "solver '" << answer.solver << "' (" << modeName << ") " << status;
  if (result.lowerBound >= 0) {
    // The bound is on the objective: compute for min-compute, bytes else.
    double objective = answer.mode == Mode::MinCompute
                           ? simulated.cost
                           : static_cast<double>(simulated.peakBytes);
    double gap =
        objective > 0 ? (objective - result.lowerBound) / objective : 0;
    remark << ", gap " << formatPercent(std::max(0.0, gap));
  }
  remark << "; predicted peak " << simulated.peakBytes << " bytes (budget "
         << budget << ", checkpoint-all " << baseline.peakBytes
         << "); recomputes " << recomputations << " op(s), compute overhead "
         << formatPercent(overhead);
  if (answer.schedulePath.empty())
    remark << "; solved in " << llvm::formatv("{0:F3}", answer.seconds).str()
           << " s";
  if (answer.schedulePath.empty() && result.stoppedByTimeLimit)
    remark << "; " << kStoppedByTimeLimit;
  if (*arena)
    reportArena(remark, **arena, arenaBytes.has_value());
  if (problem.link)
    remark << "; offloads " << simulated.copies / 2 << " value(s) over "
           << problem.link->name << " (host peak " << simulated.hostPeakBytes
           << " bytes), predicted time "
           << llvm::formatv("{0:G}", simulated.time).str() << " (stalls "
           << llvm::formatv("{0:G}", simulated.stall).str() << ")";
  return attr;
}

/// Max-batch: moves the IR to the batch found (resizeDynamicSizes: guard and
/// costs), records the schedule on the graph rebuilt at that batch (the
/// simulator checks it against the budget with the exact sizes), and
/// reports the batch in `remat.batch` and a remark.
static FailureOr<PlanAttr>
recordBatchPlan(func::FuncOp func, const SelectCheckpointsOptions &options,
                const PlanAnswer &answer) {
  if (failed(resizeDynamicSizes(func, answer.batch)))
    return failure();
  FailureOr<PlanProblem> problem = buildPlanProblem(func, options);
  if (failed(problem))
    return failure();
  FailureOr<PlanAttr> attr = recordPlan(func, *problem, options, answer);
  if (failed(attr))
    return failure();
  Builder builder(func.getContext());
  func->setAttr(RematDialect::kBatchAttrName,
                builder.getI64IntegerAttr(answer.batch));
  mlir::emitRemark(func.getLoc())
      << "max-batch: " << answer.batch
      << " samples is the largest batch that solver '" << answer.solver
      << "' fits in the budget of " << answer.budget
      << " bytes; the plan and the dynamic-size guard are for that batch";
  return attr;
}

FailureOr<PlanAttr>
remat::selectCheckpoints(func::FuncOp func,
                         const SelectCheckpointsOptions &options) {
  FailureOr<PlanProblem> problem = buildPlanProblem(func, options);
  if (failed(problem))
    return failure();
  FailureOr<PlanAnswer> answer = options.schedulePath.empty()
                                     ? solvePlan(func, *problem, options)
                                     : loadPlan(func, *problem, options);
  if (failed(answer))
    return failure();
  if (answer->batch == 0)
    return recordPlan(func, *problem, options, *answer);
  return recordBatchPlan(func, options, *answer);
}

namespace {
struct SelectCheckpointsPass
    : public BlankCheckedOptions<SelectedFunctionsPass<
          remat::impl::RematSelectCheckpointsBase<SelectCheckpointsPass>>> {
  using BlankCheckedOptions::BlankCheckedOptions;

  void runOnSelectedFunction(func::FuncOp func) override {
    SelectCheckpointsOptions options;
    options.solver = solver;
    options.mode = mode;
    options.budget = budget;
    options.effort = effort;
    options.timeLimitSeconds = timeLimit;
    options.graph.numDataArgs = dataArgs;
    options.graph.gatherPolicy = gatherPolicy;
    options.schedulePath = schedule;
    options.arena = arena;
    options.arenaAlignment = arenaAlignment;
    options.hostLink = hostLink;
    options.hostBudget = hostBudget;
    options.gathersOnHostLink = gathersOnHostLink;
    options.offload = offload;
    if (failed(selectCheckpoints(func, options)))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
