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

#ifndef REMAT_SOLVER_CORE_SIMULATOR_H
#define REMAT_SOLVER_CORE_SIMULATOR_H

#include "remat/Solver/Core/Problem.h"

#include <string>
#include <vector>

namespace remat {

/// What simulating a schedule found.
struct Simulation {
  /// Empty when the schedule is valid: every dependency resident when a node
  /// is computed, every node it comes after (`Node::after`) computed before,
  /// nothing freed that is not live, no value computed while already live,
  /// every output resident at the end. Otherwise the first violation, naming
  /// the step.
  std::string error;
  /// Largest live bytes after any compute step, resident bytes included.
  int64_t peakBytes = 0;
  /// Sum of the cost of every compute step.
  double cost = 0;
  /// Live bytes after each step (resident bytes included).
  std::vector<int64_t> liveAfterStep;

  bool valid() const { return error.empty(); }
};

/// The live range of one storage the simulator allocated: computing a
/// non-view node allocates one; its views share it.
struct StorageLifetime {
  /// The node whose computation allocated it.
  int node = -1;
  int64_t bytes = 0;
  /// The index (in the schedule's steps) of that compute step.
  size_t begin = 0;
  /// The index of the free step that dropped its last reference, or the
  /// number of steps when it is live at the end.
  size_t end = 0;
};

/// Replays `schedule` on `graph` under the memory model of Problem.h. With
/// `lifetimes`, also records the live range of every storage it allocates
/// (in allocation order; only when the schedule is valid).
Simulation simulate(const Graph &graph, const Schedule &schedule,
                    std::vector<StorageLifetime> *lifetimes = nullptr);

/// The schedule that computes nodes in `order` (a node may appear several
/// times: recomputation) and frees eagerly: every computed copy right after
/// its last read before the node is computed again; the final copy of an
/// output never. Sets `error` (when non-null) and returns an empty schedule
/// if a node is computed before one of its dependencies ever was, or a
/// position names a node that cannot be computed.
Schedule scheduleFromComputeOrder(const Graph &graph,
                                  const std::vector<int> &order,
                                  std::string *error = nullptr);

/// The nodes `schedule` computes, in order (its compute order).
std::vector<int> computeOrderOf(const Schedule &schedule);

} // namespace remat

#endif // REMAT_SOLVER_CORE_SIMULATOR_H
