//===- Registry.cpp - solver names ----------------------------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Checkmate.h"
#include "remat/Solver/Solver.h"
#include "remat/Solver/Solvers.h"

#include <cmath>
#include <sstream>

using namespace remat;

std::string remat::checkSolveOptions(const SolveOptions &options) {
  std::ostringstream os;
  if (!(options.timeLimitSeconds > 0) ||
      !std::isfinite(options.timeLimitSeconds))
    os << "the time limit must be a positive number of seconds, not "
       << options.timeLimitSeconds;
  else if (!(options.effort > 0) || !std::isfinite(options.effort))
    os << "the effort must be a positive number, not " << options.effort;
  else if (options.threads < 1)
    os << "the number of solver threads must be at least 1, not " << options.threads;
  else if (!std::isfinite(options.maxOverhead))
    os << "the overhead must be a finite fraction, not " << options.maxOverhead;
  return os.str();
}

const char *remat::toString(SolveStatus status) {
  switch (status) {
  case SolveStatus::Optimal:
    return "optimal";
  case SolveStatus::Feasible:
    return "feasible";
  case SolveStatus::Infeasible:
    return "infeasible";
  case SolveStatus::Timeout:
    return "timeout";
  case SolveStatus::Unsupported:
    return "unsupported";
  }
  return "unknown";
}

const std::vector<SolverInfo> &remat::allSolvers() {
  static const std::vector<SolverInfo> solvers = {
      {"checkpoint-all", "keep everything, recompute nothing (the reference)",
       solveCheckpointAll},
      {"chen-sqrt", "Chen et al. sqrt(n) on articulation points",
       solveChenSqrtAp},
      {"chen-sqrt-topo", "Chen et al. sqrt(n) on the topological order",
       solveChenSqrtTopo},
      {"chen-greedy",
       "Chen et al. greedy, segment budget searched, articulation points",
       solveChenGreedyAp},
      {"chen-greedy-topo",
       "Chen et al. greedy, segment budget searched, topological order",
       solveChenGreedyTopo},
      {"revolve", "Griewank-Walther binomial checkpointing (chains only)",
       solveRevolve},
      {"feng-huang-linear", "Feng & Huang optimal checkpoints (chains only)",
       solveFengHuangLinear},
      {"feng-huang", "Feng & Huang division-tree checkpoints (any DAG)",
       solveFengHuang},
      {"brute-force", "exhaustive exact search (tiny graphs only)",
       solveBruteForce, /*exact=*/true},
      {"local-search", "ours: verified local search over the checkpoint set",
       solveLocalSearch},
      {"dtr", "ours: DTR-style eviction simulated offline", solveDtr},
      {"min-cut", "ours: saved sets by minimum s-t cut, recompute priced",
       solveMinCut},
      {"hierarchical",
       "ours: block options combined by a DP over memory (Rockmate-style)",
       solveHierarchical},
      {"auto", "ours: best verified answer of the portfolio (the default)",
       solvePortfolio, /*exact=*/false, /*composite=*/true},
      // COIN-OR solvers (lib/Solver/Checkmate*.cpp) register here.
      {"checkmate-milp",
       "Checkmate MILP on CBC (optimal in the frontier-advancing class)",
       static_cast<SolverFn>([](const Graph &g, const SolveOptions &o) {
         return solveCheckmateMilp(g, o);
       })},
      {"checkmate-lp-rounding",
       "Checkmate LP relaxation (CLP) lower bound and two-phase rounding",
       static_cast<SolverFn>([](const Graph &g, const SolveOptions &o) {
         return solveCheckmateRounding(g, o);
       })},
  };
  return solvers;
}

const SolverInfo *remat::findSolver(const std::string &name) {
  for (const SolverInfo &info : allSolvers())
    if (info.name == name)
      return &info;
  return nullptr;
}

std::string remat::solverNames() {
  std::string names;
  for (const SolverInfo &info : allSolvers())
    names += (names.empty() ? "" : ", ") + info.name;
  return names;
}
