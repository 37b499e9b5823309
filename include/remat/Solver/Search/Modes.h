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
//   * max-batch: the largest batch, in samples, whose graph the solver fits
//     in the budget, by doubling then bisection from the traced batch; each
//     node scales as the graph says (Problem.h, "Batch scaling"): a graph
//     without batch scaling is refused, not guessed at;
//   * pareto: the (budget -> peak, compute) curve from the checkpoint-all
//     peak down to the smallest budget, monotone by construction.
//
// Heuristics are not monotone in the budget in general; the searches return
// the best verified answer they saw, never an unverified one, and the
// smallest budget they report is one at which the solver, asked with the
// same options and effort (a whole solve's work, as a user who asks at that
// budget gets), returned a plan: asking there returns that plan. Each probe
// is a phase for `SolveOptions::progress`. Probes run without
// `SolveOptions::lastResort` (auto's MILP fallback on small graphs, which
// runs only where no member found a plan), so that an infeasible probe does
// not take the MILP's allowance.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_SEARCH_MODES_H
#define REMAT_SOLVER_SEARCH_MODES_H

#include "remat/Solver/Core/Solver.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace remat {

/// What to ask of a solver: the one mode enum of remat-solve's `--mode`, the
/// passes' `mode=` and the result JSON's "mode".
enum class Mode { MinCompute, MinPeak, MinBudget, MaxBatch, Pareto };

/// A mode's name (as `--mode`, `mode=` and the JSON spell it) and a
/// one-line description for `--help`.
struct ModeInfo {
  Mode mode;
  const char *name;
  const char *description;
};

/// Every mode, in the order `--help` lists them: the one table that
/// `toString`, `parseMode` and the command-line values (ModeOption.h) read.
const std::vector<ModeInfo> &allModes();

/// "min-compute", "min-peak", "min-budget", "max-batch", "pareto".
const char *toString(Mode mode);
/// Parses a mode name; false when unknown.
bool parseMode(const std::string &name, Mode &mode);
/// Whether `mode` answers with one plan that the IR can record: every mode
/// but pareto, whose answer is a curve. These are the passes' modes.
bool isPlanMode(Mode mode);

/// Why max-batch cannot run on `graph` (it carries no batch scaling, naming
/// the JSON fields that give it), or "" when it can.
std::string batchScalingProblem(const Graph &graph);

/// The graph at `samples` samples (>= 1): each node's bytes and cost at the
/// traced batch plus (samples - batch) times its per-sample part; fixed
/// bytes unchanged. std::nullopt when `graph` has no batch scaling or the
/// sizes at `samples` exceed the graph limits (`Graph::checkTotals`).
std::optional<Graph> scaleBatch(const Graph &graph, int64_t samples);

/// One solve of a search: the budget asked and the solver's answer.
struct BudgetProbe {
  int64_t budget = 0;
  SolveResult result;
  /// The bytes its plan needs of a budget (`PlanMemory`); -1 when none.
  int64_t memory = -1;
};

/// The bytes a plan the solver found at `budget` needs of a budget: by
/// default its sum-of-live peak; with a static memory plan, its arena and
/// the resident bytes (ArenaFit.h), after mending `result` to need fewer
/// (another order of the same computations; for a whole solve, `whole`,
/// what a user asking at `budget` gets). -1 when it has none. A search
/// with one meets a budget only where the memory is within it.
using PlanMemory =
    std::function<int64_t(int64_t budget, SolveResult &result, bool whole)>;

struct BudgetSearch {
  /// The solver's answer at `smallestBudget` (its status says whether one
  /// was found at all; when none was, the first probe's answer).
  SolveResult best;
  /// The smallest budget at which the solver returned a plan when asked at
  /// exactly that budget; -1 when it met none. best.peakBytes is at most
  /// this, and equal unless the solver is not monotone in the budget.
  int64_t smallestBudget = -1;
  /// A proven lower bound on the smallest budget: `peakLowerBound`, or the
  /// bisection's bound when the solver is exact.
  int64_t lowerBound = 0;
  int probes = 0;
  /// Every probe, in order (schedules of infeasible answers included).
  std::vector<BudgetProbe> answers;
};

/// Smallest budget `solver` meets (MinComputeUnderBudget at each probe),
/// bisecting between the lower bound and the checkpoint-all peak to a
/// resolution of 0.1 % (or 1 byte). The top (the checkpoint-all peak) is
/// asked with a whole solve's work (`options`' allowance or effort); the
/// bisection's probes share three solves' work, each an equal share of what
/// is left among the probes still expected, and stop when it is spent,
/// keeping the bracket so far. A plan found at budget X has a peak P <= X,
/// but the solver asked at P itself, or at X with a whole solve's work, may
/// find nothing (LP rounding tightens its LP with the budget; the local
/// search's path depends on its work): so the smallest verified peaks and
/// probe budgets are confirmed by whole solves, smallest first, at most
/// three, and the smallest budget confirmed is the answer (the top when
/// none is; when the time limit stops the search first, the smallest budget
/// any probe met, with its plan, and `best` says the limit stopped it).
/// Before the bisection, one quick probe (1 % of a solve's work)
/// a resolution step below the checkpoint-all peak (at the lower bound when
/// that is closer): when a heuristic answers Infeasible there, and again
/// with a fifth of a solve's work, the search ends with the peak (budgets
/// that cannot be met are often met nowhere below it, and every probe of a
/// bisection would spend its whole share failing); a timeout there proves
/// nothing. Then one min-peak solve without a cost limit (a whole solve's
/// work, on top of the probes'): the memory its plan needs is a candidate
/// to confirm. Past the time limit no probe starts. `best` carries the
/// search's seconds and work. With `memory`, every "met" above reads "the
/// plan's memory is within the budget", and the candidates are the plans'
/// memories instead of their peaks: one search for the smallest budget
/// that covers it. When the top's plan needs more than the top, a whole
/// solve a resolution step below it comes first (a plan of a smaller peak),
/// then, when that misses, one at the top's memory.
BudgetSearch findSmallestBudget(const Graph &graph, const SolverInfo &solver,
                                const SolveOptions &options,
                                const PlanMemory &memory = nullptr);

struct BatchSearch {
  /// Largest feasible batch found, in samples; 0 when even one sample does
  /// not fit.
  int64_t batch = 0;
  /// The solver's answer at that batch (its peak is the peak at that
  /// batch), or at one sample when none fits; Unsupported when the graph
  /// has no batch scaling (`batchScalingProblem`).
  SolveResult result;
  int probes = 0;
};

/// How max-batch plans the graph at one batch under options.budget (with
/// offloading: the joint plan, Offload.h); `solver` itself when empty.
using BatchPlanner =
    std::function<SolveResult(const Graph &, const SolveOptions &)>;

/// Largest batch in [1, maxBatch] samples that `solver` (or `planBatch`)
/// fits under options.budget: the traced batch first, then doubling up from
/// it or bisection below it, each probe a whole solve (the same effort as a
/// solve at that batch), until the time limit at most. A batch beyond the
/// graph limits does not fit, nor one whose `peakBound` passes the budget
/// (the solver is not asked).
BatchSearch findMaxBatch(const Graph &graph, const SolverInfo &solver,
                         const SolveOptions &options,
                         int64_t maxBatch = int64_t(1) << 20,
                         const BatchPlanner &planBatch = nullptr);

/// One point of a Pareto curve.
struct ParetoPoint {
  int64_t budget = 0;
  /// The cheapest verified plan of the whole search whose peak fits
  /// `budget` (ties: the smaller peak). Its status is Optimal when the plan
  /// was proven optimal at a budget >= this one, or costs what
  /// checkpoint-all costs; Feasible otherwise. `solver` names who found it.
  SolveResult result;
  /// The budget of the probe that found the plan (>= its peak; may differ
  /// from `budget`).
  int64_t foundAtBudget = 0;
  /// Wall time of the solver's own run at `budget`.
  double seconds = 0;
};

/// The (budget -> peak, compute) trade-off of one solver.
struct ParetoCurve {
  /// Budgets descending from the checkpoint-all peak to `smallestBudget`.
  /// Peak and cost are monotone by construction: a smaller budget never has
  /// a larger peak nor a smaller cost. Empty when the solver met no budget.
  std::vector<ParetoPoint> points;
  int64_t checkpointAllPeak = 0;
  double checkpointAllCost = 0;
  /// From `findSmallestBudget`.
  int64_t smallestBudget = -1;
  int64_t budgetLowerBound = 0;
  int probes = 0;
  double seconds = 0;
  /// Work units of all its solves, and whether the time limit stopped one.
  int64_t work = 0;
  bool stoppedByTimeLimit = false;
  /// When `points` is empty: the solver's answer at the checkpoint-all peak.
  SolveResult failure;
};

/// The curve of `solver` at `points` budgets spaced evenly from the
/// checkpoint-all peak down to the smallest budget `findSmallestBudget`
/// finds (fewer when they coincide). Every verified plan of every probe
/// (the search's, one solve per budget, and checkpoint-all itself) is a
/// candidate for every budget; each point takes the cheapest that fits.
/// The points' solves share two solves' work, each an equal share of what
/// is left; `options.timeLimitSeconds` caps the whole curve (past it, a
/// point takes the best plan so far that fits).
ParetoCurve paretoCurve(const Graph &graph, const SolverInfo &solver,
                        const SolveOptions &options, int points = 10);

/// Runs `mode` with `solver`: MinCompute and MinPeak set the objective and
/// run the solver once (MinCompute not at all under a budget below
/// `peakBound`: Infeasible at once, the message naming the bound);
/// MinBudget and MaxBatch run the searches above and return their best
/// result (with `lowerBound` set to the budget bound for MinBudget). Pareto
/// returns Unsupported: its answer is a curve (`paretoCurve`).
SolveResult solveInMode(const Graph &graph, const SolverInfo &solver, Mode mode,
                        const SolveOptions &options);

} // namespace remat

#endif // REMAT_SOLVER_SEARCH_MODES_H
