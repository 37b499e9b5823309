//===- Portfolio.cpp - the best verified answer of every fast solver ------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Runs the solvers whose families complement each other — checkpoint-all,
// Chen greedy (both candidate rules), Feng & Huang, revolve (chains), DTR,
// min-cut, local search, the exhaustive solver on tiny graphs and, on small
// graphs, the Checkmate MILP (which may order work the checkpoint-set
// solvers cannot) — and returns the best verified answer for the objective
// (`isBetter`). Optimal when the winner is proven optimal (checkpoint-all
// within budget, the exhaustive solver, the MILP). Everything stays within
// the time limit and 9 s in all: local search gets what the others leave,
// less the MILP's share on small graphs.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Checkmate.h"
#include "remat/Solver/SolverSupport.h"
#include "remat/Solver/Solvers.h"

#include <algorithm>

using namespace remat;

/// What one portfolio solve may take at most.
static constexpr double kTotalSeconds = 9.0;
/// The MILP joins on graphs with at most this many nodes to schedule, with
/// at most this many seconds.
static constexpr int kMilpNodes = 120;
static constexpr double kMilpSeconds = 4.0;

static bool milpFits(const Graph &graph) {
  if (!checkmateAvailable())
    return false;
  std::vector<char> needed = neededNodes(graph);
  return std::count(needed.begin(), needed.end(), 1) <= kMilpNodes;
}

SolveResult remat::solvePortfolio(const Graph &graph,
                                  const SolveOptions &options) {
  Stopwatch watch;
  ProgressReporter progress(options, "auto", watch);
  const SolveOptions member = nestedOptions(options);
  const double limit = costLimit(graph, options);
  SolveResult best;
  bool have = false;
  auto consider = [&](SolveResult r) {
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
  };
  for (SolverFn fn :
       {SolverFn(solveBruteForce), SolverFn(solveCheckpointAll),
        SolverFn(solveChenGreedyAp), SolverFn(solveChenGreedyTopo),
        SolverFn(solveFengHuang), SolverFn(solveRevolve), SolverFn(solveDtr),
        SolverFn(solveMinCut)}) {
    consider(fn(graph, member));
    if (have && best.status == SolveStatus::Optimal)
      break;
  }
  const double total = std::min(options.timeLimitSeconds, kTotalSeconds);
  const bool milp = milpFits(graph);
  if (!have || best.status != SolveStatus::Optimal) {
    SolveOptions rest = member;
    rest.timeLimitSeconds = std::max(
        0.5, total - watch.seconds() - (milp ? kMilpSeconds : 0.0));
    consider(solveLocalSearch(graph, rest));
  }
  if (milp && (!have || best.status != SolveStatus::Optimal)) {
    // The members' best is the MILP's warm start; it need not rerun them.
    SolveOptions rest = member;
    rest.timeLimitSeconds = std::max(0.5, total - watch.seconds());
    CheckmateOptions checkmate;
    checkmate.heuristicWarmStarts = false;
    if (have)
      checkmate.warmStarts.push_back(best.schedule);
    consider(solveCheckmateMilp(graph, rest, checkmate));
  }
  if (!have)
    return failSolve("auto", SolveStatus::Infeasible,
                     "no solver found a schedule within the constraints",
                     watch);
  std::string winner = best.solver;
  SolveResult result =
      finishSolve(graph, options, "auto", std::move(best.schedule), best.status,
                  watch, "best: " + winner);
  result.lowerBound = best.lowerBound;
  return result;
}
