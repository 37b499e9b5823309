//===- Checkmate.h - Checkmate MILP and LP rounding solvers -----*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The Checkmate solvers (Jain et al., MLSys 2020) on COIN-OR: the
// frontier-advancing MILP (formulation (9)) on CBC, its LP relaxation on CLP as
// a lower bound, and the two-phase LP rounding approximation. All of them work
// on the reduced graph of CheckmateModel.h and return schedules checked by
// `simulate`.
//
// What "optimal" and "lower bound" mean here: Checkmate's schedules compute
// nodes for the first time in the graph's topological order (one stage per
// node) and recompute inside a stage in that order. Optimality and the
// lower bounds are with respect to that schedule class; a schedule that
// reorders first computations can be cheaper.
//
// The formulation is CheckmateFormulation.h; CheckmateLp.cpp (LP bound and
// rounding, on CLP) and CheckmateMilp.cpp (MILP, on CBC in a child process:
// CbcProcess.h) solve it. Without COIN-OR (REMAT_ENABLE_COINOR off) the
// build compiles CheckmateUnavailable.cpp instead, and every entry point
// returns SolveStatus::Unsupported with a message saying so.
//
// Usage:
//   SolveOptions opts;
//   opts.budget = 3 << 20;
//   opts.effort = 2; // twice the default work: LP iterations, CBC nodes
//   SolveResult r = solveCheckmateMilp(graph, opts, CheckmateOptions());
//   if (r.feasible()) use(r.schedule); // r.lowerBound: CBC's best bound
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_CHECKMATE_CHECKMATE_H
#define REMAT_SOLVER_CHECKMATE_CHECKMATE_H

#include "remat/Solver/Core/Solver.h"

#include <cstdint>
#include <string>
#include <vector>

namespace remat {

/// Knobs of the Checkmate solvers beyond SolveOptions.
struct CheckmateOptions {
  /// Chain coarsening (merge single-use chains into their producer): -1 =
  /// automatically, when the graph has more than `coarsenAbove` computed
  /// nodes; 0 = never; 1 = always. Coarsened solutions are verified but
  /// never claimed optimal.
  int coarsenChains = -1;
  int coarsenAbove = 150;
  /// Schedules (for example the best heuristic's) offered to CBC as MIP
  /// starts when their stage plan fits the budget.
  std::vector<Schedule> warmStarts;
  /// Solvers run first (each with a tenth of the work) whose
  /// schedules are offered as MIP starts and kept as answers; the MILP then
  /// never returns worse than the best of them. Empty by default;
  /// `withRegisteredWarmStarts` lists every registered heuristic.
  std::vector<SolverFn> heuristics;
  /// On a graph over `maxBinaries`, the solver whose plan the MILP returns
  /// (if better than `warmStarts`); none by default, the portfolio with
  /// `withRegisteredWarmStarts`.
  SolverFn overCap;
  /// Run the LP rounding first and offer its schedule as a MIP start.
  bool roundingWarmStart = true;
  /// Fraction of the work the rounding warm start may use.
  double roundingShare = 0.35;
  /// Rounding: budget allowances ε (the LP is solved at (1 - ε) × budget)
  /// and thresholds τ tried; randomized roundings per LP solution.
  std::vector<double> allowances = {0.0, 0.05, 0.1, 0.2, 0.3};
  std::vector<double> thresholds = {0.05, 0.1, 0.2, 0.3, 0.4, 0.5,
                                    0.6,  0.7, 0.8, 0.9, 0.99};
  int randomizedRoundings = 4;
  /// Largest number of R/S binaries the LP/MILP may have (they grow as n^2;
  /// CLP needs seconds at ~10^4): beyond it the LP is not built, the
  /// rounding has no answer and the MILP returns its best warm start.
  int64_t maxBinaries = 200000;
  /// Declare the MILP's free columns binary (not needed for correctness;
  /// measured faster with CBC).
  bool binaryFrees = true;
  /// Extra CBC command-line parameters (for example {"-cuts", "off"}),
  /// applied after the defaults.
  std::vector<std::string> cbcArguments;
};

/// `checkmate` with the registry's warm starts: every registered heuristic
/// (`SolverInfo::heuristic`) in `heuristics` and the portfolio (`auto`) in
/// `overCap`, as `checkmate-milp` runs. Defined with the registry
/// (Registry.cpp), which knows the other solvers; the MILP itself calls
/// none of them but through these options.
CheckmateOptions withRegisteredWarmStarts(CheckmateOptions checkmate = {});

/// Whether this build has COIN-OR CBC/CLP.
bool checkmateAvailable();

/// Checkmate's MILP on CBC, its branch-and-bound bounded by a node count
/// from the work (deterministic; CBC runs its repeatable parallel mode).
/// Status: Optimal when CBC proved optimality on an exactly reduced graph;
/// Feasible with `lowerBound` = CBC's best bound otherwise; Infeasible when
/// CBC (or the LP relaxation) proved that no schedule fits; Timeout when the
/// work or the time ran out with no feasible schedule.
/// Supports both objectives. Runs no other solver unless `checkmate` lists
/// some (`withRegisteredWarmStarts`).
SolveResult solveCheckmateMilp(const Graph &graph, const SolveOptions &options,
                               const CheckmateOptions &checkmate);

/// Two-phase LP rounding: LP relaxations at (1 - ε) × budget for every ε
/// in `allowances`, S rounded at every threshold (and randomly), R rebuilt,
/// the cheapest simulated in-budget schedule kept. `lowerBound` is the LP
/// bound at the full budget. The LPs are bounded by iteration counts from
/// the work. Objective MinComputeUnderBudget only; Unsupported over
/// `CheckmateOptions::maxBinaries` (no LP is built: the message says so).
SolveResult solveCheckmateRounding(const Graph &graph,
                                   const SolveOptions &options,
                                   const CheckmateOptions &checkmate = {});

/// The LP relaxation's optimum: a lower bound on the compute cost of any
/// Checkmate schedule of `graph` within `options.budget` (exact reduction
/// only). Status Optimal with the bound in `lowerBound`, Infeasible when
/// even the relaxation has no solution (then no schedule fits), Timeout or
/// Unsupported otherwise. The result carries no schedule.
SolveResult checkmateLpBound(const Graph &graph, const SolveOptions &options);

} // namespace remat

#endif // REMAT_SOLVER_CHECKMATE_CHECKMATE_H
