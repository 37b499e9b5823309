//===- Planner.h - the planning policy: one request, one plan ---*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The one place that turns a user's request (a solver, a mode, a budget as
// written, the static arena or not) into a plan for a graph, or into a
// structured failure. `--remat-select-checkpoints` (and so
// `--remat-pipeline`) and `remat-solve` both call `plan`, so the documented
// round trip (export the graph, solve it with remat-solve, apply the
// schedule) records the plan the pipeline records. Its policy
// (docs/Rematerialization.md, "Budgets"):
//
//   * the budget is bytes or a percentage of the reference peak: the
//     checkpoint-all peak, or with the arena the larger of it and the arena
//     of the checkpoint-all order, so that 100 % always fits;
//   * `budget=min` is the smallest budget the solver meets, the arena
//     included: one search (findSmallestBudget) whose memory of a plan is
//     its arena when the arena is on, so the budget it names plans when
//     asked and no larger one is refused;
//   * in mode min-compute, on a graph whose parameter gathers are not
//     pinned, the plans of the fixed gather policies (keep, re-gather) are
//     tried too and the cheapest wins;
//   * when the solver finds nothing at the budget, or its plan's arena
//     does not fit even after other offsets, orders and lower targets
//     (fitArena), the plan at the smallest budget is taken when that budget
//     is within this one (feasibility stays monotone in the budget);
//     otherwise the failure names that smallest budget;
//   * with a host link (`offload`): in mode min-compute at a budget given,
//     the joint plan of Offload.h, a host budget too small for it naming
//     the host bytes that plan; with budget=min, in modes min-budget and
//     (without the arena) min-peak, the plan at the smallest device budget
//     found (findSmallestOffloadedBudget), min-peak's limit on the
//     predicted time (stalls included) rather than the compute. With the
//     arena, the device buffers' arena fitted to the budget (other offsets,
//     then the joint plan at lower device targets), and each smallest
//     budget one at which the arena fits.
//
// Plain C++, no MLIR: every schedule it returns was simulated within the
// budget and, with the arena, its arena was planned within it too.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_SEARCH_PLANNER_H
#define REMAT_SOLVER_SEARCH_PLANNER_H

#include "remat/Solver/Search/ArenaFit.h"
#include "remat/Solver/Search/Modes.h"
#include "remat/Solver/Search/Offload.h"
#include "remat/Solver/Core/Simulator.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace remat {

/// What a user asks of the planner.
struct PlanRequest {
  /// A registered solver's name (Registry).
  std::string solver = "auto";
  /// A plan mode (isPlanMode): every mode but pareto.
  Mode mode = Mode::MinCompute;
  /// The budget as written: "" (none: the reference peak, with nothing
  /// fitted to it), "min" (the smallest the solver meets, in mode
  /// min-compute), or bytes or a percentage of the reference peak
  /// (parseBudget).
  std::string budget;
  /// Effort, time limit, threads, min-peak's overhead and the progress
  /// callback; the budget and objective in it are ignored.
  SolveOptions solve;
  /// Whether the plan's buffers get one static arena that the budget must
  /// cover (ArenaFit.h), and its alignment (that of the lowering).
  bool arena = false;
  int64_t arenaAlignment = 16;
  /// max-batch: the largest batch tried, in samples.
  int64_t maxBatch = int64_t(1) << 20;
  /// Offloading to host memory over a link (Offload.h); none: keep or
  /// recompute only.
  std::optional<OffloadRequest> offload;
};

/// Why `plan` returned no plan.
enum class PlanFailure {
  None,
  /// An unknown solver, bad options, a budget that does not parse, a mode
  /// the request cannot be asked in.
  BadRequest,
  /// The solver does not apply to the graph (`reason` is its message).
  Unsupported,
  /// No schedule within the budget (`smallestBudget` when one was found).
  NoSchedule,
  /// budget=min: the solver meets no budget at all.
  NoSmallestBudget,
  /// min-peak: the least peak found is over the budget given.
  PeakOverBudget,
  /// max-batch: not even one sample fits.
  BelowOneSample,
  /// The schedule fits, its arena does not (`arenaSteps`: what was tried).
  ArenaOverBudget,
  /// The arena cannot be planned at all (`reason`).
  NoArena,
  /// With offloading: a plan fits the device only with more host memory
  /// than the link's host budget (`hostNeeded`).
  HostOverBudget,
};

/// The checkpoint-all reference of a graph.
struct PlanBaseline {
  /// The graph's own order, every value kept.
  Simulation checkpointAll;
  /// With the arena: that order's arena, resident bytes included; else 0.
  int64_t arenaBytes = 0;
  /// What percentage budgets are of: the larger of the two.
  int64_t reference() const {
    return std::max(checkpointAll.peakBytes, arenaBytes);
  }
};

/// The planner's answer: a plan, or a failure with what it knows.
struct PlanOutcome {
  PlanFailure failure = PlanFailure::None;
  /// For a failure: one line (without location) saying what went wrong.
  std::string reason;
  /// The smallest budget the solver meets (its arena included when
  /// `smallestHasArena`; in mode min-budget, the search's answer); -1 when
  /// unknown.
  int64_t smallestBudget = -1;
  bool smallestHasArena = false;
  PlanBaseline baseline;
  /// The schedule (feasible on success; on NoSchedule the solver's answer).
  SolveResult result;
  /// The solver and mode the plan answers.
  std::string solver;
  Mode mode = Mode::MinCompute;
  /// The budget to record (-1: the schedule's own peak).
  int64_t budget = -1;
  /// max-batch: the batch, in samples, the plan is for (result and
  /// baseline are then at that batch); 0 otherwise.
  int64_t batch = 0;
  /// With the arena and a budget: the arena fitted to it.
  std::optional<ArenaFit> arena;
  /// With offloading: the plan simulated on the link (its predicted time,
  /// stalls, host bytes and copies), and on HostOverBudget the host budget
  /// that plans.
  std::optional<Simulation> onLink;
  int64_t hostNeeded = -1;
  /// Things the user should know about a plan (a smaller budget's plan
  /// taken, the smallest budget found), one line each.
  std::vector<std::string> remarks;
  /// Wall time of the whole request: solves, searches and arena fits.
  double seconds = 0;

  bool succeeded() const { return failure == PlanFailure::None; }
};

/// The checkpoint-all reference of `graph` (with the arena of `alignment`
/// when `arena`).
PlanBaseline computeBaseline(const Graph &graph, bool arena,
                             int64_t alignment);

/// Plans `graph` as `request` asks (file comment).
PlanOutcome plan(const Graph &graph, const PlanRequest &request);

/// "the arena of T bytes exceeds the budget of B bytes, though ...": the
/// failure of an arena `fit` over `budget`, with the steps tried and the
/// smallest feasible budget (when >= 0).
std::string describeArenaOverBudget(const ArenaFit &fit, int64_t budget,
                                    int64_t smallest);

/// The arena to record for `result`'s schedule: planned against `budget`
/// (-1: none given, then only reported), `fits` telling whether it does.
ArenaFit planRecordedArena(const Graph &graph, const SolveResult &result,
                           int64_t budget, int64_t alignment);

} // namespace remat

#endif // REMAT_SOLVER_SEARCH_PLANNER_H
