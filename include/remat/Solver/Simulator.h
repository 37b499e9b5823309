//===- Simulator.h - checks a schedule, measures its peak -------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The one simulator every solver's answer is verified by, and the eager
// schedule of a compute order under the same memory model (which the
// orderings, the answer checks and the schedule builder all start from).
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_SIMULATOR_H
#define REMAT_SOLVER_SIMULATOR_H

#include "remat/Solver/Problem.h"

#include <string>
#include <vector>

namespace remat {

/// What simulating a schedule found.
struct Simulation {
  /// Empty when the schedule is valid: every dependency resident when a node
  /// is computed, nothing freed that is not live, no value computed while
  /// already live, every output resident at the end. Otherwise the first
  /// violation, naming the step.
  std::string error;
  /// Largest live bytes after any compute step, resident bytes included.
  int64_t peakBytes = 0;
  /// Sum of the cost of every compute step.
  double cost = 0;
  /// Live bytes after each step (resident bytes included).
  std::vector<int64_t> liveAfterStep;

  bool valid() const { return error.empty(); }
};

/// Replays `schedule` on `graph` under the memory model of Problem.h.
Simulation simulate(const Graph &graph, const Schedule &schedule);

/// The schedule that computes nodes in `order` (a node may appear several
/// times: recomputation) and frees eagerly: every computed copy right after
/// its last read before the node is computed again; the final copy of an
/// output never. Sets `error` (when non-null) and returns an empty schedule
/// if a node is computed before one of its dependencies ever was, or a
/// position names a node that cannot be computed.
Schedule scheduleFromComputeOrder(const Graph &graph,
                                  const std::vector<int> &order,
                                  std::string *error = nullptr);

} // namespace remat

#endif // REMAT_SOLVER_SIMULATOR_H
