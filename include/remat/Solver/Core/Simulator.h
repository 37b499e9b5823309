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

#include "remat/Solver/Core/HostLink.h"
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
  /// When each step is issued on the compute stream, in cost units from
  /// the start: a compute step when it starts (after its waits), any other
  /// step when the compute before it ends.
  std::vector<double> startOfStep;
  /// The predicted step time: `cost` plus `stall`.
  double time = 0;
  /// Time the compute stream waited for prefetches to arrive, and, where
  /// the link carries the parameter gathers, for the link to be free.
  double stall = 0;
  /// Host copies: the most bytes held on the host at once, the number of
  /// copies (offloads and prefetches) and the bytes they moved.
  int64_t hostPeakBytes = 0;
  int64_t copies = 0;
  int64_t bytesMoved = 0;
  /// For each offload step, in order: the step at which its device bytes
  /// stopped counting (the number of steps when they count to the end).
  std::vector<size_t> offloadEnds;

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
///
/// Offload and prefetch steps need `link`; a schedule with them and no
/// link is invalid. Compute runs on one stream, each step taking its node's
/// cost; copies run on one stream per direction, in issue order, each
/// taking `link->copyCost`. An offload is issued when the compute before it
/// ends; its device bytes stop counting at the first compute or prefetch
/// step issued after the copy is done (its lifetime ends at that step). A
/// prefetch starts no earlier than its value's offload is done, allocates
/// at once, and a compute step reading the value starts no earlier than the
/// copy is done: the wait is a stall. A wait step (Step::Kind::Wait) names
/// its node's oldest offload not yet waited for: that offload's device
/// bytes stop counting at the wait, or at the first compute or prefetch
/// step issued after its copy is done if that is later; a wait never holds
/// the compute stream (a lowering joins the copy where its bytes are next
/// written), and names an offload issued before it. Invalid as well: reading,
/// freeing or recomputing a value while it is on the host (an offloaded value
/// is prefetched, never computed again), offloading a value not live or one
/// sharing its storage with another live value, and a value still on the
/// host at the end. Offloading a view moves its whole storage; its prefetch
/// brings back a storage of its own. Where `link->carriesGathers`, a
/// parameter gather (GatherRole::Gather) starts no earlier than the copies
/// issued before it are done, in both directions (the wait is a stall), and
/// the copies issued after it start no earlier than it ends.
Simulation simulate(const Graph &graph, const Schedule &schedule,
                    std::vector<StorageLifetime> *lifetimes = nullptr,
                    const HostLink *link = nullptr);

/// The schedule that computes nodes in `order` (a node may appear several
/// times: recomputation) and frees eagerly: every computed copy right after
/// its last read before the node is computed again; the final copy of an
/// output never. Sets `error` (when non-null) and returns an empty schedule
/// if a node is computed before one of its dependencies ever was, or a
/// position names a node that cannot be computed.
Schedule scheduleFromComputeOrder(const Graph &graph,
                                  const std::vector<int> &order,
                                  std::string *error = nullptr);

/// `scheduleFromComputeOrder` for `steps` that also move values to the host
/// and back (their frees dropped): a prefetch makes a copy as a compute
/// does; an offload ends the copy it moves without a free (the copy takes
/// its bytes), so an offloaded value is freed by no step; waits stay where
/// they are.
Schedule scheduleAtLastUse(const Graph &graph, const std::vector<Step> &steps,
                           std::string *error = nullptr);

/// The nodes `schedule` computes, in order (its compute order).
std::vector<int> computeOrderOf(const Schedule &schedule);

} // namespace remat

#endif // REMAT_SOLVER_CORE_SIMULATOR_H
