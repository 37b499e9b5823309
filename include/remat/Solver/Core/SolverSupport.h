//===- SolverSupport.h - helpers every checkpoint solver shares -*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The pieces every solver uses to turn its answer into a `SolveResult`: the
// checkpoint-all reference cost, the compute limit of the
// MinPeakUnderOverhead objective, and `finishSolve`, which simulates the
// schedule and never lets an unverified or over-budget schedule through with
// a feasible status.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_CORE_SOLVERSUPPORT_H
#define REMAT_SOLVER_CORE_SOLVERSUPPORT_H

#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/Solver.h"
#include "remat/Solver/Core/WorkMeter.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace remat {

/// Marks the nodes a schedule must compute at least once: the non-resident
/// ancestors of the outputs (outputs included). Other nodes are dead code.
std::vector<char> neededNodes(const Graph &graph);

/// Cost of computing every needed node exactly once: the checkpoint-all
/// cost, and a lower bound on the cost of any valid schedule.
double checkpointAllCost(const Graph &graph);

/// Cost of computing every needed forward node once (one forward pass).
double forwardPassCost(const Graph &graph);

/// The factor that puts `graph`'s costs on its own scale: multiplied by
/// it, the needed nodes cost as much in total as they own bytes (one cost
/// unit is worth one byte, whatever the graph's unit: FLOPs, seconds,
/// picoseconds). 1 when nothing needed costs anything. Solvers compare
/// costs with bytes (min-cut's capacities) and with absolute tolerances;
/// on this scale both mean the same for every cost unit.
double costScale(const Graph &graph);

/// Runs `solve` on `graph` with its costs multiplied by `costScale(graph)`
/// and answers in the graph's own cost unit (the result's cost, a cost
/// bound, the progress reports). Every registered solver runs so
/// (Registry.cpp), so no plan depends on the cost unit. A graph already on
/// its scale is solved as it is.
SolveResult solveOnCostScale(const SolverFn &solve, const Graph &graph,
                             const SolveOptions &options);

/// For MinPeakUnderOverhead: the largest allowed total cost,
/// checkpointAllCost * (1 + maxOverhead), or checkpointAllCost plus one
/// forward pass when maxOverhead is negative. Infinity for other objectives.
double costLimit(const Graph &graph, const SolveOptions &options);

/// A lower bound on the peak of any valid schedule, and what sets it.
struct PeakBound {
  /// The bound: resident bytes plus the largest of, for every needed node,
  /// its own storage and its dependencies' storage (all live when it is
  /// computed), and the outputs' storage (all live at the end).
  int64_t bytes = 0;
  /// The resident bytes counted in `bytes`.
  int64_t residentBytes = 0;
  /// The node whose computation sets the bound; -1 when the outputs at the
  /// end (or the resident bytes alone) do.
  int node = -1;

  /// Says what the bound counts, for messages: "resident bytes R plus the
  /// graph's outputs (O bytes, all live at the end)" or "... plus node N
  /// ('name') and its operands (B bytes, all live while it is computed)".
  std::string describe(const Graph &graph) const;
};

/// The nodes `schedule` offloads, in step order (one per offload step).
std::vector<int> offloadedNodes(const Schedule &schedule);

/// The non-resident storage bytes that are live while `id` is computed: its
/// own and its operands', each storage once.
int64_t operandStorageBytes(const Graph &graph, int id);

/// The bound above; O(nodes + edges) and cheap next to any solve.
PeakBound peakBound(const Graph &graph);

/// `peakBound(graph).bytes`.
int64_t peakLowerBound(const Graph &graph);

/// Whether a schedule with (peakA, costA) is preferable to (peakB, costB)
/// under `options`: one that meets the constraints (budget, cost limit)
/// beats one that does not; among those that do, the objective decides
/// (ties broken by the other quantity); among those that do not, the one
/// closer to meeting them.
bool isBetter(const SolveOptions &options, double limit, int64_t peakA,
              double costA, int64_t peakB, double costB);

/// Whether result `a` is preferable to `b`: a feasible one to one that is
/// not, else `isBetter` on their peaks and costs.
bool isBetterResult(const SolveOptions &options, double limit,
                    const SolveResult &a, const SolveResult &b);

/// The first node pinned `KeepPolicy::Always` that `schedule` computes more
/// than once, or -1.
int recomputedPin(const Graph &graph, const Schedule &schedule);

/// The first node pinned `KeepPolicy::Never` one of whose copies `schedule`
/// lets both the forward pass (a forward node's first copy) and a
/// recomputation (a backward node, or a forward node computed again) read,
/// directly or through a view of it; or -1. The backward pass must read a
/// copy computed again for it, not the forward pass's: a parameter
/// re-gathered, not kept.
int sharedNeverPin(const Graph &graph, const Schedule &schedule);

/// `order` with what `sharedNeverPin` forbids mended: before a computation
/// that would read a `never` copy the other class reads, that value (and,
/// recursively, what it reads likewise) is computed again. `finishSolve`
/// applies it to every answer, so that every solver honors the pins.
std::vector<int> honorNeverPins(const Graph &graph,
                                const std::vector<int> &order);

/// The simulation of `schedule`, after its order is repaired around the
/// peak (`repairPeak`, Ordering.h: the same computations, so the same cost)
/// when the peak matters, over the budget or under the peak objective, and
/// the repair lowers it. The repair takes what is left of `meter`'s work, at
/// least `kRepairShare` of its allowance, and charges it there.
Simulation repairWherePeakMatters(const Graph &graph,
                                  const SolveOptions &options,
                                  Schedule &schedule, WorkMeter &meter);

/// The part of a solve's allowance its answer's peak repair may take beyond
/// it: a solver that spent its whole work still gets its answer repaired.
inline constexpr double kRepairShare = 0.03;

/// The part of a solve's allowance the min-cut sweep of its starting sets
/// (`minCutKeepSets`, in local search and the hierarchical solver) may take:
/// unbounded, the sweep takes seconds on large steps (2.5 s on 20,000 ops);
/// cut short, its prices still spread over the range.
inline constexpr double kSweepShare = 1.0 / 8;

/// Repairs the order (`repairWherePeakMatters`), simulates `schedule` and
/// builds the result `solver` returns: peak, cost, seconds, work and the
/// stop by the time limit filled in (from `meter`); status `claimed`
/// (Optimal or Feasible) only when the simulator accepts the schedule, no
/// `keep = always` node is recomputed, the peak is within the budget and,
/// for MinPeakUnderOverhead, the cost within `costLimit`; Infeasible with a
/// message saying why otherwise. The schedule is kept either way, for
/// diagnostics.
SolveResult finishSolve(const Graph &graph, const SolveOptions &options,
                        const std::string &solver, Schedule schedule,
                        SolveStatus claimed, WorkMeter &meter,
                        const std::string &message = "");

/// A result without a schedule (Unsupported, Infeasible, Timeout), with
/// `meter`'s seconds, work and stop by the time limit.
SolveResult failSolve(const std::string &solver, SolveStatus status,
                      const std::string &message, const WorkMeter &meter);

} // namespace remat

#endif // REMAT_SOLVER_CORE_SOLVERSUPPORT_H
