//===- ArenaFit.h - make a plan's arena meet the budget ---------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// A schedule within the budget in the sum of live bytes may still need a
// larger arena once every buffer has an address (Arena.h). `fitArena`
// checks the arena of a solver's schedule against the budget and, when it
// does not fit, tries in turn (docs/Arena.md, "The budget covers the
// arena"):
//   1. other offsets: the exact planner (branch and bound);
//   2. another order of the same computations (Ordering.h's policies: the
//      same nodes, so the same cost), each order's arena planned afresh;
//   3. a lower target for the solver: the budget minus the arena's excess,
//      solved again, and steps 1 and 2 on each new schedule, a few times.
// Plain C++, no MLIR; every schedule it returns was simulated within the
// budget and every arena verified.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_SEARCH_ARENAFIT_H
#define REMAT_SOLVER_SEARCH_ARENAFIT_H

#include "remat/Solver/Arena/Arena.h"
#include "remat/Solver/Search/Modes.h"
#include "remat/Solver/Core/Solver.h"

#include <cstdint>
#include <string>
#include <vector>

namespace remat {

struct ArenaFitOptions {
  /// Alignment of every offset (that of the lowering the plan is for).
  int64_t alignment = 16;
  /// The planner's settings for the first arena of each schedule (its
  /// exact search is step 1, run with `exactOptions`).
  ArenaOptions planner;
  ArenaExactOptions exactOptions{200000, 400};
  /// How many lower targets step 3 tries.
  int retargets = 4;
};

/// What fitArena did and found.
struct ArenaFit {
  /// The schedule to record: the solver's, reordered, or solved again.
  SolveResult result;
  /// The arena of its buffers, and resident bytes + that arena (what the
  /// budget must cover).
  ArenaPlan arena;
  int64_t totalBytes = 0;
  /// Whether `totalBytes` is within the budget.
  bool fits = false;
  /// One line per step taken, in order (for the remark), e.g. "exact
  /// offsets: 1200 bytes".
  std::vector<std::string> steps;
  /// Empty unless an arena could not be planned at all (limit exceeded).
  std::string error;
};

/// The options fitArena plans with for a lowering of `alignment`: a quarter
/// of the lowering's search (the lowering, searching harder on its own
/// buffers, then tends to find an arena no larger than the plan's).
ArenaFitOptions getArenaFitOptions(int64_t alignment);

/// The arena of `problem` as fitArena leaves it: the planner's plan, then,
/// when `residentBytes` + that plan exceed `budget`, the exact offsets
/// (step 1). A schedule's buffers and those of the IR that runs it are one
/// problem (Arena.h), so planning the IR of a fitted plan with the same
/// options meets the arena fitArena recorded (the memory verifier's check).
ArenaPlan planFitArena(const ArenaProblem &problem, int64_t residentBytes,
                       int64_t budget, const ArenaFitOptions &options);

/// The arena of `result`'s schedule on `graph` planned with `options`
/// (resident bytes added in `totalBytes`; `fits` against `budget`).
ArenaFit planScheduleArena(const Graph &graph, const SolveResult &result,
                           int64_t budget, const ArenaFitOptions &options);

/// Step 1 of the file comment on `fit` (planScheduleArena's): the exact
/// planner's offsets for the same buffers, unless its arena is optimal.
void tryExactOffsets(const Graph &graph, int64_t budget,
                     const ArenaFitOptions &options, ArenaFit &fit);

/// Steps 1 and 2 of the file comment on `result`'s schedule (no new
/// solve): its arena against `budget`, then, when over it, the exact
/// offsets and the other orders of the same computations.
ArenaFit fitScheduleArena(const Graph &graph, const SolveResult &result,
                          int64_t budget, const ArenaFitOptions &options);

/// Fits the arena of `result` (a feasible answer of `solver` in `mode`
/// under `solveOptions.budget`) into that budget as the file comment says.
/// When nothing fits, returns the smallest arena found (fits = false) with
/// the steps tried; the time limit of `solveOptions` bounds each new solve.
ArenaFit fitArena(const Graph &graph, const SolverInfo &solver, Mode mode,
                  const SolveOptions &solveOptions, const SolveResult &result,
                  const ArenaFitOptions &options);

/// The smallest-budget search with the arena in the budget, and the arena
/// of its plan there (`fit`, which fits when `search.smallestBudget` >= 0).
struct ArenaBudget {
  BudgetSearch search;
  ArenaFit fit;
};

/// The smallest budget that covers the arena of `solver`'s plans: one
/// findSmallestBudget search (with `solveOptions`) whose memory of a plan
/// is its arena plus the resident bytes after fitScheduleArena at the
/// probe's budget. The budget it names is one at which a whole solve and
/// fitScheduleArena fitted, so that asking there (a solve, then fitArena,
/// whose first steps those are) plans.
ArenaBudget findSmallestArenaBudget(const Graph &graph,
                                    const SolverInfo &solver,
                                    const SolveOptions &solveOptions,
                                    const ArenaFitOptions &options);

} // namespace remat

#endif // REMAT_SOLVER_SEARCH_ARENAFIT_H
