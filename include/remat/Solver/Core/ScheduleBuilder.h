//===- ScheduleBuilder.h - schedules from checkpoint sets -------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The one place that turns a solver's decision into a schedule, so that no
// solver writes its own compute/free bookkeeping:
//
//   * `scheduleFromComputeOrder` (Simulator.h, next to the memory model it
//     follows, so that the orderings and the answer checks below this file
//     can use it) takes the order in which nodes are computed (a node may
//     appear several times: recomputation) and adds the frees.
//   * `computeOrderFromCheckpoints` derives that order from a checkpoint set
//     (which recomputable nodes are kept from the forward pass to their last
//     backward use). Recomputable are the forward nodes and the backward
//     nodes that do not depend on the backward's seeds (masks, shifted
//     inputs, ... that a tracer puts in the backward): keeping such a node
//     computes it in the forward pass, where its operands are live, and may
//     be cheaper than keeping them. The forward pass runs in topological
//     order (forward nodes, and what kept nodes need); each other node
//     recomputes the non-kept values it needs from the nearest live values. The
//     forward nodes are split into segments at the kept nodes (in topological
//     order); consecutive backward nodes that need recomputation in the same
//     segment form a "run", and a value recomputed in a run is reused for the
//     rest of that run (seed 002, Appendix B: the cheapest recomputation for a
//     given retention, with the segment standing in for the stage). With
//     `reuseLastSegment`, the first backward run may use the forward pass's
//     values of its own segment (the last segment is not recomputed, as in Chen
//     et al.).
//
// `reorder` (Ordering.h) then decides when each copy runs (on demand,
// memory-greedy, or as built; by default the best of these).
//
// Every solver that produces a checkpoint set (Chen, Feng & Huang, local
// search) goes through `scheduleFromCheckpoints`; solvers that produce a
// compute order directly (revolve) go through `scheduleFromComputeOrder`.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_CORE_SCHEDULEBUILDER_H
#define REMAT_SOLVER_CORE_SCHEDULEBUILDER_H

#include "remat/Solver/Core/Ordering.h"
#include "remat/Solver/Core/Problem.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/SolverSupport.h"

#include <cstdint>
#include <string>
#include <vector>

namespace remat {

struct CheckpointOptions {
  /// Let the first backward run reuse forward values of its segment.
  bool reuseLastSegment = true;
  /// Recompute each dropped value at most once, in one backward run, and
  /// hold it to its last backward use (the saved-set semantics of PyTorch's
  /// partitioner) instead of per-segment runs; overrides the one above.
  bool recomputeOnce = false;
  /// How to rearrange the compute order (Ordering.h): the same cost; `Best`
  /// never gives a higher peak than the order as built.
  OrderPolicy order = OrderPolicy::Best;
};

/// The builder variants a checkpoint set is tried with: segmented runs
/// (Chen et al.) and recompute-once, both reordered.
std::vector<CheckpointOptions> builderVariants();

/// The nodes a checkpoint set may drop and recompute (see the file comment).
std::vector<char> recomputableNodes(const Graph &graph);

/// The compute order for checkpoint set `keep` (indexed by node; only
/// recomputable nodes matter), before any reordering. Outputs and
/// `KeepPolicy::Always` nodes are always kept; `KeepPolicy::Never` nodes
/// never are (unless they are outputs).
std::vector<int>
computeOrderFromCheckpoints(const Graph &graph, const std::vector<char> &keep,
                            const CheckpointOptions &options = {});

/// scheduleFromComputeOrder(computeOrderFromCheckpoints(...)).
Schedule scheduleFromCheckpoints(const Graph &graph,
                                 const std::vector<char> &keep,
                                 const CheckpointOptions &options = {});

/// The reference: every needed node computed once in topological order,
/// each value freed after its last use (nothing is recomputed).
Schedule checkpointAllSchedule(const Graph &graph);

/// Peak and cost of a checkpoint set, simulated (invalid never happens for
/// a checked graph; peak is then the simulated peak), and the schedule
/// measured, so that the winner need not be built again.
struct CheckpointEval {
  int64_t peakBytes = 0;
  double cost = 0;
  Schedule schedule;
  /// The work units of the evaluation (`orderWork`), for the caller's meter.
  int64_t work = 0;
};
CheckpointEval evaluateCheckpoints(const Graph &graph,
                                   const std::vector<char> &keep,
                                   const CheckpointOptions &options = {});

/// Evaluates every checkpoint set in `sets` with every builder variant,
/// keeps the best for `options` (`isBetter`), and returns it verified by
/// `finishSolve` under the name `solver` (status Feasible, or Infeasible when
/// even the best misses the constraints). `bestIndex`, when non-null, receives
/// the winner's index. The evaluations are charged to `meter`; once it is
/// exhausted, the best evaluated so far (at least one) is the answer.
SolveResult solveFromCheckpointSets(const Graph &graph,
                                    const SolveOptions &options,
                                    const std::string &solver,
                                    const std::vector<std::vector<char>> &sets,
                                    WorkMeter &meter, int *bestIndex = nullptr);

/// The needed forward nodes in topological order.
std::vector<int> forwardOrder(const Graph &graph);

/// The needed forward nodes no forward-to-forward edge jumps over in
/// topological order: every path from an earlier forward node to a later
/// one passes through them (the articulation points of the linearized
/// forward graph, Chen et al.'s candidate checkpoints).
std::vector<int> articulationPoints(const Graph &graph);

/// Whether the needed forward nodes form a chain: each reads exactly the
/// previous one among forward nodes (plus inputs and params). Sets `chain`
/// to them in order.
bool isForwardChain(const Graph &graph, std::vector<int> *chain = nullptr);

/// Storage bytes a forward node adds when kept (0 for views).
int64_t ownedBytes(const Graph &graph, int id);

/// The owned bytes of every needed forward node together (the total Chen's
/// greedy walks divide into segments).
double forwardBytes(const Graph &graph);

} // namespace remat

#endif // REMAT_SOLVER_CORE_SCHEDULEBUILDER_H
