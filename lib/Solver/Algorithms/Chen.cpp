//===- Chen.cpp - Chen et al. sublinear-memory checkpointing --------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Chen, Xu, Zhang, Guestrin, "Training Deep Nets with Sublinear Memory Cost"
// (2016). The greedy walk: accumulate the bytes of forward nodes in
// topological order and make a candidate node a checkpoint once the
// accumulated segment exceeds the budget b. On a chain every node is a
// candidate; on a DAG the candidates are the articulation points of the
// linearized forward graph (the paper's rule) or, as a fallback when a graph
// has few of those, every node of the topological order. The schedule for a
// set is backed out by the shared builder (ScheduleBuilder.h).
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/SolverSupport.h"
#include "remat/Solver/Algorithms/Solvers.h"

#include <algorithm>
#include <cmath>

using namespace remat;

std::vector<char> remat::chenGreedyKeep(const Graph &graph,
                                        const std::vector<int> &candidates,
                                        double segmentBudget) {
  std::vector<char> keep(graph.size(), 0), isCandidate(graph.size(), 0);
  for (int id : candidates)
    isCandidate[id] = 1;
  double temp = 0;
  for (int id : forwardOrder(graph)) {
    temp += static_cast<double>(ownedBytes(graph, id));
    if (isCandidate[id] && temp > segmentBudget) {
      keep[id] = 1;
      temp = 0;
    }
  }
  return keep;
}

/// Chen's checkpoint sets over `candidates`: the one of the sqrt(k) segment
/// budget, or one per budget of a geometric grid (greedy).
static std::vector<std::vector<char>>
chenSets(const Graph &graph, const std::vector<int> &candidates,
         ChenRule rule) {
  double total = forwardBytes(graph);
  // sqrt(k) segments of equal bytes: the paper's O(sqrt(n)) choice.
  if (rule == ChenRule::Sqrt)
    return {chenGreedyKeep(
        graph, candidates,
        total / std::sqrt(static_cast<double>(candidates.size())))};
  // b = 0 keeps every candidate; b = total keeps none. A geometric grid in
  // between covers every segment length up to a factor of 1.1.
  std::vector<std::vector<char>> sets;
  sets.push_back(chenGreedyKeep(graph, candidates, 0));
  double minBytes = total;
  for (int id : forwardOrder(graph))
    if (ownedBytes(graph, id) > 0)
      minBytes = std::min(minBytes, static_cast<double>(ownedBytes(graph, id)));
  for (double b = std::max(1.0, minBytes) * 0.999; b < total * 1.1; b *= 1.1) {
    std::vector<char> keep = chenGreedyKeep(graph, candidates, b);
    if (sets.empty() || keep != sets.back())
      sets.push_back(std::move(keep));
  }
  return sets;
}

SolveResult remat::solveChen(const Graph &graph, const SolveOptions &options,
                             ChenRule rule, ChenCandidates candidateSet) {
  bool topological = candidateSet == ChenCandidates::TopologicalOrder;
  const char *name = rule == ChenRule::Sqrt
                         ? (topological ? "chen-sqrt-topo" : "chen-sqrt")
                         : (topological ? "chen-greedy-topo" : "chen-greedy");
  std::vector<int> candidates =
      topological ? forwardOrder(graph) : articulationPoints(graph);
  WorkMeter meter(options);
  if (candidates.empty())
    return failSolve(name, SolveStatus::Unsupported,
                     "the graph has no candidate checkpoints", meter);
  return solveFromCheckpointSets(graph, options, name,
                                 chenSets(graph, candidates, rule), meter);
}
