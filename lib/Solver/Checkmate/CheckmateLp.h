//===- CheckmateLp.h - the LP rounding for the MILP -------------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The pieces of CheckmateLp.cpp that CheckmateMilp.cpp uses: a formulation
// as COIN-OR's matrix, and the LP rounding, the MILP's warm start. Private
// to lib/Solver; only the COIN-OR build has these files.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_SOLVER_CHECKMATELP_H
#define REMAT_LIB_SOLVER_CHECKMATELP_H

#include "remat/Solver/Checkmate/CheckmateFormulation.h"

#include <string>

class CoinPackedMatrix;

namespace remat {
namespace checkmate {

/// The coefficients of `f` as COIN-OR's column-ordered matrix.
CoinPackedMatrix coinMatrix(const Formulation &f);

/// The work units (`SolveAllowance`) of one simplex iteration on `f`.
int64_t iterationWork(const Formulation &f);

/// What the rounding search found.
struct RoundingOutcome {
  /// Unsupported over `CheckmateOptions::maxBinaries` (no LP built);
  /// Infeasible; Timeout when the work or the time ran out; Feasible.
  SolveStatus status = SolveStatus::Timeout;
  bool found = false;
  StagePlan plan;
  double cost = 0;
  double lowerBound = -1;
  /// Work units of the first LP solve (or of the attempt, if it failed).
  int64_t lpWork = 0;
  bool lpSolved = false;
  /// Whether the first LP was solved or proved infeasible (false when the
  /// work or the time ran out before or during it).
  bool lpFinished = false;
  /// Infeasible by proof (budget below resident bytes, LP infeasible).
  bool proven = false;
  std::string message;
};

/// The rounding search on `g`, its work charged to `meter` (which bounds
/// it).
RoundingOutcome runRounding(const Graph &graph, const ReducedGraph &g,
                            const SolveOptions &options,
                            const CheckmateOptions &opts, WorkMeter &meter);

} // namespace checkmate
} // namespace remat

#endif // REMAT_LIB_SOLVER_CHECKMATELP_H
