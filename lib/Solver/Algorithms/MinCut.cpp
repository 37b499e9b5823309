//===- MinCut.cpp - saved sets by minimum s-t cut -------------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The idea behind PyTorch's min-cut partitioner, with the recompute price made
// explicit instead of a list of banned ops. Every recomputable node v
// (`recomputableNodes`: forward nodes and backward nodes independent of the
// backward's seeds) becomes two vertices v_in -> v_out:
//
//   * v_in -> v_out costs v's own bytes: cutting it saves v for the backward
//     (infinite for views, which are saved through their base, and for
//     `keep = never` pins);
//   * source -> v_in costs lambda * cost(v): v_in on the sink side means v
//     is recomputed in the backward (infinite for `keep = always` pins and
//     outputs; 0 for backward nodes, which run once either way);
//   * u_out -> v_in is infinite for every read u -> v, so a recomputed value
//     has its operands saved or recomputed too;
//   * u_out -> sink is infinite for every such value that another node (or
//     the graph's outputs) reads.
//
// A minimum cut is the saved set minimizing saved bytes + lambda * recompute
// cost. lambda (bytes per unit of cost) sweeps from "recompute anything
// cheap" to "recompute nothing"; each saved set is built with values
// recomputed once, on demand, in the backward (and also with the segmented
// builder), ordered by `bestOrder`, simulated, and the best for the objective
// wins. Max-flow is Boost.Graph's push-relabel.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Algorithms/Solvers.h"
#include "remat/Solver/Core/FlowNetwork.h"
#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/SolverSupport.h"

#include <algorithm>
#include <cmath>

using namespace remat;

static int64_t capacity(double value) {
  if (!(value < static_cast<double>(kFlowInfinite >> 12)))
    return kFlowInfinite >> 12;
  return static_cast<int64_t>(std::llround(std::max(0.0, value)));
}

/// Recomputable nodes read by a node that is not, or by the graph's outputs.
static std::vector<char> readByBackward(const Graph &graph,
                                        const std::vector<char> &needed,
                                        const std::vector<char> &recomputable) {
  std::vector<char> result(graph.size(), 0);
  auto mark = [&](int id) {
    if (recomputable[id])
      result[id] = 1;
  };
  for (int id = 0; id < graph.size(); ++id) {
    const Node &node = graph.nodes[id];
    if (!needed[id] || recomputable[id] || node.isResident())
      continue;
    forEachRead(node, mark);
  }
  for (int out : graph.outputs)
    mark(out);
  return result;
}

std::vector<char> remat::minCutKeep(const Graph &graph, double lambda) {
  const int n = graph.size();
  std::vector<char> needed = neededNodes(graph);
  std::vector<char> recomputable = recomputableNodes(graph);
  std::vector<char> toSink = readByBackward(graph, needed, recomputable);
  std::vector<char> isOutput = graph.outputMask();
  auto isForward = [&](int id) { return recomputable[id] != 0; };
  const int source = 2 * n, sink = 2 * n + 1;
  FlowNetwork network(2 * n + 2);
  for (int id = 0; id < n; ++id) {
    if (!isForward(id))
      continue;
    const Node &node = graph.nodes[id];
    bool noSave = node.isView() || node.keep == KeepPolicy::Never;
    network.addEdge(2 * id, 2 * id + 1,
                    noSave ? kFlowInfinite : ownedBytes(graph, id));
    bool noRecompute = node.keep == KeepPolicy::Always || isOutput[id];
    // Backward nodes run once either way: in the forward pass when kept,
    // on demand in the backward otherwise.
    double price = node.kind == NodeKind::Forward ? lambda * node.cost : 0;
    network.addEdge(source, 2 * id,
                    noRecompute ? kFlowInfinite : capacity(price));
    forEachRead(node, [&](int dep) {
      if (isForward(dep))
        network.addEdge(2 * dep + 1, 2 * id, kFlowInfinite);
    });
    if (toSink[id])
      network.addEdge(2 * id + 1, sink, kFlowInfinite);
  }
  std::vector<char> side = network.minimumCut(source, sink).sourceSide;
  std::vector<char> keep(n, 0);
  for (int id = 0; id < n; ++id)
    keep[id] = isForward(id) && side[2 * id] && !side[2 * id + 1];
  return keep;
}

/// The sweep's prices, in the order they are tried: every eighth first,
/// then every fourth, second and the rest, so that a sweep cut short by its
/// time limit still spans the whole range.
static std::vector<double> sweepOrder() {
  std::vector<double> lambdas;
  for (double lambda = 1.0 / 1024; lambda <= 1024.0; lambda *= std::sqrt(2.0))
    lambdas.push_back(lambda);
  std::vector<double> order;
  std::vector<char> taken(lambdas.size(), 0);
  for (size_t stride : {8, 4, 2, 1})
    for (size_t i = 0; i < lambdas.size(); i += stride)
      if (!taken[i]) {
        taken[i] = 1;
        order.push_back(lambdas[i]);
      }
  return order;
}

/// The work units of one minimum cut (`SolveAllowance`): per node of the
/// graph (two vertices, its edges), measured against the cost of
/// simulating a schedule step.
static constexpr int64_t kCutWorkPerNode = 16;

std::vector<std::vector<char>> remat::minCutKeepSets(const Graph &graph,
                                                     WorkMeter *meter) {
  std::vector<std::pair<double, std::vector<char>>> swept;
  for (double lambda : sweepOrder()) {
    if (!swept.empty() && meter && meter->exhausted())
      break;
    swept.emplace_back(lambda, minCutKeep(graph, lambda));
    if (meter)
      meter->charge(kCutWorkPerNode * graph.size());
  }
  // In price order, each set once.
  std::sort(swept.begin(), swept.end(),
            [](const auto &a, const auto &b) { return a.first < b.first; });
  std::vector<std::vector<char>> sets;
  for (auto &[lambda, keep] : swept)
    if (std::find(sets.begin(), sets.end(), keep) == sets.end())
      sets.push_back(std::move(keep));
  return sets;
}

SolveResult remat::solveMinCut(const Graph &graph,
                               const SolveOptions &options) {
  WorkMeter meter(options);
  // The sweep may take half of the work, the evaluation of its sets the
  // rest.
  WorkMeter sweep(meter, meter.part(0.5));
  std::vector<std::vector<char>> sets = minCutKeepSets(graph, &sweep);
  meter.charge(sweep);
  return solveFromCheckpointSets(graph, options, "min-cut", sets, meter);
}
