//===- CostBound.h - a lower bound on compute within a budget ---*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// How much any schedule must recompute to stay within a memory budget: a
// proven lower bound on the compute cost of every schedule whose peak is at
// most the budget, so that a plan's gap to the optimum can be stated, and a
// target no schedule can meet can be recognized as such. The argument is in
// CostBound.cpp; docs/Solvers.md ("Lower bounds") says what it proves.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_CORE_COSTBOUND_H
#define REMAT_SOLVER_CORE_COSTBOUND_H

#include "remat/Solver/Core/Problem.h"

#include <cstdint>

namespace remat {

/// A lower bound on the cost of any valid schedule whose peak is at most a
/// budget.
struct CostBound {
  /// The checkpoint-all cost (every needed node computed once) plus the
  /// recompute proven necessary.
  double cost = 0;
  /// The proven recompute alone.
  double recompute = 0;
  /// The node at whose first computation it is proven; -1 when no
  /// recompute is proven.
  int node = -1;
};

/// The bound at `budget` (bytes). Deterministic and without a work budget:
/// a few dozen minimum cuts on a network of twice the graph's nodes.
CostBound costBoundAtBudget(const Graph &graph, int64_t budget);

/// A lower bound on the peak of any valid schedule whose cost is at most
/// `costLimit`: the peak lower bound (`peakLowerBound`), raised past every
/// budget below `high` at which `costBoundAtBudget` proves a cost above the
/// limit (a bisection to 0.1 % of `high`, about ten bounds).
int64_t peakBoundWithinCost(const Graph &graph, double costLimit, int64_t high);

} // namespace remat

#endif // REMAT_SOLVER_CORE_COSTBOUND_H
