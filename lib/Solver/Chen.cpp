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

#include "remat/Solver/ScheduleBuilder.h"
#include "remat/Solver/SolverSupport.h"
#include "remat/Solver/Solvers.h"

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

static double forwardBytes(const Graph &graph) {
  double total = 0;
  for (int id : forwardOrder(graph))
    total += static_cast<double>(ownedBytes(graph, id));
  return total;
}

static SolveResult chenSqrt(const Graph &graph, const SolveOptions &options,
                            const std::vector<int> &candidates,
                            const char *name) {
  WorkMeter meter(options);
  if (candidates.empty())
    return failSolve(name, SolveStatus::Unsupported,
                     "the graph has no candidate checkpoints", meter);
  // sqrt(k) segments of equal bytes: the paper's O(sqrt(n)) choice.
  double b =
      forwardBytes(graph) / std::sqrt(static_cast<double>(candidates.size()));
  return solveFromCheckpointSets(graph, options, name,
                                 {chenGreedyKeep(graph, candidates, b)}, meter);
}

static SolveResult chenGreedy(const Graph &graph, const SolveOptions &options,
                              const std::vector<int> &candidates,
                              const char *name) {
  WorkMeter meter(options);
  if (candidates.empty())
    return failSolve(name, SolveStatus::Unsupported,
                     "the graph has no candidate checkpoints", meter);
  // b = 0 keeps every candidate; b = total keeps none. A geometric grid in
  // between covers every segment length up to a factor of 1.1.
  double total = forwardBytes(graph);
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
  return solveFromCheckpointSets(graph, options, name, sets, meter);
}

SolveResult remat::solveChenSqrtAp(const Graph &graph,
                                   const SolveOptions &options) {
  return chenSqrt(graph, options, articulationPoints(graph), "chen-sqrt");
}

SolveResult remat::solveChenSqrtTopo(const Graph &graph,
                                     const SolveOptions &options) {
  return chenSqrt(graph, options, forwardOrder(graph), "chen-sqrt-topo");
}

SolveResult remat::solveChenGreedyAp(const Graph &graph,
                                     const SolveOptions &options) {
  return chenGreedy(graph, options, articulationPoints(graph), "chen-greedy");
}

SolveResult remat::solveChenGreedyTopo(const Graph &graph,
                                       const SolveOptions &options) {
  return chenGreedy(graph, options, forwardOrder(graph), "chen-greedy-topo");
}
