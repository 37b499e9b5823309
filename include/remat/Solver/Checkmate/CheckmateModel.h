//===- CheckmateModel.h - Checkmate's stage model of a schedule -*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The plain-C++ half of the Checkmate solvers (Jain et al., MLSys 2020): the graph reduced
// to the nodes a schedule decides about, and the frontier-advancing stage
// plan (R, S) that both the MILP and the LP rounding produce. Nothing here
// needs COIN-OR; the formulation is CheckmateFormulation.h.
//
// Reduction (presolve):
//   * Input/param nodes are dropped: they are always resident and counted in
//     the fixed bytes.
//   * Exact merges: a view of cost 0 whose only computed dependency is its
//     base joins its base's group. Any schedule of the original graph maps to
//     one of the reduced graph with the same cost and peak, so optimality
//     and lower bounds are preserved.
//   * Chain merges (optional, not exact): a node whose single computed
//     dependency has it as its only user, in the same phase, joins that
//     dependency's group; the group's transient peak is kept as `extraBytes`
//     so the reduced model never under-counts memory. Solutions stay
//     feasible, but optimality is only with respect to the coarsened graph.
//   * A view that cannot be merged is charged its base's bytes (a safe
//     over-estimate); the reduction is then not exact.
//
// Stage plan: stage t (one per reduced node) computes node t for the first
// time and may recompute earlier nodes; R[t][i] says node i is computed in
// stage t, S[t][i] that it is resident when stage t starts (S has a final
// row n: what is resident at the end). `expandPlan` turns a plan into a
// schedule of the original graph that frees every value as soon as the plan
// no longer needs it.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_CHECKMATE_CHECKMATEMODEL_H
#define REMAT_SOLVER_CHECKMATE_CHECKMATEMODEL_H

#include "remat/Solver/Core/Problem.h"

#include <cstdint>
#include <vector>

namespace remat {

class WorkMeter;

namespace checkmate {

/// The graph a Checkmate formulation is built on.
struct ReducedGraph {
  /// Bytes of the group's value while it is resident.
  std::vector<int64_t> bytes;
  /// Additional bytes live only while the group is being computed.
  std::vector<int64_t> extraBytes;
  std::vector<double> cost;
  /// Reduced dependencies (earlier groups), deduplicated and sorted.
  std::vector<std::vector<int>> deps;
  /// Inverse of `deps`, sorted ascending.
  std::vector<std::vector<int>> users;
  std::vector<char> isOutput;
  /// Original node ids of each group, in compute order.
  std::vector<std::vector<int>> members;
  /// Members freed as soon as the group is computed (chain internals).
  std::vector<std::vector<int>> internalMembers;
  std::vector<KeepPolicy> keep;
  /// Outputs nobody reads (the loss): their first computation may be
  /// delayed past their own stage (R[t][t] is not forced), which lets the
  /// formulation compute the loss after the backward when that is cheaper.
  std::vector<char> delayable;
  /// Whether a group is a forward node (for KeepPolicy::Never).
  std::vector<char> isForward;
  /// The first stage that computes a backward node, or size() if none.
  int firstBackward = 0;
  /// Bytes resident the whole step (fixed bytes, inputs and params).
  int64_t residentBytes = 0;
  /// Group of each original node (-1 for resident nodes).
  std::vector<int> groupOf;
  /// True when optimal plans of this graph are optimal for the original.
  bool exact = true;

  /// The order computations run in inside a stage: every group by index,
  /// except that delayable sinks come after all the others (they have no
  /// users, so this stays topological), so a loss recomputed in a late
  /// stage runs after that stage's backward nodes.
  std::vector<int> order;
  /// Position of each group in `order`.
  std::vector<int> position;

  int size() const { return static_cast<int>(bytes.size()); }
  /// Whether a runs after b inside a stage.
  bool after(int a, int b) const { return position[a] > position[b]; }
};

/// Builds the reduced graph of a checked `graph`. `mergeChains` enables the
/// (inexact) chain merges.
ReducedGraph reduceGraph(const Graph &graph, bool mergeChains);

/// A frontier-advancing plan over a reduced graph with n nodes: R is n rows
/// (row t has t + 1 entries), S is n + 1 rows (row t has t entries; row n
/// has n entries: resident at the end).
struct StagePlan {
  std::vector<std::vector<char>> r;
  std::vector<std::vector<char>> s;

  explicit StagePlan(int n = 0);
  int size() const { return static_cast<int>(r.size()); }
};

/// Sets R to the cheapest computations that make the retention choices S
/// valid (the rebuild step of Checkmate's two-phase rounding): R[t][t] = 1 (for a
/// delayable sink only when it is retained into stage t+1); node i
/// is computed in stage t if it must be resident at the start of stage t+1
/// and is not resident at the start of t, or if a node computed in stage t
/// needs it and it is not resident. Also sets S[n] to the outputs.
void rebuildComputations(const ReducedGraph &graph, StagePlan &plan);

/// Drops retentions S[t][i] that nothing in stage t or later uses, given R.
/// Returns true if something changed.
bool pruneRetentions(const ReducedGraph &graph, StagePlan &plan);

/// Whether `plan` satisfies the formulation's constraints: frontier (except
/// delayable sinks), every
/// dependency of a computed node resident or computed earlier in the stage,
/// every retained value resident or computed in the previous stage, outputs
/// resident at the end.
bool isConsistent(const ReducedGraph &graph, const StagePlan &plan);

/// The schedule of the original graph that executes `plan`, freeing values
/// eagerly. Requires `isConsistent(graph, plan)`.
Schedule expandPlan(const ReducedGraph &reduced, const StagePlan &plan);

/// The stage plan of `schedule`, when its first computations follow the
/// reduced order (false otherwise, or if the schedule does not fit the
/// groups). The result is made consistent with rebuildComputations.
bool planFromSchedule(const Graph &graph, const ReducedGraph &reduced,
                      const Schedule &schedule, StagePlan &plan);

/// The compute cost of `plan`: the sum of its computations.
double planCost(const ReducedGraph &graph, const StagePlan &plan);

/// Greedy local search on a consistent plan: repeatedly replaces a
/// recomputation R[t][i] by retaining i from where it was last resident,
/// keeping the change when the plan gets cheaper and its modelPeak stays
/// within `budget`. Charges its trials to `meter` and stops once it is
/// exhausted. Returns true if it improved.
bool improvePlan(const ReducedGraph &graph, StagePlan &plan, int64_t budget,
                 WorkMeter &meter);

/// The checkpoint-all plan: every node computed once and kept until its last
/// use.
StagePlan checkpointAllPlan(const ReducedGraph &graph);

/// Peak bytes of `plan` under the formulation's own accounting (values freed
/// right after their last use in a stage, values retained into a stage
/// counted for the whole stage), resident bytes included. This is what the
/// MILP's memory rows constrain; the expanded schedule never exceeds it.
int64_t modelPeak(const ReducedGraph &graph, const StagePlan &plan);

} // namespace checkmate
} // namespace remat

#endif // REMAT_SOLVER_CHECKMATE_CHECKMATEMODEL_H
