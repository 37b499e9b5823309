//===- ArenaFit.cpp - make a plan's arena meet the budget -----------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Search/ArenaFit.h"

#include "remat/Solver/Core/Ordering.h"
#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/Simulator.h"

#include <algorithm>
#include <sstream>

using namespace remat;

ArenaFit remat::planScheduleArena(const Graph &graph, const SolveResult &result,
                                  int64_t budget,
                                  const ArenaFitOptions &options) {
  ArenaFit fit;
  fit.result = result;
  std::string error;
  ArenaProblem problem =
      arenaOfSchedule(graph, result.schedule, options.alignment, &error);
  if (!error.empty()) {
    fit.error = "internal error: the schedule does not simulate: " + error;
    return fit;
  }
  fit.arena = planArena(problem, options.planner);
  if (!fit.arena.valid()) {
    fit.error = fit.arena.error;
    return fit;
  }
  fit.totalBytes = graph.residentBytes();
  if (!addBytes(fit.totalBytes, fit.arena.bytes)) {
    fit.error = "the arena and the resident bytes exceed 2^62 bytes";
    return fit;
  }
  fit.fits = fit.totalBytes <= budget;
  return fit;
}

ArenaFitOptions remat::getArenaFitOptions(int64_t alignment) {
  ArenaFitOptions options;
  options.alignment = alignment;
  options.planner.searchWork /= 4;
  return options;
}

/// The exact planner's offsets for `problem` from `start`, when smaller.
static ArenaPlan planExactOffsets(const ArenaProblem &problem,
                                  const ArenaFitOptions &options,
                                  const ArenaPlan &start) {
  if (start.optimal)
    return start;
  ArenaPlan exact = planArenaExact(problem, options.exactOptions, &start);
  if (!exact.valid())
    return start;
  if (exact.bytes >= start.bytes) {
    // No better, and perhaps proven so.
    ArenaPlan same = start;
    same.optimal = exact.optimal;
    return same;
  }
  return exact;
}

ArenaPlan remat::planFitArena(const ArenaProblem &problem,
                              int64_t residentBytes, int64_t budget,
                              const ArenaFitOptions &options) {
  ArenaPlan plan = planArena(problem, options.planner);
  int64_t total = residentBytes;
  if (!plan.valid() || (addBytes(total, plan.bytes) && total <= budget))
    return plan;
  return planExactOffsets(problem, options, plan);
}

/// Whether `candidate` is better than `best`: it fits where `best` does not,
/// or needs fewer bytes.
static bool isBetterFit(const ArenaFit &candidate, const ArenaFit &best) {
  if (!candidate.error.empty())
    return false;
  if (candidate.fits != best.fits)
    return candidate.fits;
  return candidate.totalBytes < best.totalBytes;
}

void remat::tryExactOffsets(const Graph &graph, int64_t budget,
                            const ArenaFitOptions &options, ArenaFit &fit) {
  if (fit.arena.optimal)
    return;
  ArenaProblem problem =
      arenaOfSchedule(graph, fit.result.schedule, options.alignment);
  ArenaPlan exact = planExactOffsets(problem, options, fit.arena);
  fit.totalBytes -= fit.arena.bytes - exact.bytes;
  fit.arena = std::move(exact);
  fit.fits = fit.totalBytes <= budget;
}

/// Step 2: the same computations in the order of each policy, within the
/// budget in live bytes; the best arena among them (or `fit` itself).
static ArenaFit tryOrders(const Graph &graph, int64_t budget,
                          const ArenaFitOptions &options, const ArenaFit &fit,
                          std::string &chosen) {
  std::vector<int> order = computeOrderOf(fit.result.schedule);
  ArenaFit best = fit;
  for (OrderPolicy policy :
       {OrderPolicy::OnDemand, OrderPolicy::OnDemandLatestFirst,
        OrderPolicy::OnDemandLargestLast, OrderPolicy::OnDemandWorkingSet,
        OrderPolicy::MemoryGreedy}) {
    SolveResult reordered = fit.result;
    reordered.schedule =
        scheduleFromComputeOrder(graph, reorder(graph, order, policy));
    Simulation sim = simulate(graph, reordered.schedule);
    if (!sim.valid() || sim.peakBytes > budget)
      continue;
    reordered.peakBytes = sim.peakBytes;
    reordered.cost = sim.cost;
    ArenaFit candidate = planScheduleArena(graph, reordered, budget, options);
    if (!candidate.fits)
      tryExactOffsets(graph, budget, options, candidate);
    if (isBetterFit(candidate, best)) {
      best = std::move(candidate);
      chosen = getOrderPolicyName(policy);
    }
  }
  return best;
}

/// Steps 1 and 2 on `fit`, reporting each in `fit.steps`.
static void tryOffsetsAndOrders(const Graph &graph, int64_t budget,
                                const ArenaFitOptions &options, ArenaFit &fit) {
  std::ostringstream os;
  int64_t before = fit.totalBytes;
  tryExactOffsets(graph, budget, options, fit);
  os << "exact offsets: " << fit.totalBytes << " bytes"
     << (fit.arena.optimal ? " (optimal)" : "")
     << (fit.totalBytes == before ? ", no better" : "");
  fit.steps.push_back(os.str());
  if (fit.fits)
    return;
  std::string chosen;
  std::vector<std::string> steps = fit.steps;
  ArenaFit reordered = tryOrders(graph, budget, options, fit, chosen);
  os.str("");
  if (chosen.empty()) {
    os << "other orders of the same computations: no smaller arena";
  } else {
    os << "order '" << chosen
       << "' of the same computations: " << reordered.totalBytes << " bytes";
    fit = std::move(reordered);
  }
  fit.steps = std::move(steps);
  fit.steps.push_back(os.str());
}

ArenaFit remat::fitScheduleArena(const Graph &graph, const SolveResult &result,
                                 int64_t budget,
                                 const ArenaFitOptions &options) {
  ArenaFit fit = planScheduleArena(graph, result, budget, options);
  if (!fit.error.empty() || fit.fits)
    return fit;
  std::ostringstream first;
  first << "the first arena of " << fit.totalBytes << " bytes ("
        << fit.arena.planner << ") over the budget of " << budget
        << " bytes with a sum-of-live peak of " << result.peakBytes << " bytes";
  fit.steps.push_back(first.str());
  tryOffsetsAndOrders(graph, budget, options, fit);
  return fit;
}

ArenaFit remat::fitArena(const Graph &graph, const SolverInfo &solver,
                         Mode mode, const SolveOptions &solveOptions,
                         const SolveResult &result,
                         const ArenaFitOptions &options) {
  int64_t budget = solveOptions.budget;
  ArenaFit best = fitScheduleArena(graph, result, budget, options);
  if (!best.error.empty() || best.fits)
    return best;
  int64_t target = budget;
  for (int round = 0; round < options.retargets && !best.fits; ++round) {
    // Aim below the budget by what the best arena so far exceeds it by.
    target -= std::max<int64_t>(best.totalBytes - budget, options.alignment);
    std::ostringstream os;
    os << "solver target " << target << " bytes: ";
    SolveOptions lower = solveOptions;
    lower.budget = target;
    SolveResult again =
        target > 0 ? solveInMode(graph, solver, mode, lower) : SolveResult();
    if (!again.feasible()) {
      os << "no plan";
      best.steps.push_back(os.str());
      break;
    }
    // Optimal for the lower target only; the bound of the first answer
    // (for the budget) still holds.
    if (again.status == SolveStatus::Optimal)
      again.status = SolveStatus::Feasible;
    again.lowerBound = result.lowerBound;
    ArenaFit candidate = planScheduleArena(graph, again, budget, options);
    if (!candidate.error.empty())
      break;
    if (!candidate.fits)
      tryOffsetsAndOrders(graph, budget, options, candidate);
    os << "arena " << candidate.totalBytes << " bytes";
    std::vector<std::string> steps = best.steps;
    steps.push_back(os.str());
    if (isBetterFit(candidate, best))
      best = std::move(candidate);
    best.steps = std::move(steps);
  }
  return best;
}

ArenaBudget remat::findSmallestArenaBudget(const Graph &graph,
                                           const SolverInfo &solver,
                                           const SolveOptions &solveOptions,
                                           const ArenaFitOptions &options) {
  // The arena is the memory: a probe meets its budget when the arena of
  // its plan, after other offsets and orders, is within it (the first steps
  // of fitArena, which a user asking at that budget gets).
  PlanMemory arenaMemory = [&](int64_t budget, SolveResult &result, bool) {
    ArenaFit fit = fitScheduleArena(graph, result, budget, options);
    if (!fit.error.empty())
      return int64_t(-1);
    result = std::move(fit.result);
    return fit.totalBytes;
  };
  ArenaBudget found;
  BudgetSearch &search = found.search;
  search = findSmallestBudget(graph, solver, solveOptions, arenaMemory);
  if (search.smallestBudget < 0)
    return found;
  found.fit = fitScheduleArena(graph, search.best, search.smallestBudget,
                               options);
  // The plan's own memory may be below the budget it was found at (the
  // bisection stops at its resolution): asked there, a whole solve that
  // fits names the smaller budget.
  int64_t memory = found.fit.totalBytes;
  if (memory >= search.smallestBudget)
    return found;
  SolveOptions asked = solveOptions;
  asked.budget = memory;
  SolveResult again = solveInMode(graph, solver, Mode::MinCompute, asked);
  if (!again.feasible())
    return found;
  ArenaFit fit =
      fitArena(graph, solver, Mode::MinCompute, asked, again, options);
  if (!fit.fits)
    return found;
  search.smallestBudget = memory;
  search.best = fit.result;
  found.fit = std::move(fit);
  return found;
}
