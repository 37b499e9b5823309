//===- Portfolio.cpp - the best verified answer of every fast solver ------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Runs the solvers whose families complement each other — checkpoint-all,
// Chen greedy (both candidate rules), Feng & Huang, revolve (chains), DTR,
// min-cut, hierarchical, local search, the exhaustive solver on tiny graphs
// and Checkmate's LP rounding on small ones (min-compute) — and returns the
// best verified answer for the objective
// (`isBetter`). When no member meets the budget the local search leaves 40 % of
// its time to DTR and the local search on the graph with outputs deferred to
// the end (Deferral.h), within the same 9 s. Optimal when the winner is proven
// optimal (checkpoint-all within budget, the exhaustive solver); Infeasible at
// once when the exhaustive solver proves it. Everything stays within the time
// limit and 9 s in all (each member before the local search at most a tenth):
// local search gets what the others leave. The Checkmate MILP is not a member:
// it runs only on the small graphs where no member found a plan, with what
// is left of the caller's time limit (it may find plans there that no member
// can, but needs far more than the members' seconds: docs/Solvers.md, "Why
// the MILP is not a member"), and only for a single solve
// (`SolveOptions::lastResort`): the probes of the mode searches skip it, or
// each infeasible one could take the whole limit.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Checkmate.h"
#include "remat/Solver/Deferral.h"
#include "remat/Solver/SolverSupport.h"
#include "remat/Solver/Solvers.h"

#include <algorithm>

using namespace remat;

/// What one portfolio solve may take at most.
static constexpr double kTotalSeconds = 9.0;
/// The part of it each member before the local search may take (Chen's
/// grid stops early with its best so far; the local search starts from
/// those sets anyway).
static constexpr double kMemberShare = 0.1;
/// When outputs may be deferred (Deferral.h), the part of the time left
/// after the members that the local search on the original graph leaves to
/// the solvers on the deferred one.
static constexpr double kDeferShare = 0.4;
/// Checkmate's LP rounding joins on graphs with at most this many nodes to
/// schedule (its LP has O(n^2) columns), with at most this many seconds.
static constexpr int kRoundingNodes = 150;
static constexpr double kRoundingSeconds = 3.0;
/// The MILP, the last resort on those graphs, needs at least this long.
static constexpr double kMinMilpSeconds = 1.0;

static bool roundingFits(const Graph &graph, const SolveOptions &options) {
  if (!checkmateAvailable() ||
      options.objective != Objective::MinComputeUnderBudget)
    return false;
  std::vector<char> needed = neededNodes(graph);
  return std::count(needed.begin(), needed.end(), 1) <= kRoundingNodes;
}

namespace {
/// The best verified answer so far, and the steps that feed it.
class Portfolio {
public:
  Portfolio(const Graph &graph, const SolveOptions &options)
      : graph(graph), options(options), member(nestedOptions(options)),
        limit(costLimit(graph, options)),
        total(std::min(options.timeLimitSeconds, kTotalSeconds)),
        progress(options, "auto", watch) {}

  SolveResult solve() {
    // An exact solver's "infeasible" is a proof: nothing else can fit.
    SolveResult exact = solveBruteForce(graph, member);
    if (exact.status == SolveStatus::Infeasible)
      return failSolve("auto", SolveStatus::Infeasible,
                       "proven by brute-force: " + exact.message, watch);
    consider(std::move(exact));
    runMembers();
    const bool rounding = roundingFits(graph, options);
    double reserve = rounding ? kRoundingSeconds : 0.0;
    DeferredGraph deferred;
    if (options.deferOutputs && !have) {
      deferred = deferOutputs(graph);
      if (!deferred.deferred.empty())
        reserve += kDeferShare * std::max(0.0, total - watch.seconds());
    }
    if (!done() && !outOfTime())
      consider(solveOn(nullptr, solveLocalSearch, reserve));
    // On the deferred graph DTR and the local search only: the local search
    // starts from the other members' sets itself.
    if (!deferred.deferred.empty() && !have)
      for (SolverFn fn : {SolverFn(solveDtr), SolverFn(solveLocalSearch)})
        if (watch.seconds() < total)
          consider(solveOn(&deferred, fn, rounding ? kRoundingSeconds : 0.0));
    if (rounding && !done() && !outOfTime())
      runRounding();
    if (rounding && !have && options.lastResort)
      runMilp();
    return finish();
  }

private:
  bool done() const { return have && best.status == SolveStatus::Optimal; }
  /// The time is up once a plan is in hand; without one, the members go on
  /// (each stops at its own limit) so that a plan is found if any can be.
  bool outOfTime() const { return have && watch.seconds() >= total; }

  /// Member options with what is left of the time, less `reserve`.
  SolveOptions withSeconds(double reserve) const {
    SolveOptions rest = member;
    rest.timeLimitSeconds = std::max(0.5, total - watch.seconds() - reserve);
    return rest;
  }

  /// Runs the fast members, each with a tenth of the time at most.
  void runMembers() {
    for (SolverFn fn :
         {SolverFn(solveCheckpointAll), SolverFn(solveChenGreedyAp),
          SolverFn(solveChenGreedyTopo), SolverFn(solveFengHuang),
          SolverFn(solveRevolve), SolverFn(solveDtr), SolverFn(solveMinCut),
          SolverFn(solveHierarchical)}) {
      if (done() || outOfTime())
        break;
      consider(solveOn(nullptr, fn, 0.0, total * kMemberShare));
    }
  }

  /// `fn` on this graph or on `deferred`, with what is left of the time
  /// (less `reserve`, at most `cap`); a plan of the deferred graph is mapped
  /// back and verified here. For the peak objective the cost limit stays
  /// this graph's: the deferred graph's checkpoint-all cost already counts
  /// the tails.
  SolveResult solveOn(const DeferredGraph *deferred, const SolverFn &fn,
                      double reserve, double cap = kTotalSeconds) {
    SolveOptions rest = withSeconds(reserve);
    rest.timeLimitSeconds = std::min(rest.timeLimitSeconds, cap);
    if (!deferred)
      return fn(graph, rest);
    rest.deferOutputs = false;
    if (options.objective == Objective::MinPeakUnderOverhead) {
      rest.maxOverhead = limit / checkpointAllCost(deferred->graph) - 1;
      if (!(rest.maxOverhead >= 0))
        return failSolve("deferred outputs", SolveStatus::Infeasible,
                         "the tails alone pass the cost limit", watch);
    }
    SolveResult r = fn(deferred->graph, rest);
    std::string name = r.solver + " with " +
                       std::to_string(deferred->deferred.size()) +
                       " outputs deferred";
    if (r.schedule.steps.empty())
      return failSolve(name, r.status, r.message, watch);
    return finishSolve(graph, options, name, deferred->mapBack(r.schedule),
                       SolveStatus::Feasible, watch);
  }

  /// The LP rounding keeps values across stages as no single-level
  /// checkpoint set does (U-Net's long skips); the members already ran, so
  /// it need not rerun them.
  void runRounding() {
    SolveOptions rest = withSeconds(0.0);
    rest.timeLimitSeconds = std::min(rest.timeLimitSeconds, kRoundingSeconds);
    consider(solveCheckmateRounding(graph, rest));
  }

  /// The last resort on small graphs where no member found a plan: the
  /// MILP recomputes at several levels and keeps values across stages as no
  /// member does. It gets what is left of the caller's own time limit (not
  /// the portfolio's cap: the alternative is "infeasible") and answers at
  /// once when the LP relaxation proves the budget infeasible. The members
  /// already ran, so it takes no warm starts from them.
  void runMilp() {
    SolveOptions rest = member;
    rest.timeLimitSeconds = options.timeLimitSeconds - watch.seconds();
    if (rest.timeLimitSeconds < kMinMilpSeconds)
      return;
    CheckmateOptions checkmate;
    checkmate.roundingWarmStart = false;
    consider(solveCheckmateMilp(graph, rest, checkmate));
  }

  void consider(SolveResult r) {
    std::string what = r.solver + ": " + toString(r.status);
    if (r.feasible() &&
        (!have ||
         isBetter(options, limit, r.peakBytes, r.cost, best.peakBytes,
                  best.cost) ||
         (r.peakBytes == best.peakBytes && r.cost == best.cost &&
          r.status == SolveStatus::Optimal))) {
      best = std::move(r);
      have = true;
      what += ", new best";
    }
    progress.report(have ? best.cost : -1, have ? best.peakBytes : -1, -1, what,
                    /*phase=*/true);
  }

  SolveResult finish() {
    if (!have)
      return failSolve("auto", SolveStatus::Infeasible,
                       "no solver found a schedule within the constraints",
                       watch);
    std::string winner = best.solver;
    SolveResult result =
        finishSolve(graph, options, "auto", std::move(best.schedule),
                    best.status, watch, "best: " + winner);
    result.lowerBound = best.lowerBound;
    return result;
  }

  const Graph &graph;
  const SolveOptions &options;
  const SolveOptions member;
  const double limit, total;
  Stopwatch watch;
  ProgressReporter progress;
  SolveResult best;
  bool have = false;
};
} // namespace

SolveResult remat::solvePortfolio(const Graph &graph,
                                  const SolveOptions &options) {
  return Portfolio(graph, options).solve();
}
