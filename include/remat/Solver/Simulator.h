//===- Simulator.h - checks a schedule, measures its peak -------*- C++ -*-===//
//
// Part of the remat-opt project.
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

} // namespace remat

#endif // REMAT_SOLVER_SIMULATOR_H
