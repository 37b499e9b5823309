//===- Portfolio.cpp - the best verified answer of every fast solver ------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Runs the solvers whose families complement each other — the policies,
// hierarchical, checkpoint-all, Chen greedy (both candidate rules), Feng &
// Huang, revolve (chains), rotor, DTR, min-cut, local search, the exhaustive
// solver on tiny graphs and Checkmate's LP rounding on small ones
// (min-compute) — and returns the best verified answer for the objective
// (`isBetter`). When no member meets the budget the local search leaves 40 % of
// its work to DTR and the local search on the graph with outputs deferred to
// the end (Deferral.h). Optimal when the winner is proven optimal
// (checkpoint-all within budget, the exhaustive solver); Infeasible at once
// when the exhaustive solver proves it. The members run one after the other
// in a fixed order and share the solve's work (`WorkMeter`): hierarchical
// at most kHierarchicalShare, each other member before the local search at
// most a tenth, the local search what the others leave. The Checkmate MILP
// is not a member: it runs only on the small graphs where no member found
// a plan, with a work allowance of its own (it may find plans there that no
// member can, but needs far more than the members' work: docs/Solvers.md,
// "Why the MILP is not a member"), and only for a single solve
// (`SolveOptions::lastResort`): the probes of the mode searches skip it, or
// each infeasible one would spend that allowance.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Algorithms/Blocks.h"
#include "remat/Solver/Checkmate/Checkmate.h"
#include "remat/Solver/Algorithms/Deferral.h"
#include "remat/Solver/Core/SolverSupport.h"
#include "remat/Solver/Algorithms/Solvers.h"

#include <algorithm>

using namespace remat;

/// The part of the work each member before the local search may take
/// (Chen's grid stops early with its best so far; the local search starts
/// from those sets anyway).
static constexpr double kMemberShare = 0.1;
/// The part the hierarchical solver may take (it runs right after the
/// policies, before the other members).
static constexpr double kHierarchicalShare = 0.3;
/// When outputs may be deferred (Deferral.h), the part of the work left
/// after the members that the local search on the original graph leaves to
/// the solvers on the deferred one.
static constexpr double kDeferShare = 0.4;
/// Checkmate's LP rounding joins on graphs with at most this many nodes to
/// schedule (its LP has O(n^2) columns), with at most this part of the
/// work.
static constexpr int kRoundingNodes = 150;
static constexpr double kRoundingShare = 1.0 / 3;
/// The MILP, the last resort on those graphs, gets this many solves' work
/// (at the default effort about the minute the old 60 s limit gave it).
static constexpr int64_t kLastResortSolves = 6;

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
      : graph(graph), options(options), meter(options),
        limit(costLimit(graph, options)),
        progress(options, "auto", meter.clock()) {}

  SolveResult solve() {
    // An exact solver's "infeasible" is a proof: nothing else can fit.
    SolveResult exact = solveBruteForce(graph, member(meter.left()));
    if (exact.status == SolveStatus::Infeasible)
      return failSolve("auto", SolveStatus::Infeasible,
                       "proven by brute-force: " + exact.message, meter);
    consider(std::move(exact));
    // The practitioners' policies (Blocks.h), whatever the work left: auto
    // never answers worse than one of them that fits (one set each).
    for (SolverFn fn : {SolverFn(solveFullAC), SolverFn(solveSelective)})
      if (!done())
        consider(solveOn(nullptr, fn, meter.left()));
    // The chain DP over the blocks next, with a larger part: on repeated
    // blocks (transformer layers) it is the member that trades budget for
    // recompute block by block, and starved it answers only the policies.
    if (!done())
      consider(solveOn(nullptr, solveHierarchical,
                       meter.part(kHierarchicalShare)));
    runMembers();
    const bool rounding = roundingFits(graph, options);
    int64_t reserve = rounding ? meter.part(kRoundingShare) : 0;
    DeferredGraph deferred;
    if (options.deferOutputs && !have) {
      deferred = deferOutputs(graph);
      if (!deferred.deferred.empty())
        reserve += static_cast<int64_t>(kDeferShare *
                                        static_cast<double>(meter.left()));
    }
    if (!done() && !outOfWork())
      consider(solveOn(nullptr, solveLocalSearch, meter.left() - reserve));
    // On the deferred graph DTR and the local search only: the local search
    // starts from the other members' sets itself.
    if (!deferred.deferred.empty() && !have)
      for (SolverFn fn : {SolverFn(solveDtr), SolverFn(solveLocalSearch)})
        if (!meter.exhausted())
          consider(solveOn(&deferred, fn,
                           meter.left() -
                               (rounding ? meter.part(kRoundingShare) : 0)));
    if (rounding && !done() && !outOfWork())
      runRounding();
    if (rounding && !have && options.lastResort)
      runMilp();
    return finish();
  }

private:
  bool done() const { return have && best.status == SolveStatus::Optimal; }
  /// The work is spent once a plan is in hand; without one, the members go
  /// on (each stops at its own allowance) so that a plan is found if any
  /// can be.
  bool outOfWork() const { return have && meter.exhausted(); }

  /// Member options with `units` of the work.
  SolveOptions member(int64_t units) const {
    return meter.nested(options, units);
  }

  /// Runs the fast members, in this order, each with a tenth of the work
  /// at most.
  void runMembers() {
    for (SolverFn fn :
         {SolverFn(solveCheckpointAll),
          SolverFn(
              solveChen<ChenRule::Greedy, ChenCandidates::ArticulationPoints>),
          SolverFn(
              solveChen<ChenRule::Greedy, ChenCandidates::TopologicalOrder>),
          SolverFn(solveFengHuang), SolverFn(solveRevolve),
          SolverFn(solveRotor), SolverFn(solveDtr), SolverFn(solveMinCut)}) {
      if (done() || outOfWork())
        break;
      consider(solveOn(nullptr, fn,
                       std::min(meter.left(), meter.part(kMemberShare))));
    }
  }

  /// `fn` on this graph or on `deferred`, with `units` of the work; a plan
  /// of the deferred graph is mapped back and verified here. For the peak
  /// objective the cost limit stays this graph's: the deferred graph's
  /// checkpoint-all cost already counts the tails.
  SolveResult solveOn(const DeferredGraph *deferred, const SolverFn &fn,
                      int64_t units) {
    SolveOptions rest = member(units);
    if (!deferred)
      return fn(graph, rest);
    rest.deferOutputs = false;
    if (options.objective == Objective::MinPeakUnderOverhead) {
      rest.maxOverhead = limit / checkpointAllCost(deferred->graph) - 1;
      if (!(rest.maxOverhead >= 0))
        return failSolve("deferred outputs", SolveStatus::Infeasible,
                         "the tails alone pass the cost limit", WorkMeter(0));
    }
    SolveResult r = fn(deferred->graph, rest);
    std::string name = r.solver + " with " +
                       std::to_string(deferred->deferred.size()) +
                       " outputs deferred";
    if (r.schedule.steps.empty())
      return failSolve(name, r.status, r.message, part(r));
    WorkMeter mapped = part(r);
    return finishSolve(graph, options, name, deferred->mapBack(r.schedule),
                       SolveStatus::Feasible, mapped);
  }

  /// A meter that has used what `r` did, to report it as a result of its
  /// own.
  WorkMeter part(const SolveResult &r) const {
    WorkMeter used(meter, meter.left());
    used.charge(r);
    return used;
  }

  /// The LP rounding keeps values across stages as no single-level
  /// checkpoint set does (U-Net's long skips); the members already ran, so
  /// it need not rerun them.
  void runRounding() {
    consider(solveCheckmateRounding(
        graph, member(std::min(meter.left(), meter.part(kRoundingShare)))));
  }

  /// The last resort on small graphs where no member found a plan: the
  /// MILP recomputes at several levels and keeps values across stages as no
  /// member does. It gets kLastResortSolves solves' work of its own (the
  /// alternative is "infeasible") and answers at once when the LP
  /// relaxation proves the budget infeasible. The members already ran, so
  /// it takes no warm starts from them.
  void runMilp() {
    if (meter.timeUp())
      return;
    CheckmateOptions checkmate;
    checkmate.roundingWarmStart = false;
    consider(solveCheckmateMilp(
        graph, member(kLastResortSolves * meter.total()), checkmate));
  }

  void consider(SolveResult r) {
    meter.charge(r);
    std::string what = r.solver + ": " + toString(r.status);
    if (r.feasible() &&
        (!have || isBetterResult(options, limit, r, best) ||
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
                       meter);
    std::string winner = best.solver;
    SolveResult result =
        finishSolve(graph, options, "auto", std::move(best.schedule),
                    best.status, meter, "best: " + winner);
    result.lowerBound = best.lowerBound;
    return result;
  }

  const Graph &graph;
  const SolveOptions &options;
  WorkMeter meter;
  const double limit;
  ProgressReporter progress;
  SolveResult best;
  bool have = false;
};
} // namespace

SolveResult remat::solvePortfolio(const Graph &graph,
                                  const SolveOptions &options) {
  return Portfolio(graph, options).solve();
}
