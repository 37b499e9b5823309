//===- Ordering.cpp - memory-aware orders of a compute order --------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Ordering.h"

#include "remat/Solver/ScheduleBuilder.h"
#include "remat/Solver/Simulator.h"

#include <algorithm>
#include <limits>

using namespace remat;

namespace {
/// The instance DAG of a compute order, with what the greedy scheduler needs
/// to know about storage.
struct Instances {
  /// Positions that must run before each position (sorted, unique).
  std::vector<std::vector<int>> preds;
  /// Positions whose copy each position reads (its operands' copies).
  std::vector<std::vector<int>> reads;
  /// The position whose allocation each position's value lives in (itself,
  /// or its base's copy for a view); -1 for a view of a resident value.
  std::vector<int> storage;
};
} // namespace

static Instances buildInstances(const Graph &graph,
                                const std::vector<int> &order) {
  const size_t len = order.size();
  Instances dag;
  dag.preds.resize(len);
  dag.reads.resize(len);
  dag.storage.assign(len, -1);
  std::vector<int> current(graph.size(), -1);
  std::vector<std::vector<int>> readers(len);
  for (size_t p = 0; p < len; ++p) {
    const Node &node = graph.nodes[order[p]];
    forEachRead(node, [&](int dep) {
      int q = current[dep];
      if (q < 0)
        return; // resident
      dag.preds[p].push_back(q);
      dag.reads[p].push_back(q);
      readers[q].push_back(p);
    });
    // The next copy of a node waits for every reader of the previous one.
    if (int q = current[order[p]]; q >= 0) {
      dag.preds[p].push_back(q);
      dag.preds[p].insert(dag.preds[p].end(), readers[q].begin(),
                          readers[q].end());
    }
    if (node.isView()) {
      int base = current[node.aliasOf];
      dag.storage[p] = base < 0 ? -1 : dag.storage[base];
    } else {
      dag.storage[p] = static_cast<int>(p);
    }
    current[order[p]] = static_cast<int>(p);
    for (auto *list : {&dag.preds[p], &dag.reads[p]}) {
      std::sort(list->begin(), list->end());
      list->erase(std::unique(list->begin(), list->end()), list->end());
    }
  }
  return dag;
}

std::vector<std::vector<int>>
remat::instancePredecessors(const Graph &graph, const std::vector<int> &order) {
  return buildInstances(graph, order).preds;
}

/// Depth-first from the positions nothing depends on, in given order; each
/// position's predecessors are emitted right before it, in given order or,
/// with `latestFirst`, the latest first (so the work the tracer placed
/// earliest, often backward work that only holds memory, runs last), or,
/// with `bytes`, the smallest allocation first (stable), so that the large
/// values a position reads are computed last and held the shortest time.
static std::vector<int> onDemandPositions(const Instances &dag,
                                          bool latestFirst,
                                          const std::vector<int64_t> *bytes) {
  const int len = dag.preds.size();
  std::vector<std::vector<int>> sortedPreds;
  if (bytes) {
    sortedPreds = dag.preds;
    for (std::vector<int> &preds : sortedPreds)
      std::stable_sort(preds.begin(), preds.end(),
                       [&](int a, int b) { return (*bytes)[a] < (*bytes)[b]; });
  }
  std::vector<char> hasSucc(len, 0), done(len, 0);
  for (int p = 0; p < len; ++p)
    for (int q : dag.preds[p])
      hasSucc[q] = 1;
  std::vector<int> result;
  result.reserve(len);
  std::vector<std::pair<int, size_t>> stack;
  for (int sink = 0; sink < len; ++sink) {
    if (hasSucc[sink] || done[sink])
      continue;
    stack.push_back({sink, 0});
    while (!stack.empty()) {
      auto &[p, next] = stack.back();
      const std::vector<int> &preds = bytes ? sortedPreds[p] : dag.preds[p];
      auto pred = [&](size_t i) {
        return latestFirst ? preds[preds.size() - 1 - i] : preds[i];
      };
      while (next < preds.size() && done[pred(next)])
        ++next;
      if (next < preds.size()) {
        int q = pred(next++);
        stack.push_back({q, 0});
        continue;
      }
      done[p] = 1;
      result.push_back(p);
      stack.pop_back();
    }
  }
  return result;
}

namespace {
/// The state of list scheduling: which storages each ready position would
/// free, given how many readers each storage still waits for.
struct GreedyState {
  const Graph &graph;
  const std::vector<int> &order;
  const Instances &dag;
  /// Per storage position: readers not yet scheduled; storages an output's
  /// final copy lives in are never freed.
  std::vector<int> pending;
  std::vector<char> pinned;
  /// Per position: the distinct storages it reads.
  std::vector<std::vector<int>> storagesRead;

  GreedyState(const Graph &graph, const std::vector<int> &order,
              const Instances &dag)
      : graph(graph), order(order), dag(dag), pending(order.size(), 0),
        pinned(order.size(), 0), storagesRead(order.size()) {
    std::vector<int> last(graph.size(), -1);
    for (size_t p = 0; p < order.size(); ++p)
      last[order[p]] = static_cast<int>(p);
    for (int out : graph.outputs)
      if (out >= 0 && out < graph.size() && last[out] >= 0 &&
          dag.storage[last[out]] >= 0)
        pinned[dag.storage[last[out]]] = 1;
    for (size_t p = 0; p < order.size(); ++p) {
      std::vector<int> &list = storagesRead[p];
      for (int q : dag.reads[p])
        if (dag.storage[q] >= 0)
          list.push_back(dag.storage[q]);
      std::sort(list.begin(), list.end());
      list.erase(std::unique(list.begin(), list.end()), list.end());
      for (int s : list)
        ++pending[s];
    }
  }

  int64_t allocated(int p) const {
    const Node &node = graph.nodes[order[p]];
    return node.isView() ? 0 : node.bytes;
  }

  /// Live bytes after running `p` minus live bytes before it.
  int64_t delta(int p) const {
    int64_t result = allocated(p);
    for (int s : storagesRead[p])
      if (pending[s] == 1 && !pinned[s])
        result -= graph.nodes[order[s]].bytes;
    if (dag.storage[p] == p && pending[p] == 0 && !pinned[p])
      result -= allocated(p);
    return result;
  }

  void run(int p) {
    for (int s : storagesRead[p])
      --pending[s];
  }
};
} // namespace

/// List scheduling: among the ready positions, run the one with the smallest
/// change in live bytes, then the smallest allocation, then the earliest.
static std::vector<int> memoryGreedyPositions(const Graph &graph,
                                              const std::vector<int> &order,
                                              const Instances &dag) {
  const int len = order.size();
  std::vector<std::vector<int>> succs(len);
  std::vector<int> waiting(len, 0);
  for (int p = 0; p < len; ++p) {
    waiting[p] = dag.preds[p].size();
    for (int q : dag.preds[p])
      succs[q].push_back(p);
  }
  GreedyState state(graph, order, dag);
  std::vector<int> ready, result;
  result.reserve(len);
  for (int p = 0; p < len; ++p)
    if (waiting[p] == 0)
      ready.push_back(p);
  while (!ready.empty()) {
    size_t best = 0;
    int64_t bestDelta = state.delta(ready[0]);
    for (size_t i = 1; i < ready.size(); ++i) {
      int64_t d = state.delta(ready[i]);
      int64_t a = state.allocated(ready[i]),
              bestA = state.allocated(ready[best]);
      if (d < bestDelta || (d == bestDelta && a < bestA) ||
          (d == bestDelta && a == bestA && ready[i] < ready[best])) {
        best = i;
        bestDelta = d;
      }
    }
    int p = ready[best];
    ready[best] = ready.back();
    ready.pop_back();
    state.run(p);
    result.push_back(p);
    for (int s : succs[p])
      if (--waiting[s] == 0)
        ready.push_back(s);
  }
  return result;
}

std::vector<int> remat::reorder(const Graph &graph,
                                const std::vector<int> &order,
                                OrderPolicy policy) {
  if (policy == OrderPolicy::Given)
    return order;
  if (policy == OrderPolicy::Best)
    return bestOrder(graph, order);
  Instances dag = buildInstances(graph, order);
  std::vector<int64_t> bytes;
  if (policy == OrderPolicy::OnDemandLargestLast)
    for (int id : order)
      bytes.push_back(graph.nodes[id].isView() ? 0 : graph.nodes[id].bytes);
  std::vector<int> positions =
      policy == OrderPolicy::MemoryGreedy
          ? memoryGreedyPositions(graph, order, dag)
          : onDemandPositions(dag, policy == OrderPolicy::OnDemandLatestFirst,
                              bytes.empty() ? nullptr : &bytes);
  std::vector<int> result;
  result.reserve(positions.size());
  for (int p : positions)
    result.push_back(order[p]);
  return result;
}

std::vector<int> remat::bestOrder(const Graph &graph,
                                  const std::vector<int> &order,
                                  OrderPolicy *winner) {
  std::vector<int> best = order;
  int64_t bestPeak = std::numeric_limits<int64_t>::max();
  for (OrderPolicy policy :
       {OrderPolicy::Given, OrderPolicy::OnDemand,
        OrderPolicy::OnDemandLatestFirst, OrderPolicy::OnDemandLargestLast,
        OrderPolicy::MemoryGreedy}) {
    std::vector<int> candidate = reorder(graph, order, policy);
    Simulation sim =
        simulate(graph, scheduleFromComputeOrder(graph, candidate));
    if (sim.valid() && sim.peakBytes < bestPeak) {
      bestPeak = sim.peakBytes;
      best = std::move(candidate);
      if (winner)
        *winner = policy;
    }
  }
  return best;
}
