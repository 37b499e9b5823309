//===- Solvers.h - the checkpoint solvers -----------------------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Every solver as a free function with the `SolverFn` signature (the
// Checkmate MILP and LP rounding, which take options of their own, are in
// Checkmate.h). Each comment says what the solver does and when it fails.
// All of them return schedules verified by `finishSolve` (SolverSupport.h);
// the registry (`allSolvers`, Registry.cpp) lists them by name.
// docs/Solvers.md has the longer story.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_ALGORITHMS_SOLVERS_H
#define REMAT_SOLVER_ALGORITHMS_SOLVERS_H

#include "remat/Solver/Core/HostLink.h"
#include "remat/Solver/Core/Solver.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace remat {

class WorkMeter;

/// Keeps every value from its computation to its last use; recomputes
/// nothing. Optimal for MinComputeUnderBudget whenever it fits (every needed
/// node must be computed at least once); Infeasible when its peak exceeds
/// the budget.
SolveResult solveCheckpointAll(const Graph &graph, const SolveOptions &options);

/// Chen et al. (2016), "Training Deep Nets with Sublinear Memory Cost": its
/// two rules for the segment budget b of the greedy walk (`chenGreedyKeep`).
enum class ChenRule {
  /// b = total/sqrt(k) over k candidates: every ~sqrt(n)-th candidate by
  /// memory. Fails (Infeasible) when the result is over budget; never
  /// searches. Registered as chen-sqrt(-topo).
  Sqrt,
  /// b searched over a geometric grid, keeping the best verified schedule
  /// for the objective. Infeasible when no b fits the constraints.
  /// Registered as chen-greedy(-topo).
  Greedy,
};

/// The nodes Chen's walk may make checkpoints; on a chain both are the
/// paper's algorithm.
enum class ChenCandidates {
  /// The articulation points of the linearized forward graph (the paper's
  /// rule for DAGs).
  ArticulationPoints,
  /// Every forward node in topological order (the "-topo" solvers).
  TopologicalOrder,
};

/// Chen et al.'s solver with `rule` over `candidates`. Unsupported when the
/// graph has no candidate.
SolveResult solveChen(const Graph &graph, const SolveOptions &options,
                      ChenRule rule, ChenCandidates candidates);

/// `solveChen` as a `SolverFn` of one variant (the registry, the portfolio).
template <ChenRule Rule, ChenCandidates Candidates>
SolveResult solveChen(const Graph &graph, const SolveOptions &options) {
  return solveChen(graph, options, Rule, Candidates);
}

/// Griewank & Walther's binomial checkpointing (revolve) on a forward chain,
/// with the number of checkpoint slots searched. Unsupported when the
/// forward graph is not a chain or the backward does not visit the chain in
/// reverse; optimal in forward recomputations only for unit costs.
SolveResult solveRevolve(const Graph &graph, const SolveOptions &options);

/// The Rotor DP (Beaumont et al. 2019, optimal checkpointing of
/// heterogeneous chains) over the segments between the forward graph's
/// articulation points: each segment either keeps what its backward reads
/// or only its exit, re-forwarded on as many levels as pays. One table for
/// every memory level; the levels are searched until the simulated plan
/// meets the constraints. No lower bound (the model is approximate).
/// Infeasible when no level's plan meets the constraints.
SolveResult solveRotor(const Graph &graph, const SolveOptions &options);

/// What the caller of an offloading search (`searchRotorOffloads`,
/// `searchLocalOffloads`) makes of one of its plans: the device peak (the
/// largest int64_t when it has none), the predicted time, the work that
/// took, and the storages the plan offloads in the end (those asked and any
/// the caller added).
struct OffloadVerdict {
  int64_t peak = 0;
  double time = 0;
  int64_t work = 0;
  std::vector<int> offloaded;
};

/// Judges one plan of an offloading search: its compute schedule (compute
/// and free steps) and the storages it keeps by offloading them (for the
/// chain DP, each from its block's forward to its block's backward group).
using OffloadJudge = std::function<OffloadVerdict(
    const Schedule &schedule, const std::vector<int> &offloaded)>;

/// The Rotor DP of `solveRotor` with offloading as a third choice per block
/// (Beaumont et al. 2021, docs/Offload.md): what a block's option keeps,
/// but its exit, may leave the device over `link` while the next block
/// runs forward and come back while that block's group runs, priced by the
/// copies' time beyond those windows. Searches the levels as `solveRotor`
/// does for MinComputeUnderBudget within `options.budget`, each plan judged
/// by `judge`, which places the copies (the caller keeps the best plan).
/// Returns the work it used; judges nothing when no forward node can be
/// recomputed.
int64_t searchRotorOffloads(const Graph &graph, const SolveOptions &options,
                            const HostLink &link, const OffloadJudge &judge);

/// Local search with offloading as a third choice per value
/// (docs/Offload.md, "Offload in local search"): from `start` (a plan; its
/// copies dropped, the values it offloads offloaded first), each move keeps
/// one value the plan recomputes from its first computation to its last
/// read and offloads it, the values of most recompute cost per byte first;
/// a move is taken when `judge`, which places the copies, finds the plan
/// faster within `options.budget` (or, while none is within it, of a lower
/// peak). The caller keeps the best plan. Returns the work it used.
int64_t searchLocalOffloads(const Graph &graph, const SolveOptions &options,
                            const Schedule &start, const OffloadJudge &judge);

/// Revolve's compute order for a given number of checkpoint slots (for
/// scheduleFromComputeOrder); empty with `error` set when revolve does not
/// apply.
std::vector<int> revolveComputeOrder(const Graph &graph, int slots,
                                     std::string *error = nullptr);

/// Feng & Huang (2021), linear graphs: accessibility graph + shortest path
/// for every candidate max-segment cost m; minimizes sum(checkpoints) + m
/// (their memory model, one extra forward). Unsupported on non-chains.
SolveResult solveFengHuangLinear(const Graph &graph,
                                 const SolveOptions &options);

/// Feng & Huang (2021), arbitrary graphs: division tree (linear division at
/// splitting vertices, branch division into weakly connected components,
/// complicate division into independent segments; a subgraph of more than
/// 1,024 vertices, or without an independent segment, stays an indivisible
/// leaf, as do those not yet divided when the tree's share of the time
/// limit runs out), solved per candidate m. Infeasible when the result
/// misses the constraints.
SolveResult solveFengHuang(const Graph &graph, const SolveOptions &options);

/// Exhaustive exact solver: Dijkstra over sets of live values. Exact for the
/// model because the live set alone determines which steps are allowed and
/// the live bytes, and cost is additive. Unsupported with views, keep pins,
/// or more than 20 needed non-resident nodes.
SolveResult solveBruteForce(const Graph &graph, const SolveOptions &options);

/// Ours: local search over the checkpoint set (toggle a node, shift a
/// checkpoint to a neighbour, drop the largest values held across the peak
/// alone or several at once, toggle the nodes around the peak first), started
/// from the best of the Chen, Feng & Huang, min-cut and hierarchical sets and
/// checkpoint-all, each move verified by simulation, stopping before the time
/// limit (at most 10 s) would be passed. Infeasible when nothing found fits.
SolveResult solveLocalSearch(const Graph &graph, const SolveOptions &options);
/// The local search's peak-aimed toggles: the `candidates` (by node id)
/// around the first compute step at `schedule`'s peak: the values live
/// there (operands included), the node computed there, and the nodes that
/// read or are read by any of them; largest owned bytes first (ties by id),
/// at most `limit`. Empty when the schedule is invalid or empty.
std::vector<int> nodesAroundPeak(const Graph &graph, const Schedule &schedule,
                                 const std::vector<char> &candidates,
                                 size_t limit);

/// Ours: DTR-style eviction (Kirisame et al. 2021) simulated offline on the
/// static graph: compute in topological order under the memory limit,
/// evict the live forward value with the least cost / (bytes * staleness)
/// when the next node does not fit, recompute evicted values on demand.
/// MinPeakUnderOverhead bisects the limit. Infeasible when evictions cannot
/// meet the budget (operands and outputs alone exceed it).
SolveResult solveDtr(const Graph &graph, const SolveOptions &options);

/// Ours, after PyTorch's min-cut partitioner: saved sets that minimize
/// saved bytes + lambda * recompute cost by a minimum s-t cut (Boost.Graph
/// max-flow), for lambda swept over a geometric grid; each built with
/// values recomputed once on demand and with segmented runs, reordered, and
/// the best verified one kept. Infeasible when none meets the constraints.
SolveResult solveMinCut(const Graph &graph, const SolveOptions &options);

/// Ours, after Rotor / Rockmate: the forward cut at articulation points into
/// blocks, a Pareto set of keep subsets per block (all subsets of small
/// blocks, min-cut and Chen sets restricted to large ones) under a local
/// memory/recompute model, one option per block chosen by a DP over
/// discretized memory, the model budget searched until the simulated plan
/// meets the constraints. No lower bound (the model is approximate).
/// Infeasible when no plan it probes meets the constraints.
SolveResult solveHierarchical(const Graph &graph, const SolveOptions &options);

/// The best verified answer of the fast solvers: the exhaustive one on tiny
/// graphs, checkpoint-all, Chen greedy (both candidate rules), Feng & Huang,
/// revolve, DTR, min-cut, hierarchical and the local search; with COIN-OR,
/// Checkmate's LP rounding on graphs of at most 150 nodes (min-compute);
/// DTR and the local search on the graph with outputs deferred (Deferral.h)
/// when no member meets the budget; the Checkmate MILP as the last resort of
/// a single solve (`SolveOptions::lastResort`) on those small graphs when
/// nothing else found a plan. Portfolio.cpp has the time split. Optimal when
/// the winner is proven optimal; Infeasible at once when the exhaustive
/// solver proves it, or when none fits.
SolveResult solvePortfolio(const Graph &graph, const SolveOptions &options);

/// The checkpoint sets behind the heuristics, for reuse (local search, the
/// MILP's warm start). Indexed by node; only forward nodes are set.
std::vector<char> chenGreedyKeep(const Graph &graph,
                                 const std::vector<int> &candidates,
                                 double segmentBudget);
/// Feng & Huang's chain algorithm on vertex weights (weights[0] is the
/// source, the last vertex the sink): the smallest model memory
/// sum(l(checkpoints), sink included) + m over every candidate m, and the
/// interior checkpoints (vertex indices) achieving it; -1 if none.
int64_t fengHuangChain(const std::vector<int64_t> &weights,
                       std::vector<int> &checkpoints);
/// The checkpoint set of Feng & Huang's division tree with the smallest
/// model memory over its candidate bounds m (the set's cost plus m). The
/// work is charged to `meter`, when given; once it is exhausted, the best
/// of the bounds tried (at least one).
std::vector<char> fengHuangKeep(const Graph &graph, WorkMeter *meter = nullptr);
/// The saved set of a minimum cut for recompute price `lambda` (bytes per
/// unit of cost), and the distinct sets of the whole lambda sweep. The
/// sweep's cuts are charged to `meter`, when given; once it is exhausted the
/// sweep stops with the sets found (at least one), which still span the
/// range of prices.
std::vector<char> minCutKeep(const Graph &graph, double lambda);
std::vector<std::vector<char>> minCutKeepSets(const Graph &graph,
                                              WorkMeter *meter = nullptr);
/// The checkpoint set of the hierarchical solver's best verified plan for
/// `options` (its DP's choice, which no greedy rule reproduces); empty when
/// it has none. Its work is charged to `meter`, which bounds it.
std::vector<char> hierarchicalKeep(const Graph &graph,
                                   const SolveOptions &options,
                                   WorkMeter &meter);

} // namespace remat

#endif // REMAT_SOLVER_ALGORITHMS_SOLVERS_H
