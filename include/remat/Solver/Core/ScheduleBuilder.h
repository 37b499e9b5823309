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
#include <memory>
#include <string>
#include <unordered_map>
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
  /// Whether `schedule` is built: an evaluation a `CheckpointMemo`
  /// held comes without it (`buildCheckpointSchedule`).
  bool built = true;
};
CheckpointEval evaluateCheckpoints(const Graph &graph,
                                   const std::vector<char> &keep,
                                   const CheckpointOptions &options = {});

struct CheckpointBasis;

/// The peaks, costs and work units of the checkpoint sets evaluated on one
/// graph, remembered without their schedules. The searches evaluate the
/// same sets again and again: a climb revisits sets, and every probe of a
/// smallest-budget search ranks the same starting sets. An evaluation does
/// not depend on the budget, so the solves of one plan share them
/// (`CheckpointMemo`). A remembered evaluation is charged its work again,
/// so that the plan is the one found without it. Sets are named by a 128-bit
/// hash of the set and its builder options. Not thread-safe.
class CheckpointEvals {
public:
  /// The table of `graph`'s sets (it derives what they share of the graph).
  explicit CheckpointEvals(const Graph &graph);
  const CheckpointEval *find(const std::vector<char> &keep,
                             const CheckpointOptions &options) const;
  void remember(const std::vector<char> &keep, const CheckpointOptions &options,
                const CheckpointEval &eval);

  /// A 128-bit hash.
  struct Key {
    uint64_t low = 0, high = 0;
    bool operator==(const Key &other) const {
      return low == other.low && high == other.high;
    }
  };
  struct KeyHash {
    size_t operator()(const Key &key) const { return key.low; }
  };

  /// What every set's compute order reads of the graph alone.
  std::shared_ptr<const CheckpointBasis> basis;

private:
  /// Past this many sets, the table starts again empty.
  static constexpr size_t kMaxEntries = 1 << 20;
  std::unordered_map<Key, CheckpointEval, KeyHash> entries;
};

/// The `CheckpointEvals` of the graphs one plan solves (the step, its
/// cost-scaled copy, its batch-scaled copies), each graph named by its
/// content, not its address.
class CheckpointMemo {
public:
  std::shared_ptr<CheckpointEvals> of(const Graph &graph);

private:
  /// Past this many graphs, the memo starts again empty (the tables in use
  /// live on with their users).
  static constexpr size_t kMaxGraphs = 8;
  std::unordered_map<CheckpointEvals::Key, std::shared_ptr<CheckpointEvals>,
                     CheckpointEvals::KeyHash>
      tables;
};

/// The evaluations `options` share for `graph`, or a table of the caller's
/// own when they share none.
std::shared_ptr<CheckpointEvals>
checkpointEvalsFor(const Graph &graph, const SolveOptions &options);

/// `evaluateCheckpoints` through `known` (when not null): a set it holds
/// comes back without its schedule, a new one is added.
CheckpointEval evaluateCheckpoints(const Graph &graph,
                                   const std::vector<char> &keep,
                                   const CheckpointOptions &options,
                                   CheckpointEvals *known);

/// Builds `eval.schedule` of `keep` when a `CheckpointEvals` left it out.
void buildCheckpointSchedule(const Graph &graph, const std::vector<char> &keep,
                             const CheckpointOptions &options,
                             CheckpointEval &eval);

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
