//===- CheckmateLp.cpp - Checkmate's LP relaxation and rounding on CLP ----===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The LP relaxation of Checkmate's formulation (CheckmateFormulation.h) on
// COIN-OR CLP: its optimum as a lower bound (`checkmateLpBound`) and the
// two-phase rounding (`solveCheckmateRounding`), which the MILP also runs
// for a warm start. Built only with COIN-OR (CheckmateUnavailable.cpp
// stands in otherwise); compiled with exceptions for COIN-OR's headers.
//
//===----------------------------------------------------------------------===//

#include "CheckmateLp.h"

#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/Simulator.h"

#include "ClpSimplex.hpp"
#include "CoinMessageHandler.hpp"
#include "CoinPackedMatrix.hpp"

#include <algorithm>
#include <cmath>
#include <random>

using namespace remat;
using namespace remat::checkmate;

static const char *const kRoundingName = "checkmate-lp-rounding";
static const char *const kBoundName = "checkmate-lp-bound";

bool remat::checkmateAvailable() { return true; }

CoinPackedMatrix checkmate::coinMatrix(const Formulation &f) {
  return CoinPackedMatrix(true, f.elRow.data(), f.elCol.data(), f.elVal.data(),
                          static_cast<int>(f.elVal.size()));
}

/// About a step's simulation per eight of its rows and columns: measured
/// on the generated chains of 50 to 150 blocks, where the first iterations
/// cost an eighth of that and the later ones as much (CLP's iterations get
/// dearer as the dual simplex goes on).
int64_t checkmate::iterationWork(const Formulation &f) {
  return (static_cast<int64_t>(f.rowLo.size()) + f.numCols()) / 8 + 1;
}

namespace {
/// CLP on a formulation whose budget can be moved between solves.
class LpRelaxation {
public:
  LpRelaxation(const Formulation &f) : f(f) {
    CoinPackedMatrix m = coinMatrix(f);
    lp.loadProblem(m, f.colLo.data(), f.colUp.data(), f.obj.data(),
                   f.rowLo.data(), f.rowUp.data());
    lp.setLogLevel(0);
    lp.messageHandler()->setLogLevel(0);
    lp.setOptimizationDirection(1);
  }
  void setCap(double cap) {
    for (const auto &stage : f.uCols)
      for (const Formulation::MemCol &mc : stage)
        lp.setColumnUpper(mc.u, cap);
    for (int row : f.capRows)
      lp.setRowUpper(row, cap);
  }
  /// Solves within the work `meter` has left (its iterations charged
  /// there) and its deadline; returns 0 optimal, 1 infeasible, 2 other
  /// (the work or the time spent, numerics).
  int solve(WorkMeter &meter) {
    const int64_t perIteration = iterationWork(f);
    lp.setMaximumIterations(static_cast<int>(
        std::min<int64_t>(meter.left() / perIteration + 1, INT32_MAX)));
    lp.setMaximumWallSeconds(std::max(meter.secondsLeft(), 1e-3));
    // Dual simplex (from the slack basis the first time, then warm):
    // measured 2x faster than CLP's default initialSolve (presolve + dual)
    // on these degenerate LPs.
    lp.dual();
    meter.charge(perIteration * lp.numberIterations());
    if (lp.isProvenOptimal())
      return 0;
    if (lp.isProvenPrimalInfeasible())
      return 1;
    // Stopped at its iteration limit (deterministic) or at the deadline,
    // which the meter then remembers.
    if (lp.secondaryStatus() == 9) // CLP: stopped on time
      meter.noteTimeLimit();
    meter.timeUp();
    return 2;
  }
  double objective() const { return lp.objectiveValue(); }
  const double *solution() const { return lp.primalColumnSolution(); }

private:
  const Formulation &f;
  ClpSimplex lp;
};
} // namespace

//===----------------------------------------------------------------------===//
// LP rounding
//===----------------------------------------------------------------------===//

namespace {
/// The candidates of the rounding search: the LP solutions' roundings,
/// judged by the simulator on the original graph; the best in `out`.
class RoundingSearch {
public:
  RoundingSearch(const Graph &graph, const ReducedGraph &g,
                 const SolveOptions &options, const CheckmateOptions &opts,
                 const Formulation &f, WorkMeter &meter, RoundingOutcome &out)
      : graph(graph), g(g), options(options), opts(opts), f(f), meter(meter),
        out(out) {}

  /// Keeps `plan` when, made consistent, it is cheaper than the best and
  /// fits the budget once expanded.
  void consider(StagePlan plan) {
    normalizePlan(g, plan);
    if (!isConsistent(g, plan))
      return;
    double cost = planCost(g, plan);
    if (out.found && cost >= out.cost - 1e-12 * std::max(1.0, out.cost))
      return;
    // Even a plan whose model peak is over the budget may fit once
    // expanded: the simulator decides.
    Schedule schedule = expandPlan(g, plan);
    meter.charge(orderWork(OrderPolicy::Given, schedule.steps.size()));
    Simulation sim = simulate(graph, schedule);
    if (!sim.valid() || sim.peakBytes > options.budget)
      return;
    out.found = true;
    out.plan = std::move(plan);
    out.cost = sim.cost;
  }

  /// Every threshold's rounding of the LP solution `x`, then the
  /// randomized ones.
  void roundAll(const double *x) {
    for (double tau : opts.thresholds)
      roundAt(x, [&](double v) { return v >= tau - 1e-9; });
    std::uniform_real_distribution<double> coin(0, 1);
    for (int k = 0; k < opts.randomizedRoundings; ++k)
      roundAt(x, [&](double v) { return coin(rng) < v; });
  }

  /// Local search on the best rounding with the work left.
  void improveBest() {
    StagePlan better = out.plan;
    if (!improvePlan(g, better, options.budget, meter))
      return;
    Simulation sim = simulate(graph, expandPlan(g, better));
    if (sim.valid() && sim.peakBytes <= options.budget && sim.cost < out.cost) {
      out.plan = std::move(better);
      out.cost = sim.cost;
    }
  }

private:
  /// S rounded by `decide` (R rebuilt by `consider`), in two variants.
  template <typename Decide> void roundAt(const double *x, Decide decide) {
    const int n = g.size();
    StagePlan plan(n);
    for (int t = 0; t < n; ++t)
      for (int i = 0; i < t; ++i)
        plan.s[t][i] = f.s(t, i) >= 0 && decide(x[f.s(t, i)]);
    // An output is resident from some stage to the end: close gaps after
    // its first retention. Without this, a weight gradient whose
    // retention rounds down is computed in the last stage, together with
    // every other such gradient and all their operands.
    // A second variant keeps every delayable output from its own stage.
    StagePlan early = plan;
    for (int i = 0; i < n; ++i) {
      if (!g.isOutput[i])
        continue;
      bool on = false;
      for (int t = i + 1; t < n; ++t) {
        on = on || plan.s[t][i];
        if (on && f.s(t, i) >= 0)
          plan.s[t][i] = 1;
        if (g.delayable[i] && f.s(t, i) >= 0)
          early.s[t][i] = 1;
      }
    }
    consider(std::move(plan));
    consider(std::move(early));
  }

  const Graph &graph;
  const ReducedGraph &g;
  const SolveOptions &options;
  const CheckmateOptions &opts;
  const Formulation &f;
  WorkMeter &meter;
  RoundingOutcome &out;
  std::mt19937_64 rng{0x5eed};
};
} // namespace

/// Why the rounding found nothing, when it did not prove infeasibility;
/// `bounded`: whether some LP was solved.
static void explainNothingFound(RoundingOutcome &out, bool bounded,
                                const WorkMeter &meter) {
  if (out.status == SolveStatus::Infeasible)
    return;
  if (bounded) {
    // Like the other heuristics: found no schedule (not a proof).
    out.status = SolveStatus::Infeasible;
    out.message = "no rounding fit the budget (not a proof: the LP "
                  "relaxation is feasible)";
  } else {
    out.message = meter.stoppedByTimeLimit()
                      ? "the LP relaxation was not solved within the time "
                        "limit"
                      : "the LP relaxation was not solved within the work "
                        "budget (raise the effort)";
  }
}

RoundingOutcome checkmate::runRounding(const Graph &graph,
                                       const ReducedGraph &g,
                                       const SolveOptions &options,
                                       const CheckmateOptions &opts,
                                       WorkMeter &meter) {
  ProgressReporter progress(options, kRoundingName, meter.clock());
  RoundingOutcome out;
  Spec spec;
  double unit = memoryUnit(g);
  spec.capUnits = capUnits(g, options.budget, unit);
  if (spec.capUnits < 0) {
    out.status = SolveStatus::Infeasible;
    out.proven = true;
    out.message = "the budget is below the always-resident bytes";
    return out;
  }
  // The size cap first: the plans below take n^2 bytes.
  spec.maxColumns = opts.maxBinaries;
  Formulation f = buildFormulation(g, spec);
  if (f.tooLarge) {
    out.status = SolveStatus::Unsupported;
    out.message = tooLargeMessage("LP", g, opts) + "; no LP solved";
    return out;
  }
  RoundingSearch search(graph, g, options, opts, f, meter, out);
  search.consider(checkpointAllPlan(g));
  LpRelaxation lp(f);
  std::vector<double> allowances = opts.allowances;
  std::sort(allowances.begin(), allowances.end());
  bool bounded = false;
  for (double eps : allowances) {
    // Keep 40 % of the work for the local search once one LP is solved.
    WorkMeter lpWork(meter, eps == allowances.front()
                                ? meter.left()
                                : meter.part(0.6) - meter.used());
    if (eps != allowances.front() && lpWork.spent())
      break;
    lp.setCap(std::floor(spec.capUnits * (1 - eps)));
    int status = lp.solve(lpWork);
    meter.charge(lpWork);
    if (eps == allowances.front()) {
      out.lpWork = lpWork.used();
      out.lpSolved = status == 0;
      out.lpFinished = status != 2;
    }
    if (status == 1) {
      if (eps == allowances.front() && eps == 0) {
        out.status = SolveStatus::Infeasible;
        out.proven = true;
        out.message = "the LP relaxation is infeasible: no schedule of the "
                      "Checkmate class fits the budget";
        return out;
      }
      break;
    }
    if (status != 0)
      break;
    bounded = true;
    if (eps == 0 && g.exact)
      out.lowerBound = lp.objective();
    progress.report(out.found ? out.cost : -1, -1, out.lowerBound,
                    "LP solved at " +
                        std::to_string(static_cast<int>(eps * 100 + 0.5)) +
                        " % below the budget",
                    /*phase=*/eps == allowances.front());
    search.roundAll(lp.solution());
  }
  if (!out.found) {
    explainNothingFound(out, bounded, meter);
    return out;
  }
  out.status = SolveStatus::Feasible;
  progress.report(out.cost, -1, out.lowerBound,
                  "roundings done; improving the best", /*phase=*/true);
  // Local search on the best rounding, with what is left of the work.
  search.improveBest();
  return out;
}

SolveResult remat::solveCheckmateRounding(const Graph &graph,
                                          const SolveOptions &options,
                                          const CheckmateOptions &opts) {
  WorkMeter meter(options);
  std::string error = graph.check();
  if (!error.empty())
    return failSolve(kRoundingName, SolveStatus::Unsupported,
                     "malformed graph: " + error, meter);
  if (options.objective != Objective::MinComputeUnderBudget)
    return failSolve(kRoundingName, SolveStatus::Unsupported,
                     "LP rounding minimizes compute under a budget; use "
                     "checkmate-milp for the min-peak objective",
                     meter);
  SolveResult shortcut =
      checkpointAllShortcut(graph, options, kRoundingName, meter);
  if (shortcut.feasible())
    return shortcut;
  ReducedGraph g = reduceGraph(graph, /*mergeChains=*/false);
  RoundingOutcome out = runRounding(graph, g, options, opts, meter);
  if (!out.found) {
    // Infeasible (proven or not), Unsupported (over the size cap), else
    // the work or the time ran out.
    SolveStatus status = out.status == SolveStatus::Infeasible ||
                                 out.status == SolveStatus::Unsupported
                             ? out.status
                             : SolveStatus::Timeout;
    SolveResult result = failSolve(kRoundingName, status, out.message, meter);
    result.lowerBound = out.lowerBound;
    return result;
  }
  SolveResult result =
      finishSolve(graph, options, kRoundingName, expandPlan(g, out.plan),
                  SolveStatus::Feasible, meter);
  result.lowerBound = out.lowerBound;
  if (result.feasible() && out.lowerBound >= 0 &&
      result.cost <= out.lowerBound * (1 + 1e-9) + 1e-9)
    result.status = SolveStatus::Optimal;
  return result;
}

SolveResult remat::checkmateLpBound(const Graph &graph,
                                    const SolveOptions &options) {
  WorkMeter meter(options);
  std::string error = graph.check();
  if (!error.empty())
    return failSolve(kBoundName, SolveStatus::Unsupported,
                     "malformed graph: " + error, meter);
  if (options.objective != Objective::MinComputeUnderBudget)
    return failSolve(kBoundName, SolveStatus::Unsupported,
                     "the LP bound is for the min-compute objective", meter);
  ReducedGraph g = reduceGraph(graph, /*mergeChains=*/false);
  Spec spec;
  spec.capUnits = capUnits(g, options.budget, memoryUnit(g));
  if (spec.capUnits < 0)
    return failSolve(kBoundName, SolveStatus::Infeasible,
                     "the budget is below the always-resident bytes", meter);
  CheckmateOptions defaults;
  spec.maxColumns = defaults.maxBinaries;
  Formulation f = buildFormulation(g, spec);
  if (f.tooLarge)
    return failSolve(kBoundName, SolveStatus::Unsupported,
                     tooLargeMessage("LP", g, defaults), meter);
  LpRelaxation lp(f);
  int status = lp.solve(meter);
  if (status == 1)
    return failSolve(kBoundName, SolveStatus::Infeasible,
                     "the LP relaxation is infeasible", meter);
  if (status != 0)
    return failSolve(kBoundName, SolveStatus::Timeout,
                     "CLP stopped before optimality", meter);
  SolveResult result = failSolve(kBoundName, SolveStatus::Optimal, "", meter);
  result.lowerBound = lp.objective();
  return result;
}
