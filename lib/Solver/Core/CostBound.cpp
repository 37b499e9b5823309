//===- CostBound.cpp - a lower bound on compute within a budget -----------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The argument, at one needed node u. Take the moment u is first computed.
// Its operands, itself and the resident bytes are live then, so every other
// storage live at that moment fits in
//
//   room(u) = budget - resident bytes - operandStorageBytes(u).
//
// A value x that is needed after that moment (a node descending from u reads
// it, or it is an output) is, at that moment, either held (its storage is
// live) or computed after it. Computing x after it costs x's cost when x is
// an ancestor of u, since x was computed before u too: a recomputation; for
// another node it may be its first computation and costs nothing here. A
// value computed after the moment needs its operands then, held or computed
// after it in turn. So the recompute of any schedule within the budget is at
// least
//
//   R(u) = min { cost of the ancestors computed after the moment :
//                held storages fit in room(u) }.
//
// Its Lagrangian relaxation, for any price lambda >= 0 per held byte,
//
//   L(u, lambda) = min { recompute + lambda * held bytes } - lambda * room(u),
//
// is at most R(u) and is a minimum cut (the project-selection network of the
// min-cut solver, MinCut.cpp): per modelled node x, x_in -> x_out costs
// lambda * x's bytes (x held; 0 for a view, which holds its base: base_out ->
// view_out is infinite), source -> x_in costs x's recompute price (x_in on
// the sink side: computed after the moment), z_out -> x_in is infinite for
// each operand z of x (computed after the moment needs its operands), and
// x_out -> sink is infinite for every x needed after it. Capacities are
// rounded down, so every cut of the rounded network is at most the true
// one's: the bound stays a bound.
//
// L is concave in lambda with the held bytes minus the room as a
// supergradient, so a bisection on log lambda climbs it; every evaluated
// L is a valid bound and the largest is kept. The nodes tried are the few
// whose room is least (the moments where memory is tightest, such as the
// loss and the head of a language model).
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Core/CostBound.h"
#include "remat/Solver/Core/FlowNetwork.h"
#include "remat/Solver/Core/SolverSupport.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

using namespace remat;

/// Nodes at which the argument is made, and the bisection's steps per node.
static constexpr int kMoments = 2;
static constexpr int kBisections = 20;

namespace {
/// Nodes reachable from `start` along `next` (and `start` itself).
template <typename Next> std::vector<char> reach(int n, int start, Next next) {
  std::vector<char> seen(n, 0);
  std::vector<int> stack{start};
  seen[start] = 1;
  while (!stack.empty()) {
    int id = stack.back();
    stack.pop_back();
    next(id, [&](int other) {
      if (other >= 0 && other < n && !seen[other]) {
        seen[other] = 1;
        stack.push_back(other);
      }
    });
  }
  return seen;
}

/// One node of the network: a value the argument at u leaves open.
struct Open {
  int id;
  /// Price of computing it after the moment (infinite: never recomputed).
  double price;
  /// Bytes held when it is held at the moment (0 for a view).
  int64_t bytes;
};

/// The argument at one node u.
class MomentBound {
public:
  MomentBound(const Graph &graph, const std::vector<char> &needed,
              const std::vector<std::vector<int>> &users,
              const std::vector<std::vector<int>> &orderUsers, int u,
              int64_t room);

  /// The largest L(u, lambda) the bisection finds (>= 0).
  double best();

private:
  /// A minimum cut at one price: L(u, lambda), and the bytes it holds and
  /// what it recomputes.
  struct Cut {
    double bound = 0, recompute = 0;
    int64_t held = 0;
  };
  Cut evaluate(double lambda);

  const Graph &graph;
  int64_t room;
  std::vector<Open> open;
  /// Position in `open` of each node, -1 for a node left closed.
  std::vector<int> index;
  std::vector<char> toSink;
};
} // namespace

MomentBound::MomentBound(const Graph &graph, const std::vector<char> &needed,
                         const std::vector<std::vector<int>> &users,
                         const std::vector<std::vector<int>> &orderUsers, int u,
                         int64_t room)
    : graph(graph), room(room), index(graph.size(), -1) {
  const int n = graph.size();
  std::vector<char> after = reach(n, u, [&](int id, auto add) {
    for (int user : users[id])
      add(user);
    for (int user : orderUsers[id])
      add(user);
  });
  std::vector<char> before = reach(n, u, [&](int id, auto add) {
    forEachRead(graph.nodes[id], add);
    for (int dep : graph.nodes[id].after)
      add(dep);
  });
  std::vector<char> live(n, 0);
  for (int dep : graph.nodes[u].deps)
    live[graph.storageOf(dep)] = 1;
  live[graph.storageOf(u)] = 1;
  for (int id = 0; id < n; ++id) {
    const Node &node = graph.nodes[id];
    if (!needed[id] || node.isResident() || after[id] ||
        live[graph.storageOf(id)])
      continue;
    double price = 0;
    if (before[id])
      price = node.keep == KeepPolicy::Always
                  ? std::numeric_limits<double>::infinity()
                  : node.cost;
    index[id] = static_cast<int>(open.size());
    open.push_back({id, price, node.isView() ? 0 : node.bytes});
  }
  toSink.assign(open.size(), 0);
  for (const Open &x : open)
    for (int user : users[x.id])
      if (after[user] && needed[user])
        toSink[index[x.id]] = 1;
  for (int out : graph.outputs)
    if (out >= 0 && out < n && index[out] >= 0)
      toSink[index[out]] = 1;
}

MomentBound::Cut MomentBound::evaluate(double lambda) {
  const int m = static_cast<int>(open.size());
  double finite = 0;
  for (const Open &x : open)
    finite += (std::isfinite(x.price) ? x.price : 0) +
              lambda * static_cast<double>(x.bytes);
  if (!(finite > 0))
    return {};
  const double scale = static_cast<double>(kFlowInfinite >> 3) / finite;
  auto rounded = [&](double value) {
    return std::isfinite(value)
               ? static_cast<int64_t>(std::floor(value * scale))
               : kFlowInfinite;
  };
  const int source = 2 * m, sink = 2 * m + 1;
  FlowNetwork network(2 * m + 2);
  for (int i = 0; i < m; ++i) {
    const Node &node = graph.nodes[open[i].id];
    network.addEdge(source, 2 * i, rounded(open[i].price));
    network.addEdge(2 * i, 2 * i + 1,
                    rounded(lambda * static_cast<double>(open[i].bytes)));
    forEachRead(node, [&](int dep) {
      if (index[dep] >= 0)
        network.addEdge(2 * index[dep] + 1, 2 * i, kFlowInfinite);
    });
    int base = graph.storageOf(open[i].id);
    if (node.isView() && index[base] >= 0)
      network.addEdge(2 * index[base] + 1, 2 * i + 1, kFlowInfinite);
    if (toSink[i])
      network.addEdge(2 * i + 1, sink, kFlowInfinite);
  }
  FlowCut flow = network.minimumCut(source, sink);
  Cut cut;
  for (int i = 0; i < m; ++i)
    if (flow.sourceSide[2 * i] && !flow.sourceSide[2 * i + 1])
      cut.held += open[i].bytes;
  double capacity = static_cast<double>(flow.capacity) / scale;
  cut.recompute = capacity - lambda * static_cast<double>(cut.held);
  cut.bound = capacity - lambda * static_cast<double>(room);
  return cut;
}

double MomentBound::best() {
  double cost = 0, bytes = 0;
  for (const Open &x : open) {
    if (std::isfinite(x.price))
      cost += x.price;
    bytes += static_cast<double>(x.bytes);
  }
  if (!(cost > 0) || !(bytes > 0))
    return 0;
  // lambda = cost / bytes * 10^e for e in [-6, 6]; the cuts last seen
  // holding more and no more than the room.
  double lo = -6, hi = 6, found = 0;
  std::optional<Cut> over, within;
  for (int step = 0; step < kBisections; ++step) {
    double e = (lo + hi) / 2;
    Cut cut = evaluate(cost / bytes * std::pow(10.0, e));
    found = std::max(found, cut.bound);
    bool holdsMore = cut.held > room;
    (holdsMore ? lo : hi) = e;
    (holdsMore ? over : within) = cut;
  }
  // L is the least of the cuts' lines, so its top lies where the two
  // pieces met last cross: one more cut there.
  if (over && within && over->held > within->held) {
    double lambda = (within->recompute - over->recompute) /
                    static_cast<double>(over->held - within->held);
    if (lambda > 0)
      found = std::max(found, evaluate(lambda).bound);
  }
  return found;
}

/// The nodes at which the argument is made: the `kMoments` of least room,
/// and as many backward nodes of least room (where the most forward values
/// are needed later), with their rooms.
static std::vector<std::pair<int64_t, int>>
moments(const Graph &graph, const std::vector<char> &needed, int64_t budget) {
  const int64_t resident = graph.residentBytes();
  std::vector<std::pair<int64_t, int>> all, backward, chosen;
  for (int id = 0; id < graph.size(); ++id) {
    if (!needed[id] || graph.nodes[id].isResident())
      continue;
    int64_t room = budget - resident - operandStorageBytes(graph, id);
    if (room < 0)
      continue;
    all.emplace_back(room, id);
    if (graph.nodes[id].kind == NodeKind::Backward)
      backward.emplace_back(room, id);
  }
  for (auto *list : {&backward, &all}) {
    int count = std::min<int>(kMoments, static_cast<int>(list->size()));
    std::partial_sort(list->begin(), list->begin() + count, list->end());
    for (int i = 0; i < count; ++i)
      if (std::find(chosen.begin(), chosen.end(), (*list)[i]) == chosen.end())
        chosen.push_back((*list)[i]);
  }
  return chosen;
}

namespace {
/// What every bound on one graph reads: the needed nodes, each node's
/// readers (a view reads its base) and the nodes ordered after it.
struct Reading {
  explicit Reading(const Graph &graph);
  std::vector<char> needed;
  std::vector<std::vector<int>> users, orderUsers;
};
} // namespace

Reading::Reading(const Graph &graph)
    : needed(neededNodes(graph)), users(graph.size()),
      orderUsers(graph.size()) {
  const int n = graph.size();
  for (int id = 0; id < n; ++id) {
    forEachRead(graph.nodes[id], [&](int dep) {
      if (dep >= 0 && dep < n &&
          (users[dep].empty() || users[dep].back() != id))
        users[dep].push_back(id);
    });
    for (int dep : graph.nodes[id].after)
      if (dep >= 0 && dep < n)
        orderUsers[dep].push_back(id);
  }
}

static CostBound boundAt(const Graph &graph, const Reading &reading,
                         int64_t budget) {
  CostBound bound;
  for (auto [room, u] : moments(graph, reading.needed, budget)) {
    double recompute = MomentBound(graph, reading.needed, reading.users,
                                   reading.orderUsers, u, room)
                           .best();
    if (recompute > bound.recompute) {
      bound.recompute = recompute;
      bound.node = u;
    }
  }
  bound.cost = checkpointAllCost(graph) + bound.recompute;
  return bound;
}

CostBound remat::costBoundAtBudget(const Graph &graph, int64_t budget) {
  return boundAt(graph, Reading(graph), budget);
}

int64_t remat::peakBoundWithinCost(const Graph &graph, double costLimit,
                                   int64_t high) {
  Reading reading(graph);
  // Every schedule's peak is at least `low`; `high` may be met.
  int64_t low = peakLowerBound(graph);
  const int64_t precision = std::max<int64_t>(1, high / 1000);
  while (high - low > precision) {
    int64_t mid = low + (high - low) / 2;
    if (boundAt(graph, reading, mid).cost > costLimit * (1 + 1e-9) + 1e-9)
      low = mid + 1;
    else
      high = mid;
  }
  return low;
}
