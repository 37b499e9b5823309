//===- Registry.cpp - solver names ----------------------------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Every solver by name (`allSolvers`), and what the registry hands the
// solvers that run others: the Checkmate MILP's warm starts
// (`withRegisteredWarmStarts`). The top of lib/Solver/Algorithms' layers: it
// calls the solvers, none of them calls it (docs/Solvers.md).
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Algorithms/Blocks.h"
#include "remat/Solver/Algorithms/Solvers.h"
#include "remat/Solver/Checkmate/Checkmate.h"
#include "remat/Solver/Core/Solver.h"
#include "remat/Solver/Core/SolverSupport.h"

#include <cmath>
#include <sstream>
#include <utility>

using namespace remat;

/// A registry entry for a quick heuristic (`SolverInfo::heuristic`).
static SolverInfo heuristic(const char *name, const char *description,
                            SolverFn solve) {
  SolverInfo info{name, description, std::move(solve)};
  info.heuristic = true;
  return info;
}

/// Every solver, each on its graph's cost scale (`solveOnCostScale`): the
/// same plan whatever the cost unit.
static std::vector<SolverInfo> onCostScale(std::vector<SolverInfo> solvers) {
  for (SolverInfo &info : solvers)
    info.solve = [solve = info.solve](const Graph &g, const SolveOptions &o) {
      return solveOnCostScale(solve, g, o);
    };
  return solvers;
}

const std::vector<SolverInfo> &remat::allSolvers() {
  static const std::vector<SolverInfo> solvers = onCostScale({
      heuristic("checkpoint-all",
                "keep everything, recompute nothing (the reference)",
                solveCheckpointAll),
      heuristic("full-ac",
                "full activation checkpointing: keep each repeated block's "
                "input, recompute the block (a baseline policy)",
                solveFullAC),
      heuristic("selective",
                "selective checkpointing: full-ac plus every matmul output "
                "kept (a baseline policy)",
                solveSelective),
      heuristic("chen-sqrt", "Chen et al. sqrt(n) on articulation points",
                solveChen<ChenRule::Sqrt, ChenCandidates::ArticulationPoints>),
      heuristic("chen-sqrt-topo",
                "Chen et al. sqrt(n) on the topological order",
                solveChen<ChenRule::Sqrt, ChenCandidates::TopologicalOrder>),
      heuristic(
          "chen-greedy",
          "Chen et al. greedy, segment budget searched, articulation points",
          solveChen<ChenRule::Greedy, ChenCandidates::ArticulationPoints>),
      heuristic(
          "chen-greedy-topo",
          "Chen et al. greedy, segment budget searched, topological order",
          solveChen<ChenRule::Greedy, ChenCandidates::TopologicalOrder>),
      heuristic("revolve",
                "Griewank-Walther binomial checkpointing (chains only)",
                solveRevolve),
      heuristic("rotor",
                "ours: multi-level re-forwarding over the chain of segments "
                "(Rotor's DP)",
                solveRotor),
      heuristic("feng-huang-linear",
                "Feng & Huang optimal checkpoints (chains only)",
                solveFengHuangLinear),
      heuristic("feng-huang",
                "Feng & Huang division-tree checkpoints (any DAG)",
                solveFengHuang),
      {"brute-force", "exhaustive exact search (tiny graphs only)",
       solveBruteForce, /*exact=*/true},
      heuristic("local-search",
                "ours: verified local search over the checkpoint set",
                solveLocalSearch),
      heuristic("dtr", "ours: DTR-style eviction simulated offline", solveDtr),
      heuristic("min-cut",
                "ours: saved sets by minimum s-t cut, recompute priced",
                solveMinCut),
      heuristic(
          "hierarchical",
          "ours: block options combined by a DP over memory (Rockmate-style)",
          solveHierarchical),
      {"auto", "ours: best verified answer of the portfolio (the default)",
       solvePortfolio, /*exact=*/false, /*composite=*/true},
      // COIN-OR solvers (Checkmate.h) register here.
      {"checkmate-milp",
       "Checkmate MILP on CBC (optimal in the frontier-advancing class)",
       static_cast<SolverFn>([](const Graph &g, const SolveOptions &o) {
         return solveCheckmateMilp(g, o, withRegisteredWarmStarts());
       })},
      {"checkmate-lp-rounding",
       "Checkmate LP relaxation (CLP) lower bound and two-phase rounding",
       static_cast<SolverFn>([](const Graph &g, const SolveOptions &o) {
         return solveCheckmateRounding(g, o);
       })},
  });
  return solvers;
}

CheckmateOptions remat::withRegisteredWarmStarts(CheckmateOptions checkmate) {
  for (const SolverInfo &info : allSolvers())
    if (info.heuristic)
      checkmate.heuristics.push_back(info.solve);
  checkmate.overCap = solvePortfolio;
  return checkmate;
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
