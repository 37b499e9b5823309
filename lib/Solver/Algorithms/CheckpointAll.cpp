//===- CheckpointAll.cpp - the framework default --------------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/SolverSupport.h"
#include "remat/Solver/Algorithms/Solvers.h"

using namespace remat;

SolveResult remat::solveCheckpointAll(const Graph &graph,
                                      const SolveOptions &options) {
  WorkMeter meter(options);
  // Every needed node is computed exactly once: no schedule costs less, so
  // for MinComputeUnderBudget a fitting checkpoint-all schedule is optimal.
  SolveStatus claimed = options.objective == Objective::MinComputeUnderBudget
                            ? SolveStatus::Optimal
                            : SolveStatus::Feasible;
  SolveResult result =
      finishSolve(graph, options, "checkpoint-all",
                  checkpointAllSchedule(graph), claimed, meter);
  if (options.objective == Objective::MinComputeUnderBudget)
    result.lowerBound = checkpointAllCost(graph);
  return result;
}
