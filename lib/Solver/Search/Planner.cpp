//===- Planner.cpp - the planning policy: one request, one plan -----------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Search/Planner.h"
#include "remat/Solver/Core/CostBound.h"

#include "remat/Solver/Core/Budget.h"
#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/SolverSupport.h"

#include <chrono>
#include <sstream>

using namespace remat;

/// The share of the effort a solve at a lower target gets when fitting the
/// arena (fitAnswerArena).
static constexpr double kRetargetEffort = 0.25;

PlanBaseline remat::computeBaseline(const Graph &graph, bool arena,
                                    int64_t alignment) {
  PlanBaseline baseline;
  baseline.checkpointAll = simulate(graph, checkpointAllSchedule(graph));
  if (arena && baseline.checkpointAll.valid()) {
    SolveResult own;
    own.schedule = checkpointAllSchedule(graph);
    baseline.arenaBytes = planScheduleArena(graph, own, kMaxTotalBytes,
                                            getArenaFitOptions(alignment))
                              .totalBytes;
  }
  return baseline;
}

ArenaFit remat::planRecordedArena(const Graph &graph,
                                  const SolveResult &result, int64_t budget,
                                  int64_t alignment) {
  return planScheduleArena(graph, result, budget < 0 ? kMaxTotalBytes : budget,
                           getArenaFitOptions(alignment));
}

std::string remat::describeArenaOverBudget(const ArenaFit &fit,
                                           int64_t budget, int64_t smallest) {
  std::ostringstream os;
  os << "the arena of " << fit.totalBytes << " bytes exceeds the budget of "
     << budget << " bytes, though the sum-of-live peak of "
     << fit.result.peakBytes << " bytes fits it";
  for (size_t i = 0; i < fit.steps.size(); ++i)
    os << (i == 0 ? "; tried " : "; ") << fit.steps[i];
  if (smallest >= 0)
    os << "; the smallest feasible budget is " << smallest
       << " bytes, its arena included";
  os << " (raise the budget, or plan without the arena: arena=false)";
  return os.str();
}

namespace {
/// The smallest budget at which the planner plans with a solver (-1: none,
/// `why` says why), and its plan there.
struct SmallestBudget {
  int64_t budget = -1;
  std::string why;
  SolveResult result;
  /// With the arena: the arena fitted to `budget`.
  std::optional<ArenaFit> arena;
};

/// One request being planned: the policy of Planner.h, one step a method.
class Planner {
public:
  Planner(const Graph &graph, const PlanRequest &request)
      : graph(graph), request(request),
        fitOptions(getArenaFitOptions(request.arenaAlignment)) {}

  PlanOutcome run();

private:
  bool prepare();
  bool fail(PlanFailure failure, std::string reason);
  void planAtSmallestBudget();
  void planMaxBatch();
  int64_t smallestBudgetAtOneSample(const Graph &one);
  void planAtBudget();
  void planOffloaded();
  void planOffloadedAtBudget();
  void planOffloadedSmallest();
  void takeOffloaded(OffloadedPlan plan);
  /// A joint plan and, with the arena, the arena fitted to its budget.
  struct OffloadedAt {
    OffloadedPlan plan;
    std::optional<ArenaFit> arena;
  };
  OffloadedAt planOffloadedAt(int64_t budget);
  ArenaFit planOffloadedArena(const SolveResult &result, int64_t budget);
  struct SmallestOffloaded {
    int64_t budget = -1;
    OffloadedAt at;
  };
  SmallestOffloaded smallestOffloadedBudget(const SolveOptions &asked);
  SmallestOffloaded withOwnArena(SmallestOffloaded smallest);
  int64_t recomputeOnlyBudget();
  SolveResult solveAtBudget();
  void addGraphBound();
  void tryFixedGatherPolicies();
  void planAtSmallerBudget();
  void fitAnswerArena();
  const SmallestBudget &findSmallest();
  SmallestBudget findSmallestByRetargets();
  std::string describeSmallest(int64_t budget, bool hasArena) const;

  const Graph &graph;
  const PlanRequest &request;
  ArenaFitOptions fitOptions;
  const SolverInfo *solver = nullptr;
  SolveOptions options;
  std::optional<SmallestBudget> smallest;
  PlanOutcome out;
};
} // namespace

bool Planner::fail(PlanFailure failure, std::string reason) {
  out.failure = failure;
  out.reason = std::move(reason);
  return false;
}

/// Looks up the solver, checks the options, simulates the baseline and
/// resolves the budget; false (with the failure set) when one is bad.
bool Planner::prepare() {
  solver = findSolver(request.solver);
  if (!solver)
    return fail(PlanFailure::BadRequest,
                "unknown solver '" + request.solver +
                    "'; the registered solvers are: " + solverNames());
  out.solver = solver->name;
  out.mode = request.mode;
  options = request.solve;
  if (!options.checkpointMemo)
    options.checkpointMemo = std::make_shared<CheckpointMemo>();
  if (std::string error = checkSolveOptions(options); !error.empty())
    return fail(PlanFailure::BadRequest, "invalid option: " + error);
  if (!isPlanMode(request.mode))
    return fail(PlanFailure::BadRequest,
                std::string("mode ") + toString(request.mode) +
                    " answers with a curve, not a plan");
  // One deadline for the solve and the searches after it.
  options.allowance.deadline = startAllowance(options).deadline;
  out.baseline =
      computeBaseline(graph, request.arena, request.arenaAlignment);
  if (!out.baseline.checkpointAll.valid())
    return fail(PlanFailure::BadRequest,
                "the graph's own order is not a valid schedule: " +
                    out.baseline.checkpointAll.error);
  if (request.budget == "min") {
    if (request.mode == Mode::MinCompute)
      return true;
    return fail(PlanFailure::BadRequest,
                std::string("budget=min plans at the smallest feasible "
                            "budget in mode min-compute, not ") +
                    toString(request.mode));
  }
  std::string error;
  std::optional<int64_t> budget =
      parseBudget(request.budget, out.baseline.reference(), error);
  if (!budget)
    return fail(PlanFailure::BadRequest,
                "invalid budget '" + request.budget + "': " + error);
  options.budget = *budget;
  return true;
}

/// "N bytes (P of the checkpoint-all peak[ of X bytes][, its arena
/// included])".
std::string Planner::describeSmallest(int64_t budget, bool hasArena) const {
  int64_t peak = out.baseline.checkpointAll.peakBytes;
  return std::to_string(budget) + " bytes (" +
         formatPercent(static_cast<double>(budget) /
                       std::max<int64_t>(peak, 1)) +
         " of the checkpoint-all peak" +
         (hasArena ? ", its arena included)" : ")");
}

/// The smallest budget the solver meets, searched once: with the arena, the
/// one search whose memory of a plan is its arena (findSmallestArenaBudget),
/// so that asked at that budget, the planner plans.
const SmallestBudget &Planner::findSmallest() {
  if (smallest)
    return *smallest;
  smallest.emplace();
  BudgetSearch search;
  if (request.arena) {
    ArenaBudget found =
        findSmallestArenaBudget(graph, *solver, options, fitOptions);
    search = std::move(found.search);
    if (search.smallestBudget >= 0)
      smallest->arena = std::move(found.fit);
  } else {
    search = findSmallestBudget(graph, *solver, options);
  }
  if (search.smallestBudget < 0) {
    smallest->why = "meets no budget up to the checkpoint-all peak of " +
                    std::to_string(out.baseline.checkpointAll.peakBytes) +
                    " bytes" + (request.arena ? ", its arena included" : "") +
                    " (" + toString(search.best.status) +
                    (search.best.message.empty() ? "" : ": ") +
                    search.best.message + ")";
    return *smallest;
  }
  smallest->budget = search.smallestBudget;
  smallest->result = std::move(search.best);
  // On a heuristic solver the one search and the sum-of-live search with
  // lower targets can find different budgets: when the former misses a
  // budget given, the latter is asked too, and its plan taken when it fits
  // that budget. The budget named otherwise stays the one search's, the
  // one budget=min names.
  if (request.arena && !request.budget.empty() &&
      smallest->budget > options.budget) {
    SmallestBudget other = findSmallestByRetargets();
    if (other.budget >= 0 && other.budget <= options.budget)
      *smallest = std::move(other);
  }
  return *smallest;
}

/// The smallest budget with the arena by the sum-of-live search, its plan's
/// arena then asked again as a user would (a min-compute solve, then
/// fitArena) at the arena's size, up to `retargets` times.
SmallestBudget Planner::findSmallestByRetargets() {
  SmallestBudget found;
  BudgetSearch search = findSmallestBudget(graph, *solver, options);
  if (search.smallestBudget < 0)
    return found;
  // Without the last resort, as the search's probes: asked again at an
  // arena's size where the members find nothing, the MILP would spend the
  // whole time limit (a 40-node CNN at 70 %: 130 s), and a plan found
  // without it is the one found with it.
  SolveOptions asked = options;
  asked.budget = search.smallestBudget;
  asked.lastResort = false;
  SolveResult result = std::move(search.best);
  for (int round = 0; round <= fitOptions.retargets; ++round) {
    if (round > 0)
      result = solveInMode(graph, *solver, Mode::MinCompute, asked);
    if (!result.feasible())
      break;
    ArenaFit fit = fitArena(graph, *solver, Mode::MinCompute, asked, result,
                            fitOptions);
    if (!fit.error.empty())
      break;
    if (fit.fits) {
      found.budget = asked.budget;
      found.result = fit.result;
      found.arena = std::move(fit);
      break;
    }
    asked.budget =
        std::max(asked.budget + fitOptions.alignment, fit.totalBytes);
  }
  return found;
}

/// `budget=min`: the plan at the smallest budget the solver meets, recorded
/// as a min-compute plan at that budget.
void Planner::planAtSmallestBudget() {
  const SmallestBudget &found = findSmallest();
  if (found.budget < 0) {
    fail(PlanFailure::NoSmallestBudget,
         "budget=min: solver '" + solver->name + "' " + found.why);
    return;
  }
  out.remarks.push_back("budget=min: the smallest feasible budget of solver '" +
                        solver->name + "' is " +
                        describeSmallest(found.budget, found.arena.has_value()));
  out.budget = found.budget;
  out.result = found.result;
  out.arena = found.arena;
}

/// Max-batch: the largest batch whose plan fits the budget.
void Planner::planMaxBatch() {
  if (request.budget.empty()) {
    fail(PlanFailure::BadRequest,
         "mode=max-batch needs a budget: it searches the largest batch whose "
         "plan fits one");
    return;
  }
  if (std::string problem = batchScalingProblem(graph); !problem.empty()) {
    fail(PlanFailure::BadRequest,
         "mode=max-batch cannot tell how this step scales with the batch: " +
             problem);
    return;
  }
  // With offloading, each batch gets the joint plan; probes that fit come
  // in increasing batch order, so the last one that fit is the answer.
  BatchPlanner planBatch;
  std::optional<Simulation> lastOnLink;
  if (request.offload)
    planBatch = [&](const Graph &scaled, const SolveOptions &at) {
      OffloadedPlan plan =
          planWithOffloads(scaled, *solver, at, *request.offload);
      if (plan.result.feasible())
        lastOnLink = std::move(plan.sim);
      return std::move(plan.result);
    };
  BatchSearch search =
      findMaxBatch(graph, *solver, options, request.maxBatch, planBatch);
  out.result = std::move(search.result);
  out.budget = options.budget;
  if (search.batch > 0) {
    out.batch = search.batch;
    out.onLink = std::move(lastOnLink);
    return;
  }
  std::string reason = "mode=max-batch: the budget of " +
                       std::to_string(options.budget) +
                       " bytes does not fit one sample with solver '" +
                       solver->name + "'" +
                       (request.offload ? " even offloading over " +
                                              request.offload->link.name
                                        : "") +
                       " (" + toString(out.result.status) +
                       (out.result.message.empty() ? "" : ": ") +
                       out.result.message + ")";
  if (out.result.status != SolveStatus::Unsupported)
    if (std::optional<Graph> one = scaleBatch(graph, 1))
      if (int64_t smallest = smallestBudgetAtOneSample(*one); smallest >= 0)
        reason += "; the smallest feasible budget at batch 1 is " +
                  std::to_string(smallest) + " bytes";
  fail(PlanFailure::BelowOneSample, reason);
}

/// The smallest budget the solver meets on `one` (the graph at one
/// sample), offloading when the request does; -1 when none.
int64_t Planner::smallestBudgetAtOneSample(const Graph &one) {
  if (!request.offload)
    return findSmallestBudget(one, *solver, options).smallestBudget;
  SolveOptions asked = options;
  asked.objective = Objective::MinComputeUnderBudget;
  return findSmallestOffloadedBudget(one, *solver, asked, *request.offload, -1)
      .budget;
}

/// With parameter gathers that no pin fixes (gather-policy=plan), the plans
/// of the fixed policies (keep, re-gather) are plans of this graph too,
/// which a heuristic search does not always find: the answer becomes the
/// cheapest of the three (mode min-compute), so that ours never costs more
/// than a fixed policy there.
void Planner::tryFixedGatherPolicies() {
  if (request.mode != Mode::MinCompute || !hasUnpinnedGathers(graph))
    return;
  SolveResult &result = out.result;
  for (GatherPolicy policy : {GatherPolicy::Keep, GatherPolicy::Regather}) {
    Graph pinned = graph;
    applyGatherPolicy(policy, pinned);
    SolveResult other = solveInMode(pinned, *solver, Mode::MinCompute, options);
    if (other.feasible() &&
        (!result.feasible() || other.cost < result.cost ||
         (other.cost == result.cost && other.peakBytes < result.peakBytes)))
      result = std::move(other);
  }
}

/// When the solve at the budget found nothing: in mode min-compute, the
/// plan at the smallest budget the solver meets, if that is within this
/// budget; otherwise the failure, naming that smallest budget.
void Planner::planAtSmallerBudget() {
  const SolveResult &result = out.result;
  bool minCompute = request.mode == Mode::MinCompute;
  // The search shares the deadline with the solve that failed.
  const SmallestBudget *found =
      minCompute && !result.stoppedByTimeLimit ? &findSmallest() : nullptr;
  if (found && found->budget >= 0 && found->budget <= options.budget) {
    out.remarks.push_back(
        "solver '" + solver->name + "' found no schedule at the budget of " +
        std::to_string(options.budget) + " bytes (" + result.message +
        "); its plan at the smallest feasible budget, " +
        std::to_string(found->budget) + " bytes, fits it");
    out.result = found->result;
    out.arena = found->arena;
    return;
  }
  std::ostringstream os;
  if (minCompute)
    os << "budget of " << options.budget << " bytes is infeasible for solver '"
       << solver->name << "'";
  else
    os << "solver '" << solver->name << "' found no schedule";
  os << " (" << toString(result.status)
     << (result.message.empty() ? "" : ": ") << result.message << ")";
  if (minCompute && result.stoppedByTimeLimit) {
    os << "; the time limit left no time to search for the smallest "
          "feasible budget";
  } else if (found && found->budget >= 0) {
    out.smallestBudget = found->budget;
    out.smallestHasArena = found->arena.has_value();
    os << "; the smallest feasible budget is " << found->budget << " bytes ("
       << formatPercent(static_cast<double>(found->budget) /
                        std::max<int64_t>(
                            out.baseline.checkpointAll.peakBytes, 1))
       << " of the checkpoint-all peak of "
       << out.baseline.checkpointAll.peakBytes << " bytes"
       << (found->arena ? ", its arena included)" : ")");
  } else if (found) {
    os << "; it " << found->why;
  }
  fail(PlanFailure::NoSchedule, os.str());
}

/// With the arena and a budget given, fits the arena of the answer's
/// schedule to the budget: other offsets, orders and lower targets
/// (fitArena), then, in min-compute, the plan at the smallest budget when
/// that is within this one (the dearest plan: the last resort).
void Planner::fitAnswerArena() {
  // Without a budget given nothing is fitted: the recorded budget grows to
  // the arena instead.
  if (!request.arena || out.budget < 0 || request.budget.empty())
    return;
  // The lower targets' solves get a part of the effort and no last resort
  // (the MILP): a target with no plan costs a solve its whole search (an
  // AdamW step: 63 s for "no plan" before).
  SolveOptions retarget = options;
  retarget.effort *= kRetargetEffort;
  retarget.lastResort = false;
  ArenaFit fit =
      fitArena(graph, *solver, request.mode, retarget, out.result, fitOptions);
  if (!fit.error.empty()) {
    fail(PlanFailure::NoArena, fit.error);
    return;
  }
  if (!fit.fits && request.mode == Mode::MinCompute) {
    const SmallestBudget &found = findSmallest();
    if (found.arena) {
      out.smallestBudget = found.budget;
      out.smallestHasArena = true;
    }
    if (found.arena && found.budget <= out.budget) {
      std::vector<std::string> steps = std::move(fit.steps);
      steps.push_back("the plan at the smallest feasible budget, " +
                      std::to_string(found.budget) + " bytes: arena " +
                      std::to_string(found.arena->totalBytes) + " bytes");
      fit = *found.arena;
      fit.steps = std::move(steps);
    }
  }
  if (fit.fits) {
    out.result = fit.result;
    out.arena = std::move(fit);
    return;
  }
  std::string reason =
      describeArenaOverBudget(fit, out.budget, out.smallestBudget);
  out.result = fit.result;
  out.arena = std::move(fit);
  fail(PlanFailure::ArenaOverBudget, reason);
}

/// The solver's answer in the request's mode at the budget; in mode
/// min-budget, the search's plan, with its smallest budget in `out`.
SolveResult Planner::solveAtBudget() {
  if (request.mode != Mode::MinBudget)
    return solveInMode(graph, *solver, request.mode, options);
  BudgetSearch search = findSmallestBudget(graph, *solver, options);
  out.smallestBudget = search.smallestBudget;
  search.best.lowerBound = static_cast<double>(search.lowerBound);
  return std::move(search.best);
}

/// A budget given (or none): one solve in the mode, then the fall-backs.
void Planner::planAtBudget() {
  Mode mode = request.mode;
  out.budget = options.budget;
  out.result = solveAtBudget();
  if (out.result.status == SolveStatus::Unsupported) {
    fail(PlanFailure::Unsupported, out.result.message);
    return;
  }
  tryFixedGatherPolicies();
  if (!out.result.feasible()) {
    planAtSmallerBudget();
    return;
  }
  if (mode == Mode::MinPeak) {
    if (!request.budget.empty() && out.result.peakBytes > options.budget) {
      fail(PlanFailure::PeakOverBudget,
           "budget of " + std::to_string(options.budget) +
               " bytes is infeasible: the least peak solver '" +
               solver->name + "' found within one extra forward pass is " +
               std::to_string(out.result.peakBytes) + " bytes");
      return;
    }
    if (request.budget.empty())
      out.budget = -1;
  } else if (mode == Mode::MinBudget) {
    out.budget = -1;
  }
  fitAnswerArena();
}

/// With a host link (Offload.h): the joint plan at the budget given, or at
/// the smallest device budget found (budget=min, min-budget, min-peak).
void Planner::planOffloaded() {
  Mode mode = request.mode;
  bool atBudget = mode == Mode::MinCompute && request.budget != "min";
  if (atBudget && request.budget.empty()) {
    fail(PlanFailure::BadRequest,
         "offloading in mode min-compute needs a budget (or budget=min)");
    return;
  }
  if (atBudget)
    planOffloadedAtBudget();
  else
    planOffloadedSmallest();
}

/// The outcome's plan: `plan`, its simulation on the link and host bytes.
void Planner::takeOffloaded(OffloadedPlan plan) {
  out.result = std::move(plan.result);
  out.onLink = std::move(plan.sim);
  out.hostNeeded = plan.hostNeeded;
}

/// The joint plan at the device budget given.
void Planner::planOffloadedAtBudget() {
  out.budget = options.budget;
  OffloadedAt at = planOffloadedAt(options.budget);
  takeOffloaded(std::move(at.plan));
  out.arena = std::move(at.arena);
  bool feasible = out.result.feasible();
  if (feasible && out.arena && !out.arena->error.empty()) {
    fail(PlanFailure::NoArena, out.arena->error);
    return;
  }
  if (feasible && (!out.arena || out.arena->fits))
    return;
  const HostLink &link = request.offload->link;
  if (out.hostNeeded >= 0) {
    fail(PlanFailure::HostOverBudget,
         "host budget of " + std::to_string(link.hostBudget) +
             " bytes is too small: the plan within the device budget holds " +
             std::to_string(out.hostNeeded) + " bytes on the host");
    return;
  }
  out.smallestBudget = smallestOffloadedBudget(options).budget;
  out.smallestHasArena = request.arena;
  if (feasible) {
    fail(PlanFailure::ArenaOverBudget,
         describeArenaOverBudget(*out.arena, out.budget, out.smallestBudget));
    return;
  }
  std::string reason = "budget of " + std::to_string(options.budget) +
                       " bytes is infeasible even offloading over " +
                       link.name;
  if (out.smallestBudget >= 0)
    reason += ": the smallest feasible budget is " +
              describeSmallest(out.smallestBudget, request.arena);
  fail(PlanFailure::NoSchedule, reason);
}

/// The arena of an offloaded plan against `budget`: the planner's offsets,
/// then the exact ones when those exceed it (not fitArena's other orders:
/// those drop the copies).
ArenaFit Planner::planOffloadedArena(const SolveResult &result,
                                     int64_t budget) {
  ArenaFit fit = planScheduleArena(graph, result, budget, fitOptions);
  if (fit.error.empty() && !fit.fits)
    tryExactOffsets(graph, budget, fitOptions, fit);
  return fit;
}

/// The joint plan at `budget`; with the arena, its arena (arenaOfSchedule)
/// against the budget, other offsets tried (not fitArena's other orders:
/// those drop the copies), and while over it, the joint plan at a device
/// target lowered by the excess (a part of the effort, no last resort), a
/// few times. `arena` is set when a plan was found and the arena is on.
Planner::OffloadedAt Planner::planOffloadedAt(int64_t budget) {
  SolveOptions at = options;
  at.budget = budget;
  at.objective = Objective::MinComputeUnderBudget;
  OffloadedAt found{planWithOffloads(graph, *solver, at, *request.offload),
                    std::nullopt};
  if (!request.arena || !found.plan.result.feasible())
    return found;
  SolveOptions lower = at;
  lower.effort *= kRetargetEffort;
  lower.lastResort = false;
  std::vector<std::string> steps;
  for (int retarget = 0;; ++retarget) {
    ArenaFit fit = planOffloadedArena(found.plan.result, budget);
    fit.steps = steps;
    if (!fit.error.empty() || fit.fits || retarget == fitOptions.retargets) {
      found.arena = std::move(fit);
      return found;
    }
    lower.budget -= fit.totalBytes - budget;
    OffloadedPlan next =
        planWithOffloads(graph, *solver, lower, *request.offload);
    steps.push_back("the joint plan under " + std::to_string(lower.budget) +
                    " bytes: " +
                    (next.result.feasible() ? "planned" : "none"));
    if (!next.result.feasible()) {
      fit.steps = steps;
      found.arena = std::move(fit);
      return found;
    }
    found.plan = std::move(next);
  }
}

/// The least device peak with the arena of `smallest`'s plan, which meets
/// min-peak's time limit: its own arena (the exact offsets tried when the
/// planner's exceed the budget), the budget raised to it where it is over.
/// -1 when no arena can be planned.
Planner::SmallestOffloaded
Planner::withOwnArena(SmallestOffloaded smallest) {
  ArenaFit fit = planOffloadedArena(smallest.at.plan.result, smallest.budget);
  if (!fit.error.empty()) {
    smallest.budget = -1;
    return smallest;
  }
  smallest.budget = std::max(smallest.budget, fit.totalBytes);
  fit.fits = true;
  smallest.at.arena = std::move(fit);
  return smallest;
}

/// The smallest device budget the joint plan meets, asked with `asked`
/// (findSmallestOffloadedBudget), and its plan there. With the arena, in
/// mode min-peak, that plan's own arena (withOwnArena); otherwise one at
/// which planOffloadedAt fits it: from the search's answer up to each arena
/// found there, a few times, then the keep-all order's arena, where that
/// order fits without copies. -1 when none.
Planner::SmallestOffloaded
Planner::smallestOffloadedBudget(const SolveOptions &asked) {
  OffloadedBudget found = findSmallestOffloadedBudget(
      graph, *solver, asked, *request.offload, recomputeOnlyBudget());
  SmallestOffloaded smallest{found.budget, {std::move(found.plan), {}}};
  if (!request.arena || smallest.budget < 0)
    return smallest;
  if (asked.objective == Objective::MinPeakUnderOverhead)
    return withOwnArena(std::move(smallest));
  int64_t keepAll = out.baseline.arenaBytes;
  for (int step = 0; step <= fitOptions.retargets + 1; ++step) {
    if (step == fitOptions.retargets + 1 || smallest.budget > keepAll)
      smallest.budget = keepAll;
    smallest.at = planOffloadedAt(smallest.budget);
    const std::optional<ArenaFit> &arena = smallest.at.arena;
    if (arena && arena->error.empty() && arena->fits)
      return smallest;
    if (!arena || !arena->error.empty() || smallest.budget == keepAll)
      break;
    smallest.budget = arena->totalBytes;
  }
  smallest.budget = -1;
  return smallest;
}

/// The smallest budget the solver meets recomputing only (budget=min,
/// min-budget) or its least peak within min-peak's overhead; -1 when none,
/// or when the request offloads only (no bound on what that reaches).
int64_t Planner::recomputeOnlyBudget() {
  if (request.offload &&
      request.offload->choice == OffloadChoice::OffloadOnly)
    return -1;
  if (request.mode != Mode::MinPeak)
    return findSmallest().budget;
  SolveResult least = solveInMode(graph, *solver, Mode::MinPeak, options);
  return least.feasible() ? least.peakBytes : -1;
}

/// The plan at the smallest device budget whose joint plan exists
/// (budget=min, min-budget) or predicts a time within min-peak's limit.
void Planner::planOffloadedSmallest() {
  Mode mode = request.mode;
  SolveOptions asked = options;
  asked.objective = mode == Mode::MinPeak ? Objective::MinPeakUnderOverhead
                                          : Objective::MinComputeUnderBudget;
  const HostLink &link = request.offload->link;
  SmallestOffloaded found = smallestOffloadedBudget(asked);
  if (found.budget < 0) {
    fail(PlanFailure::NoSmallestBudget,
         "solver '" + solver->name + "' meets no device budget" +
             (request.arena ? ", its arena included, up to the "
                              "checkpoint-all order's arena"
                            : " up to the checkpoint-all peak") +
             " even offloading over " + link.name);
    return;
  }
  OffloadedPlan &plan = found.at.plan;
  // With the arena, the device holds the arena (the resident bytes in it),
  // which frees an offloaded value at its copy; the simulator's peak, when
  // the copy is done, may be larger: the plan keeps both within the budget.
  int64_t peak = plan.result.peakBytes;
  if (request.arena)
    peak = std::max(peak, found.at.arena->totalBytes);
  bool given = mode == Mode::MinPeak && !request.budget.empty();
  if (given && peak > options.budget) {
    fail(PlanFailure::PeakOverBudget,
         "budget of " + std::to_string(options.budget) +
             " bytes is infeasible: the least device peak solver '" +
             solver->name + "' found within the time limit, offloading over " +
             link.name + (request.arena ? ", its arena included," : ",") +
             " is " + std::to_string(peak) + " bytes");
    return;
  }
  out.budget = given ? options.budget : -1;
  if (mode == Mode::MinBudget) {
    out.smallestBudget = found.budget;
    plan.result.lowerBound = static_cast<double>(peakLowerBound(graph));
  }
  if (request.budget == "min") {
    out.budget = found.budget;
    out.remarks.push_back(
        "budget=min: the smallest feasible budget offloading over " +
        link.name + " is " + describeSmallest(found.budget, request.arena));
  }
  takeOffloaded(std::move(plan));
  out.arena = std::move(found.at.arena);
  out.smallestHasArena = request.arena;
}

/// Where the solver proves no better bound on the objective, the ones the
/// graph gives (CostBound.h; without offloading): in min-compute, every
/// needed node is computed at least once, plus what must be recomputed to
/// fit the budget given; in min-peak, every node needs its operands live,
/// and below some peaks more must be recomputed than the limit allows. A
/// plan that meets the graph's bound is optimal (a solver's own bound may
/// hold for a class of schedules only, Solvers.md).
void Planner::addGraphBound() {
  SolveResult &result = out.result;
  double bound = -1, objective = result.cost;
  if (request.mode == Mode::MinCompute)
    bound = out.budget >= 0 && !request.offload
                ? costBoundAtBudget(graph, out.budget).cost
                : checkpointAllCost(graph);
  if (request.mode == Mode::MinPeak) {
    SolveOptions limited = options;
    limited.objective = Objective::MinPeakUnderOverhead;
    bound = static_cast<double>(
        request.offload ? peakLowerBound(graph)
                        : peakBoundWithinCost(graph, costLimit(graph, limited),
                                              result.peakBytes));
    objective = static_cast<double>(result.peakBytes);
  }
  if (bound < 0)
    return;
  result.lowerBound = std::max(result.lowerBound, bound);
  if (result.status == SolveStatus::Feasible && !request.offload &&
      objective <= bound * (1 + 1e-9) + 1e-9)
    result.status = SolveStatus::Optimal;
}

PlanOutcome Planner::run() {
  auto start = std::chrono::steady_clock::now();
  if (prepare()) {
    if (request.mode == Mode::MaxBatch)
      planMaxBatch();
    else if (request.offload)
      planOffloaded();
    else if (request.budget == "min")
      planAtSmallestBudget();
    else
      planAtBudget();
  }
  if (out.succeeded() && request.mode != Mode::MaxBatch)
    addGraphBound();
  out.seconds = std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - start)
                    .count();
  return std::move(out);
}

PlanOutcome remat::plan(const Graph &graph, const PlanRequest &request) {
  return Planner(graph, request).run();
}
