//===- Solver.h - the checkpoint solver interface ---------------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Every solver is a free function `SolveResult solveX(const Graph &, const
// SolveOptions &)`. Its answer is always checked by `simulate` before it is
// returned with a feasible status. The registry maps names (the CLI's and
// the passes' `--solver` values) to those functions.
//
// Same input, same plan: every search is bounded by a count of work (moves
// evaluated, schedule steps simulated, LP iterations, branch-and-bound
// nodes), never by the clock, so the same graph, options and `effort` give
// the same plan on an idle machine and on a loaded one. The wall-clock limit
// is a safety cap only; a solve that it stops says so
// (`SolveResult::stoppedByTimeLimit`), since that plan may differ between
// runs. A solve carries its allowance (`SolveAllowance`: its work and one
// absolute deadline) down to the members and probes it runs, each taking
// its share (`WorkMeter`, SolverSupport.h).
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_CORE_SOLVER_H
#define REMAT_SOLVER_CORE_SOLVER_H

#include "remat/Solver/Core/Problem.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace remat {

/// What a solver optimizes.
enum class Objective {
  /// Minimize total compute cost subject to peak <= budget.
  MinComputeUnderBudget,
  /// Minimize peak subject to compute <= checkpoint-all cost * (1 +
  /// maxOverhead); maxOverhead = 1 forward pass by default.
  MinPeakUnderOverhead,
};

/// A report from a running solve, for progress output. Solvers send one at
/// each phase change (`phase`) and otherwise at most about one a second.
struct SolveProgress {
  /// Who reports: a solver name, or a search such as "min-budget".
  std::string solver;
  /// The incumbent's cost and peak; -1 when there is none or it is unknown
  /// (the MILP knows its objective, not the peak, before it is expanded).
  double incumbentCost = -1;
  int64_t incumbentPeak = -1;
  /// A proven lower bound on the objective, or -1 when none is known.
  double lowerBound = -1;
  /// Seconds since the reporting solve (or search) started.
  double seconds = 0;
  /// What happened, for example "CBC: new incumbent" or "probe 3 at 1200".
  std::string message;
  /// A phase change (a probe ended, a member solver finished); the others
  /// are periodic and may be dropped by a caller that throttles output.
  bool phase = false;
};

using ProgressFn = std::function<void(const SolveProgress &)>;

/// What one solve may spend: work units, the deterministic bound, and an
/// absolute deadline, the safety cap. A solve passes a part of its own to
/// each member or probe it runs (`WorkMeter::allowance`); a field left unset
/// is filled when the solve starts, from `SolveOptions::effort` and
/// `SolveOptions::timeLimitSeconds`.
struct SolveAllowance {
  using Clock = std::chrono::steady_clock;
  /// Work units (about one schedule step built and simulated each;
  /// docs/Solvers.md, "Effort"); negative: `effort` times `kWorkPerEffort`.
  int64_t work = -1;
  /// When the solve must stop, whatever work is left; the clock's epoch
  /// (the default): `timeLimitSeconds` from the start of the solve.
  Clock::time_point deadline{};
};

/// What the outputs (the result JSON, the pass's remark) say of a plan
/// that the time limit, not the work budget, ended.
inline constexpr const char *kStoppedByTimeLimit =
    "stopped by the time limit: this plan may differ between runs";

/// The work units of effort 1: about 9 s of search on a 10,000-node graph
/// on a 2-core machine (docs/Solvers.md has the measurements).
inline constexpr int64_t kWorkPerEffort = 250'000'000;

class CheckpointMemo;

struct SolveOptions {
  Objective objective = Objective::MinComputeUnderBudget;
  /// Peak-memory budget in bytes, resident bytes included.
  int64_t budget = std::numeric_limits<int64_t>::max();
  /// For MinPeakUnderOverhead: allowed extra compute, as a fraction of the
  /// checkpoint-all cost; negative means "one extra forward pass".
  double maxOverhead = -1;
  /// How much the searching solvers may work, as a multiple of the default:
  /// their work budget is `effort * kWorkPerEffort` units. The plan depends
  /// on it (more effort: more moves, more probes), not on the machine.
  double effort = 1;
  /// The wall-clock safety cap, in seconds: a solve still searching then
  /// stops with its best so far and says so (`stoppedByTimeLimit`).
  double timeLimitSeconds = 600;
  /// This solve's allowance, set by the solve that runs it (see
  /// `SolveAllowance`); unset for a solve of its own.
  SolveAllowance allowance;
  /// Worker threads for solvers that can use them.
  int threads = 2;
  /// Whether the portfolio (`auto`) may spend what is left of the time limit
  /// on its last resort, the Checkmate MILP on small graphs where no fast
  /// solver found a plan. The mode searches turn it off for their probes,
  /// where an infeasible probe would otherwise take the whole limit.
  bool lastResort = true;
  /// Whether the portfolio (`auto`) may try deferring outputs to the end of
  /// the step (Deferral.h) when its fast members miss the budget. Off inside
  /// that attempt.
  bool deferOutputs = true;
  /// The evaluations of checkpoint sets the solves of one plan share
  /// (ScheduleBuilder.h); a solve without one remembers its own.
  std::shared_ptr<CheckpointMemo> checkpointMemo;
  /// Optional progress callback, called on the solving thread by the
  /// long-running solvers (Checkmate MILP, LP rounding, local search, the
  /// portfolio) and the mode searches; see `SolveProgress`.
  ProgressFn progress;
};

/// `options.allowance` with its unset fields filled: the work from
/// `effort`, the deadline `timeLimitSeconds` from now. A caller whose
/// solves share one deadline (a solve and the search after it) sets it so.
SolveAllowance startAllowance(const SolveOptions &options);

/// Why `options` cannot be solved with; empty when they are valid: a finite
/// positive time limit and effort, at least one thread, a finite overhead.
std::string checkSolveOptions(const SolveOptions &options);

enum class SolveStatus {
  Optimal,     ///< Proven optimal for the objective.
  Feasible,    ///< Verified feasible; not proven optimal.
  Infeasible,  ///< Proven (or, for heuristics, found) to have no solution.
  Timeout,     ///< The work or the time ran out before any feasible schedule.
  Unsupported, ///< The solver does not apply to this graph or objective.
};

const char *toString(SolveStatus status);

struct SolveResult {
  SolveStatus status = SolveStatus::Unsupported;
  Schedule schedule;
  /// Peak and cost of `schedule` as simulated; meaningful when feasible.
  int64_t peakBytes = 0;
  double cost = 0;
  /// A proven lower bound on the objective, or -1 when none is known.
  double lowerBound = -1;
  double seconds = 0;
  /// Work units the solve used, nested solves included (deterministic).
  int64_t work = 0;
  /// Whether the wall-clock cap, not the work budget, ended a search of
  /// this solve (or of one it ran): the answer may differ between runs.
  bool stoppedByTimeLimit = false;
  std::string solver;
  /// Why the status is what it is (for Infeasible/Timeout/Unsupported).
  std::string message;

  bool feasible() const {
    return status == SolveStatus::Optimal || status == SolveStatus::Feasible;
  }
};

using SolverFn =
    std::function<SolveResult(const Graph &, const SolveOptions &)>;

struct SolverInfo {
  std::string name;
  std::string description;
  SolverFn solve;
  /// Whether an Infeasible answer proves that no schedule exists (exact
  /// solvers); heuristics only failed to find one.
  bool exact = false;
  /// Whether it runs other registered solvers (the portfolio).
  bool composite = false;
  /// Whether it is a quick heuristic (neither exact nor composite, nor one of
  /// the Checkmate solvers): the registered MILP offers its schedules as
  /// warm starts (`withRegisteredWarmStarts`, Checkmate.h).
  bool heuristic = false;
};

/// Every registered solver, in a stable order.
const std::vector<SolverInfo> &allSolvers();

/// The solver named `name`, or nullptr.
const SolverInfo *findSolver(const std::string &name);

/// Every registered name, comma-separated (for "unknown solver" errors).
std::string solverNames();

} // namespace remat

#endif // REMAT_SOLVER_CORE_SOLVER_H
