//===- Offload.h - keep, recompute or offload, planned jointly --*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Host offloading as a third choice beside keeping and recomputing
// (docs/Offload.md). Two parts:
//
//   * `addOffloads` moves values of a schedule to the host between two of
//     their reads: an offload after the earlier read, a prefetch before the
//     later one, placed so that the copy back hides behind the compute in
//     between where it can. Greedy on the device peak: each round takes the
//     largest value idle across the peak step whose offload the simulator
//     (Simulator.h, with the link) finds done before that step, until the
//     peak is within the budget or no value helps.
//   * `planWithOffloads` makes the choice joint: the solver's recompute-only
//     plans at a ladder of budgets from the device budget up to the keep-all
//     peak, each brought down to the device budget by offloading, the one of
//     least predicted time (compute plus stalls) taken. The ladder's bottom is
//     recompute only, its top (every value kept, the graph's own order)
//     offload only; either alone is a choice of its own. Beside the
//     ladder, the chain DP with offloading (`planOnChain`); the best plan
//     then goes to local search with offloading (`searchLocalOffloads`),
//     which offloads values the plan recomputes where that is faster. The
//     solver's last resort (auto's MILP) runs only when no rung plans.
//   * `findSmallestOffloadedBudget` answers the planner's other questions
//     with offloading: the smallest device budget whose joint plan exists
//     (`budget=min`), or whose predicted time is within min-peak's limit
//     (the least device peak under a time limit).
//
// Plain C++; every plan is simulated with the link.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_SEARCH_OFFLOAD_H
#define REMAT_SOLVER_SEARCH_OFFLOAD_H

#include "remat/Solver/Core/HostLink.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/Solver.h"

#include <string>

namespace remat {

/// Which of the three choices a plan may use.
enum class OffloadChoice {
  /// Keep, recompute or offload: the least predicted time over the ladder.
  Joint,
  /// Keep or offload: every value computed once.
  OffloadOnly,
  /// Keep or recompute: the solver's plan at the budget, as without a link.
  RecomputeOnly,
};

/// The option value of a choice ("joint", "offload", "recompute").
const char *toString(OffloadChoice choice);

/// What a plan with offloading may use.
struct OffloadRequest {
  HostLink link;
  OffloadChoice choice = OffloadChoice::Joint;
};

/// A plan with its simulation on the link.
struct OffloadedPlan {
  /// Feasible when the device peak is within the budget and the host peak
  /// within the link's host budget; its cost is the compute cost, `sim.time`
  /// the predicted time.
  SolveResult result;
  Simulation sim;
  /// When no plan fits the host budget but one fits an unlimited host: that
  /// plan's host peak, which plans when asked; -1 otherwise.
  int64_t hostNeeded = -1;
};

/// `schedule` (compute and free steps) with offloads and prefetches added
/// until its device peak is within `budget` (file comment), keeping the
/// host peak within `link.hostBudget`; the best it reached when no value
/// helps any more. The storages `first` (a plan's choice, such as the chain
/// DP's) are offloaded first, across the longest stretch each is idle,
/// where that leaves the peak no higher. Infeasible, with no schedule and
/// the simulation's error, when `schedule` does not simulate.
OffloadedPlan addOffloads(const Graph &graph, const Schedule &schedule,
                          const HostLink &link, int64_t budget,
                          const std::vector<int> &first = {});

/// `schedule` with a wait step (Step::Kind::Wait) for each offload, where
/// the simulator over `link` stops counting its device bytes, moved before
/// the prefetches issued right before that step (where the IR places a
/// step's waits): it simulates the same, and the lifetimes of the program's
/// buffers (arenaOfSchedule, which copies on an ideal link) become those of
/// the copies on `link`, so that no buffer is placed on an offloaded
/// value's bytes before its copy is done. `schedule` itself when it has a
/// wait already or does not simulate. addOffloads' plans have their waits.
Schedule placeOffloadWaits(const Graph &graph, const Schedule &schedule,
                           const HostLink &link);

/// The best plan of the chain DP with offloading (`searchRotorOffloads`,
/// Solvers.h) at `options.budget`: each plan it visits brought down to the
/// budget by `addOffloads` with the values the DP chose offloaded first, the
/// fastest kept. `planWithOffloads` offers it beside the ladder.
OffloadedPlan planOnChain(const Graph &graph, const SolveOptions &options,
                          const HostLink &link);

/// The plan of least predicted time within `options.budget` on the device
/// (file comment), `solver` planning the recomputation.
OffloadedPlan planWithOffloads(const Graph &graph, const SolverInfo &solver,
                               const SolveOptions &options,
                               const OffloadRequest &request);

/// The smallest device budget found for a request, and its plan there.
struct OffloadedBudget {
  /// -1 when no budget up to the keep-all peak met the limit.
  int64_t budget = -1;
  OffloadedPlan plan;
};

/// The smallest device budget at which `planWithOffloads` returns a plan
/// whose predicted time is within `costLimit(graph, options)` (infinity
/// but in objective MinPeakUnderOverhead): a bisection between the peak's
/// lower bound and `known`, a budget met without offloading (the
/// recompute-only answer, -1 for the keep-all peak: what an OffloadOnly
/// request passes, since offloading alone need not meet it), to 0.1 % of the
/// keep-all peak, probes at a part of the effort; then whole plans at the
/// smallest budgets the probes met, smallest first, then at `known`, then
/// at the keep-all peak, where keeping everything meets any limit; so that
/// asked at the budget it names, the planner plans, and it is never above
/// `known` where the solver meets that. Stops probing past the deadline of
/// `options.allowance`.
OffloadedBudget findSmallestOffloadedBudget(const Graph &graph,
                                            const SolverInfo &solver,
                                            const SolveOptions &options,
                                            const OffloadRequest &request,
                                            int64_t known);

} // namespace remat

#endif // REMAT_SOLVER_SEARCH_OFFLOAD_H
