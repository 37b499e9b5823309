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

#include "remat/Solver/CheckmateFormulation.h"

#include <string>

class CoinPackedMatrix;

namespace remat {
namespace checkmate {

/// The coefficients of `f` as COIN-OR's column-ordered matrix.
CoinPackedMatrix coinMatrix(const Formulation &f);

/// What the rounding search found.
struct RoundingOutcome {
  SolveStatus status = SolveStatus::Timeout;
  bool found = false;
  StagePlan plan;
  double cost = 0;
  double lowerBound = -1;
  /// Wall time of the first LP solve (or of the attempt, if it failed).
  double lpSeconds = 0;
  bool lpSolved = false;
  /// Whether the first LP was solved or proved infeasible (false when the
  /// time ran out before or during it).
  bool lpFinished = false;
  /// Infeasible by proof (budget below resident bytes, LP infeasible).
  bool proven = false;
  std::string message;
};

/// The rounding search on `g` within `seconds`.
RoundingOutcome runRounding(const Graph &graph, const ReducedGraph &g,
                            const SolveOptions &options,
                            const CheckmateOptions &opts, double seconds);

} // namespace checkmate
} // namespace remat

#endif // REMAT_LIB_SOLVER_CHECKMATELP_H
