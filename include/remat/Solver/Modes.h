//===- Modes.h - what to ask of a solver ------------------------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The questions `remat-solve --mode` answers with any registered solver:
//
//   * min-compute: the cheapest schedule under a memory budget;
//   * min-peak: the smallest peak within a compute overhead (one extra
//     forward pass by default);
//   * min-budget: the smallest budget the solver can meet, found by bisection
//     on the budget, with a lower bound on what any schedule needs;
//   * max-batch: the largest batch whose graph (activations and gradients
//     scale with the batch, parameters and fixed bytes do not) the solver
//     fits in the budget, by doubling then bisection.
//
// Heuristics are not monotone in the budget in general; the searches return
// the best verified answer they saw, never an unverified one.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_MODES_H
#define REMAT_SOLVER_MODES_H

#include "remat/Solver/Solver.h"

#include <cstdint>
#include <string>

namespace remat {

enum class Mode { MinCompute, MinPeak, MinBudget, MaxBatch };

/// "min-compute", "min-peak", "min-budget", "max-batch".
const char *toString(Mode mode);
/// Parses a mode name; false when unknown.
bool parseMode(const std::string &name, Mode &mode);

/// The graph at batch size `batch`: input, forward and backward bytes times
/// `batch`; parameters and fixed bytes unchanged.
Graph scaleBatch(const Graph &graph, int64_t batch);

struct BudgetSearch {
  /// The verified schedule with the smallest peak found (its status says
  /// whether one was found at all).
  SolveResult best;
  /// best.peakBytes when feasible, -1 otherwise.
  int64_t smallestBudget = -1;
  /// A proven lower bound on the smallest budget: `peakLowerBound`, or the
  /// bisection's bound when the solver is exact.
  int64_t lowerBound = 0;
  int probes = 0;
};

/// Smallest budget `solver` meets (MinComputeUnderBudget at each probe),
/// bisecting between the lower bound and the checkpoint-all peak to a
/// resolution of 0.1 % (or 1 byte).
BudgetSearch findSmallestBudget(const Graph &graph, const SolverInfo &solver,
                                const SolveOptions &options);

struct BatchSearch {
  /// Largest feasible batch found; 0 when even batch 1 does not fit.
  int64_t batch = 0;
  /// The solver's answer at that batch (or at batch 1 when none fits).
  SolveResult result;
  int probes = 0;
};

/// Largest batch in [1, maxBatch] that `solver` fits under options.budget,
/// for `graph` given at batch 1.
BatchSearch findMaxBatch(const Graph &graph, const SolverInfo &solver,
                         const SolveOptions &options,
                         int64_t maxBatch = int64_t(1) << 20);

/// Runs `mode` with `solver`: MinCompute and MinPeak set the objective and
/// run the solver once; MinBudget and MaxBatch run the searches above and
/// return their best result (with `lowerBound` set to the budget bound for
/// MinBudget).
SolveResult solveInMode(const Graph &graph, const SolverInfo &solver, Mode mode,
                        const SolveOptions &options);

} // namespace remat

#endif // REMAT_SOLVER_MODES_H
