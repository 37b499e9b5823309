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
#include <queue>
#include <tuple>

using namespace remat;

namespace {
/// Lists of ints per position, stored flat (one allocation for all of them:
/// the local search builds these thousands of times per second).
struct Lists {
  std::vector<int> start{0};
  std::vector<int> items;

  int size() const { return static_cast<int>(start.size()) - 1; }
  const int *begin(int p) const { return items.data() + start[p]; }
  const int *end(int p) const { return items.data() + start[p + 1]; }
  int *begin(int p) { return items.data() + start[p]; }
  int *end(int p) { return items.data() + start[p + 1]; }
  int count(int p) const { return start[p + 1] - start[p]; }
  /// Ends the list of the next position; `items` past the previous end are
  /// its entries.
  void close() { start.push_back(static_cast<int>(items.size())); }
  /// The inverse over `size` targets: list q holds the positions whose
  /// lists hold q, in increasing order.
  Lists inverse(int size) const {
    Lists result;
    result.start.assign(size + 1, 0);
    for (int q : items)
      ++result.start[q + 1];
    for (int q = 0; q < size; ++q)
      result.start[q + 1] += result.start[q];
    result.items.resize(items.size());
    std::vector<int> fill(result.start.begin(), result.start.end() - 1);
    for (int p = 0; p < this->size(); ++p)
      for (const int *q = begin(p); q != end(p); ++q)
        result.items[fill[*q]++] = p;
    return result;
  }
  /// Sorts the last list and removes duplicates.
  void sortUniqueLast() {
    int p = size() - 1;
    std::sort(begin(p), end(p));
    items.resize(std::unique(begin(p), end(p)) - items.data());
    start.back() = static_cast<int>(items.size());
  }
};

/// The instance DAG of a compute order, with what the greedy scheduler needs
/// to know about storage.
struct Instances {
  /// Positions that must run before each position (sorted, unique).
  Lists preds;
  /// Positions whose copy each position reads (its operands' copies).
  Lists reads;
  /// The position whose allocation each position's value lives in (itself,
  /// or its base's copy for a view); -1 for a view of a resident value.
  std::vector<int> storage;
};
} // namespace

static Instances buildInstances(const Graph &graph,
                                const std::vector<int> &order) {
  const size_t len = order.size();
  Instances dag;
  dag.preds.start.reserve(len + 1);
  dag.reads.start.reserve(len + 1);
  dag.preds.items.reserve(3 * len);
  dag.reads.items.reserve(2 * len);
  dag.storage.assign(len, -1);
  std::vector<int> current(graph.size(), -1);
  // The readers of each position, as a linked list through `readerNext`
  // over reader positions: `readerHead[q]` is the latest reader of q.
  std::vector<int> readerHead(len, -1), readerPos, readerNext;
  readerPos.reserve(2 * len);
  readerNext.reserve(2 * len);
  for (size_t p = 0; p < len; ++p) {
    const Node &node = graph.nodes[order[p]];
    forEachRead(node, [&](int dep) {
      if (int q = current[dep]; q >= 0)
        dag.reads.items.push_back(q);
    });
    dag.reads.close();
    dag.reads.sortUniqueLast();
    const int pos = static_cast<int>(p);
    for (const int *q = dag.reads.begin(pos); q != dag.reads.end(pos); ++q) {
      dag.preds.items.push_back(*q);
      readerPos.push_back(pos);
      readerNext.push_back(readerHead[*q]);
      readerHead[*q] = static_cast<int>(readerPos.size()) - 1;
    }
    // The next copy of a node waits for every reader of the previous one.
    if (int q = current[order[p]]; q >= 0) {
      dag.preds.items.push_back(q);
      for (int r = readerHead[q]; r >= 0; r = readerNext[r])
        dag.preds.items.push_back(readerPos[r]);
    }
    dag.preds.close();
    dag.preds.sortUniqueLast();
    if (node.isView()) {
      int base = current[node.aliasOf];
      dag.storage[p] = base < 0 ? -1 : dag.storage[base];
    } else {
      dag.storage[p] = pos;
    }
    current[order[p]] = pos;
  }
  return dag;
}

std::vector<std::vector<int>>
remat::instancePredecessors(const Graph &graph, const std::vector<int> &order) {
  Lists preds = buildInstances(graph, order).preds;
  std::vector<std::vector<int>> result(preds.size());
  for (int p = 0; p < preds.size(); ++p)
    result[p].assign(preds.begin(p), preds.end(p));
  return result;
}

/// Depth-first from the positions nothing depends on, in given order; each
/// position's predecessors are emitted right before it, in given order or,
/// with `latestFirst`, the latest first (so the work the tracer placed
/// earliest, often backward work that only holds memory, runs last), or,
/// with `rank`, the smallest rank first (stable): the smallest allocation
/// first, so that the large values a position reads are computed last and
/// held the shortest time, or the largest working set first
/// (`workingSetRanks`).
static std::vector<int> onDemandPositions(const Instances &dag,
                                          bool latestFirst,
                                          const std::vector<double> *rank) {
  const int len = dag.preds.size();
  Lists sortedPreds;
  if (rank) {
    sortedPreds = dag.preds;
    for (int p = 0; p < len; ++p)
      std::stable_sort(sortedPreds.begin(p), sortedPreds.end(p),
                       [&](int a, int b) { return (*rank)[a] < (*rank)[b]; });
  }
  const Lists &preds = rank ? sortedPreds : dag.preds;
  std::vector<char> hasSucc(len, 0), done(len, 0);
  for (int q : dag.preds.items)
    hasSucc[q] = 1;
  std::vector<int> result;
  result.reserve(len);
  std::vector<std::pair<int, int>> stack;
  for (int sink = 0; sink < len; ++sink) {
    if (hasSucc[sink] || done[sink])
      continue;
    stack.push_back({sink, 0});
    while (!stack.empty()) {
      auto &[p, next] = stack.back();
      const int *first = preds.begin(p);
      const int count = preds.count(p);
      auto pred = [&](int i) {
        return latestFirst ? first[count - 1 - i] : first[i];
      };
      while (next < count && done[pred(next)])
        ++next;
      if (next < count) {
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

/// Sethi-Ullman numbers on the instance DAG, as ranks for
/// `onDemandPositions`: a position's working set is the memory its
/// predecessors' evaluation needs when each is evaluated in turn, largest
/// working set less result first, and their results are held until it runs:
/// need(p) = max(max_i need(q_i) + sum_{j<i} bytes(q_j), sum_i bytes(q_i) +
/// bytes(p)). Shared predecessors count in each user (an estimate; exact
/// on trees). The rank is bytes - need, so that the predecessor needing the
/// most memory beyond its result runs first and the cheap ones (a
/// recomputed activation next to a gradient chain) run last, held shortest.
static std::vector<double> workingSetRanks(const Instances &dag,
                                           const std::vector<double> &bytes) {
  const int len = dag.preds.size();
  std::vector<double> need(len, 0), rank(len, 0);
  std::vector<int> preds;
  for (int p = 0; p < len; ++p) {
    preds.assign(dag.preds.begin(p), dag.preds.end(p));
    std::stable_sort(preds.begin(), preds.end(),
                     [&](int a, int b) { return rank[a] < rank[b]; });
    double held = 0, most = 0;
    for (int q : preds) {
      most = std::max(most, held + need[q]);
      held += bytes[q];
    }
    need[p] = std::max(most, held + bytes[p]);
    rank[p] = bytes[p] - need[p];
  }
  return rank;
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
  Lists storagesRead;

  GreedyState(const Graph &graph, const std::vector<int> &order,
              const Instances &dag)
      : graph(graph), order(order), dag(dag), pending(order.size(), 0),
        pinned(order.size(), 0) {
    std::vector<int> last(graph.size(), -1);
    for (size_t p = 0; p < order.size(); ++p)
      last[order[p]] = static_cast<int>(p);
    for (int out : graph.outputs)
      if (out >= 0 && out < graph.size() && last[out] >= 0 &&
          dag.storage[last[out]] >= 0)
        pinned[dag.storage[last[out]]] = 1;
    storagesRead.items.reserve(dag.reads.items.size());
    for (int p = 0, e = order.size(); p < e; ++p) {
      for (const int *q = dag.reads.begin(p); q != dag.reads.end(p); ++q)
        if (dag.storage[*q] >= 0)
          storagesRead.items.push_back(dag.storage[*q]);
      storagesRead.close();
      storagesRead.sortUniqueLast();
      for (const int *s = storagesRead.begin(p); s != storagesRead.end(p); ++s)
        ++pending[*s];
    }
  }

  int64_t allocated(int p) const {
    const Node &node = graph.nodes[order[p]];
    return node.isView() ? 0 : node.bytes;
  }

  /// Live bytes after running `p` minus live bytes before it.
  int64_t delta(int p) const {
    int64_t result = allocated(p);
    for (const int *s = storagesRead.begin(p); s != storagesRead.end(p); ++s)
      if (pending[*s] == 1 && !pinned[*s])
        result -= graph.nodes[order[*s]].bytes;
    if (dag.storage[p] == p && pending[p] == 0 && !pinned[p])
      result -= allocated(p);
    return result;
  }

  /// Marks `p` run; returns the storages it left with one reader to wait
  /// for (whose change in live bytes falls with that).
  std::vector<int> run(int p) {
    std::vector<int> lastRead;
    for (const int *s = storagesRead.begin(p); s != storagesRead.end(p); ++s)
      if (--pending[*s] == 1 && !pinned[*s])
        lastRead.push_back(*s);
    return lastRead;
  }
};
} // namespace

/// List scheduling: among the ready positions, run the one with the smallest
/// change in live bytes, then the smallest allocation, then the earliest.
/// The ready positions wait in a heap: a position's change only falls, when
/// it becomes the last reader of a storage it reads (pushed again then; the
/// older entry comes out after it and is skipped), so each step costs a
/// logarithm, not a scan of every ready position (quadratic on a 20,000-op
/// step, where hundreds of allocations wait ready for most of the order).
static std::vector<int> memoryGreedyPositions(const Graph &graph,
                                              const std::vector<int> &order,
                                              const Instances &dag) {
  const int len = order.size();
  Lists succs = dag.preds.inverse(len);
  GreedyState state(graph, order, dag);
  Lists readers = state.storagesRead.inverse(len);
  using Entry = std::tuple<int64_t, int64_t, int>; // delta, allocated, p
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready;
  std::vector<int> waiting(len);
  std::vector<char> done(len, 0);
  auto push = [&](int p) {
    ready.push({state.delta(p), state.allocated(p), p});
  };
  for (int p = 0; p < len; ++p)
    if ((waiting[p] = dag.preds.count(p)) == 0)
      push(p);
  std::vector<int> result;
  result.reserve(len);
  while (!ready.empty()) {
    int p = std::get<2>(ready.top());
    ready.pop();
    if (done[p])
      continue;
    done[p] = 1;
    result.push_back(p);
    for (int s : state.run(p))
      for (const int *r = readers.begin(s); r != readers.end(s); ++r)
        if (!done[*r] && waiting[*r] == 0)
          push(*r); // its last read of s now frees s
    for (const int *q = succs.begin(p); q != succs.end(p); ++q)
      if (--waiting[*q] == 0)
        push(*q);
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
  std::vector<double> rank;
  if (policy == OrderPolicy::OnDemandLargestLast ||
      policy == OrderPolicy::OnDemandWorkingSet)
    for (int id : order)
      rank.push_back(graph.nodes[id].isView() ? 0.0
                                              : double(graph.nodes[id].bytes));
  if (policy == OrderPolicy::OnDemandWorkingSet)
    rank = workingSetRanks(dag, rank);
  std::vector<int> positions =
      policy == OrderPolicy::MemoryGreedy
          ? memoryGreedyPositions(graph, order, dag)
          : onDemandPositions(dag, policy == OrderPolicy::OnDemandLatestFirst,
                              rank.empty() ? nullptr : &rank);
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
        OrderPolicy::MemoryGreedy, OrderPolicy::OnDemandWorkingSet}) {
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
