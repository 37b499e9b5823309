//===- Ordering.h - memory-aware orders of a compute order ------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// A solver decides *what* is computed (a compute order in which a node may
// appear several times); this file decides *when*. A compute order defines an
// instance DAG: one vertex per position, an edge from the position that
// produced each value a position reads, and an edge from every reader of one
// copy of a node to the position that computes the next copy (so every read
// still sees the same copy), and an edge from the first copy of each node a
// node comes after (`Node::after`, the effect order) to its first copy. Any
// topological order of that DAG computes the same values at the same total
// cost and keeps the effect order, so only the peak changes.
//
// The orders offered:
//   * Given: the solver's own order.
//   * OnDemand: each position runs just before its first consumer needs it,
//     a depth-first walk from the positions nothing reads (in given order)
//     that computes operands right before their user. Backward work that the
//     tracer emitted early (weight gradients, tangent-independent halves of
//     backward ops) no longer holds its operands' results early.
//     OnDemandLatestFirst visits a position's operands latest first, so that
//     what the tracer emitted early runs as late as its users allow.
//     OnDemandLargestLast visits them smallest allocation first, so that a
//     large operand (a recomputed activation a weight gradient reads) is
//     computed after the small ones (the incoming gradient's chain) and
//     held the shortest time. OnDemandWorkingSet visits them largest
//     working set first (Sethi-Ullman numbers on the instance DAG): the
//     operand whose evaluation needs the most memory beyond its result
//     (the incoming gradient's chain) runs first, and a recomputed
//     activation as large as that gradient runs after it, not before.
//   * MemoryGreedy: list scheduling that runs, among the ready positions, the
//     one that leaves the least memory live (frees the most, allocates the
//     least), ties by allocation then given order.
//
// `bestOrder` tries them all and keeps the one the simulator measures lowest.
//
// `repairPeak` then mends a chosen order where it peaks: at the first peak
// step, for each storage live there, it tries moving the allocation past
// the step (with what reads it up to there) and moving the storage's last
// reader before it (with what that needs from in between), groups of at
// most 32 positions, and takes the move that lowers (peak, steps at the
// peak) most, until none does. Every policy above places a position by a
// rule about its operands; the repair measures the peak itself, so it finds
// what none of them does (a threshold backward that frees a relu output run
// before a recomputation instead of after it). `finishSolve` applies it to
// every solver's answer whose peak matters (SolverSupport.h).
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_CORE_ORDERING_H
#define REMAT_SOLVER_CORE_ORDERING_H

#include "remat/Solver/Core/Problem.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace remat {

class WorkMeter;

enum class OrderPolicy {
  Given,
  OnDemand,
  OnDemandLatestFirst,
  OnDemandLargestLast,
  OnDemandWorkingSet,
  MemoryGreedy,
  /// The lowest simulated peak among the others (`bestOrder`).
  Best,
};

/// The name of `policy` in reports ("on-demand", "memory-greedy", ...).
const char *getOrderPolicyName(OrderPolicy policy);

/// The positions of `order` as a DAG (see the file comment): `preds[p]` are
/// the positions that must run before position `p`. `order` must be a valid
/// compute order (every read computed at an earlier position).
std::vector<std::vector<int>>
instancePredecessors(const Graph &graph, const std::vector<int> &order);

/// `order` rearranged by `policy`: the same positions, so the same nodes and
/// cost, in a topological order of the instance DAG. `Best` is `bestOrder`.
std::vector<int> reorder(const Graph &graph, const std::vector<int> &order,
                         OrderPolicy policy);

/// The order among `order` and its rearrangements by every policy whose
/// schedule (scheduleFromComputeOrder) has the lowest simulated peak; ties
/// keep the earlier policy (Given first). `winner`, when non-null, receives
/// the policy that produced it.
std::vector<int> bestOrder(const Graph &graph, const std::vector<int> &order,
                           OrderPolicy *winner = nullptr);

/// The work units (`SolveAllowance`, Solver.h) of building and simulating a
/// schedule of `steps` steps whose order `policy` chose: one a step for the
/// given order; the rearranging policies cost about two or three times as
/// much (measured on the bench graphs), and `Best` runs all of them.
int64_t orderWork(OrderPolicy policy, size_t steps);

/// `order` rearranged around its peak (see the file comment): a topological
/// order of the same instance DAG, so the same nodes and cost, whose peak is
/// never higher and often lower than `order`'s. Each round's work (the
/// positions it measures and moves) is charged to `meter`, when given; the
/// repair starts no round once the meter is exhausted.
std::vector<int> repairPeak(const Graph &graph, const std::vector<int> &order,
                            WorkMeter *meter = nullptr);

} // namespace remat

#endif // REMAT_SOLVER_CORE_ORDERING_H
