//===- Portfolio.cpp - the best verified answer of every fast solver ------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Runs the solvers whose families complement each other — checkpoint-all,
// Chen greedy (both candidate rules), Feng & Huang, revolve (chains), DTR,
// local search, and the exhaustive solver on tiny graphs — and returns the
// best verified answer for the objective (`isBetter`). Optimal when the
// winner is proven optimal (checkpoint-all within budget, the exhaustive
// solver). Local search gets the time the others leave, within 9 s in all.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/SolverSupport.h"
#include "remat/Solver/Solvers.h"

using namespace remat;

/// What one portfolio solve may take at most (local search gets the rest).
static constexpr double kTotalSeconds = 9.0;

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
  if (!have || best.status != SolveStatus::Optimal) {
    // The whole portfolio stays within the time limit and kTotalSeconds.
    SolveOptions rest = member;
    rest.timeLimitSeconds =
        std::max(0.5, std::min(options.timeLimitSeconds, kTotalSeconds) -
                          watch.seconds());
    consider(solveLocalSearch(graph, rest));
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
