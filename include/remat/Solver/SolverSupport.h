//===- SolverSupport.h - helpers every checkpoint solver shares -*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The pieces every solver uses to turn its answer into a `SolveResult`: a
// stopwatch, the checkpoint-all reference cost, the compute limit of the
// MinPeakUnderOverhead objective, and `finishSolve`, which simulates the
// schedule and never lets an unverified or over-budget schedule through with
// a feasible status.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_SOLVERSUPPORT_H
#define REMAT_SOLVER_SOLVERSUPPORT_H

#include "remat/Solver/Simulator.h"
#include "remat/Solver/Solver.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace remat {

/// Wall-clock time since construction.
class Stopwatch {
public:
  Stopwatch() : start(std::chrono::steady_clock::now()) {}
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  }

private:
  std::chrono::steady_clock::time_point start;
};

/// A time limit for a solver that works in steps (one build and simulation,
/// one DP probe): it remembers the longest step so far and says the time is
/// up once one more step and the final verification of the answer (about as
/// long as one step) would pass the limit, so that the solver returns within
/// it instead of one step after it. Steps whose time grows with a size the
/// solver knows beforehand (revolve: the length of the compute order) pass
/// that size, and the deadline scales the longest time per unit of size.
class Deadline {
public:
  Deadline(const Stopwatch &watch, double limitSeconds)
      : watch(watch), limit(limitSeconds), last(watch.seconds()) {}

  /// Marks the end of one step of `size` units.
  void step(double size = 1) {
    double now = watch.seconds();
    perUnit = std::max(perUnit, (now - last) / std::max(size, 1.0));
    last = now;
  }
  /// Whether the next step (of `size` units) and the verification after it
  /// would not fit.
  bool reached(double size = 1) const { return size >= largestStep(); }
  /// The largest step size that still fits (infinite before the first
  /// step).
  double largestStep() const {
    if (perUnit <= 0)
      return watch.seconds() < limit ? HUGE_VAL : 0;
    return (limit - watch.seconds()) / (2 * perUnit);
  }
  double limitSeconds() const { return limit; }

private:
  const Stopwatch &watch;
  double limit, last, perUnit = 0;
};

/// Sends one solve's `SolveOptions::progress` reports: phase reports always,
/// periodic ones at most once per `kInterval` seconds. Does nothing when the
/// options carry no callback, so solvers may call it unconditionally; test
/// `due()` first when building the message costs more than a comparison.
///
///   ProgressReporter progress(options, "local-search", watch);
///   if (progress.due())
///     progress.report(cost, peak, -1, "pass " + std::to_string(passes));
class ProgressReporter {
public:
  static constexpr double kInterval = 1.0;

  ProgressReporter(const SolveOptions &options, std::string solver,
                   const Stopwatch &watch)
      : callback(options.progress), solver(std::move(solver)), watch(watch) {}

  /// Whether a periodic report would be sent now.
  bool due() const { return callback && watch.seconds() >= last + kInterval; }
  /// Sends a report if `phase` or `due()`.
  void report(double cost, int64_t peak, double lowerBound,
              const std::string &message, bool phase = false);

private:
  ProgressFn callback;
  std::string solver;
  const Stopwatch &watch;
  double last = 0;
};

/// `options` for a solve nested in a longer one (a probe of a mode search, a
/// member of the portfolio): its reports reach the outer callback as
/// periodic ones, so that only the outer solve's phases always print.
SolveOptions nestedOptions(const SolveOptions &options);

/// Marks the nodes a schedule must compute at least once: the non-resident
/// ancestors of the outputs (outputs included). Other nodes are dead code.
std::vector<char> neededNodes(const Graph &graph);

/// Cost of computing every needed node exactly once: the checkpoint-all
/// cost, and a lower bound on the cost of any valid schedule.
double checkpointAllCost(const Graph &graph);

/// Cost of computing every needed forward node once (one forward pass).
double forwardPassCost(const Graph &graph);

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

/// The first node pinned `KeepPolicy::Always` that `schedule` computes more
/// than once, or -1. (`Never` pins are a hint to the checkpoint-set solvers,
/// which never keep such a value across the forward/backward boundary; the
/// model has no exact boundary to verify them against.)
int recomputedPin(const Graph &graph, const Schedule &schedule);

/// The simulation of `schedule`, after its order is repaired around the
/// peak (`repairPeak`, Ordering.h: the same computations, so the same cost)
/// when the peak matters, over the budget or under the peak objective, and
/// the repair lowers it. The repair takes what is left of the solver's time
/// limit (`options.timeLimitSeconds`, on `watch`), at least a small share of
/// it.
Simulation repairWherePeakMatters(const Graph &graph,
                                  const SolveOptions &options,
                                  Schedule &schedule, const Stopwatch &watch);

/// Repairs the order (`repairWherePeakMatters`), simulates `schedule` and
/// builds the result `solver` returns: peak, cost
/// and seconds filled in; status `claimed` (Optimal or Feasible) only when
/// the simulator accepts the schedule, no `keep = always` node is
/// recomputed, the peak is within the budget and,
/// for MinPeakUnderOverhead, the cost within `costLimit`; Infeasible with a
/// message saying why otherwise. The schedule is kept either way, for
/// diagnostics.
SolveResult finishSolve(const Graph &graph, const SolveOptions &options,
                        const std::string &solver, Schedule schedule,
                        SolveStatus claimed, const Stopwatch &watch,
                        const std::string &message = "");

/// A result without a schedule (Unsupported, Infeasible, Timeout).
SolveResult failSolve(const std::string &solver, SolveStatus status,
                      const std::string &message, const Stopwatch &watch);

} // namespace remat

#endif // REMAT_SOLVER_SOLVERSUPPORT_H
