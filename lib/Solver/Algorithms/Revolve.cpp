//===- Revolve.cpp - Griewank & Walther binomial checkpointing ------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Revolve reverses a chain of L steps with c checkpoint slots: place a
// checkpoint at l + j, reverse the right part with c - 1 slots, then the left
// part with c slots, where t is the least repetition count with
// beta(c, t) = C(c + t, c) >= L and j is in the range that minimizes the
// total number of forward steps, t L - beta(c + 1, t - 1) (Griewank &
// Walther 2000, Algorithm 799). With no slot left, each step is re-advanced
// from the nearest checkpoint.
//
// On a training graph the "steps" are the forward chain; the backward nodes
// are grouped by the highest chain position they read, and each group is
// run once its forward values are recomputed. Revolve produces a compute
// order (checkpoints are taken and released over time, not a fixed set);
// the shared builder adds the frees.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Core/Ordering.h"
#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/SolverSupport.h"
#include "remat/Solver/Algorithms/Solvers.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace remat;

/// C(c + t, c) = C(c + t, t), saturating; O(min(c, t)) (the search asks
/// for thousands of slots on long chains, with t = 1).
static int64_t beta(int c, int t) {
  if (c < 0 || t < 0)
    return 0;
  const int k = std::min(c, t), other = std::max(c, t);
  long double value = 1;
  for (int i = 1; i <= k; ++i) {
    value = value * (other + i) / i;
    if (value > 1e17)
      return std::numeric_limits<int64_t>::max() / 4;
  }
  return static_cast<int64_t>(value + 0.5);
}

/// The longest compute order revolve generates: 64 computations a node (and
/// at least 2^20), so that few slots on a long chain, which recompute
/// quadratically often, are given up instead of filling the memory.
static size_t maxOrderLength(const Graph &graph) {
  return std::max<size_t>(64 * static_cast<size_t>(graph.size()), 1 << 20);
}

namespace {
/// Generates revolve's compute order for one slot count.
class RevolveDriver {
public:
  RevolveDriver(const Graph &graph, const std::vector<int> &chain,
                const std::vector<std::vector<int>> &groups,
                const std::vector<std::vector<int>> &groupReads)
      : graph(graph), chain(chain), groups(groups), groupReads(groupReads),
        avail(chain.size() + 1, 0), held(chain.size() + 1, 0),
        everComputed(chain.size() + 1, 0) {
    avail[0] = held[0] = 1; // position 0: the resident input side
    for (int out : graph.outputs)
      outputs.push_back(out);
  }

  /// The compute order for `slots`, or an empty one when it would exceed
  /// `maxLength` computations (few slots on a long chain recompute
  /// quadratically often; or the time left fits no longer order).
  std::vector<int> run(int slots, size_t maxLength) {
    order.clear();
    lengthCap = maxLength;
    tooLong = false;
    std::fill(avail.begin(), avail.end(), 0);
    std::fill(held.begin(), held.end(), 0);
    std::fill(everComputed.begin(), everComputed.end(), 0);
    avail[0] = held[0] = 1;
    reverse(0, static_cast<int>(chain.size()), slots);
    if (tooLong)
      order.clear();
    return order;
  }

private:
  const Graph &graph;
  const std::vector<int> &chain;
  const std::vector<std::vector<int>> &groups;
  const std::vector<std::vector<int>> &groupReads;
  std::vector<char> avail, held, everComputed;
  std::vector<int> outputs;
  std::vector<int> order;
  size_t lengthCap = 0;
  bool tooLong = false;

  /// Makes chain position `pos` (1-based) available by advancing from the
  /// nearest available position below it.
  void ensure(int pos) {
    if (avail[pos] || tooLong)
      return;
    if (order.size() > lengthCap) {
      tooLong = true;
      return;
    }
    int from = pos - 1;
    while (!avail[from])
      --from;
    for (int p = from + 1; p <= pos; ++p)
      if (!avail[p]) {
        order.push_back(chain[p - 1]);
        avail[p] = everComputed[p] = 1;
      }
  }

  void drop(int lo, int hi) {
    for (int p = lo + 1; p <= hi; ++p)
      if (!held[p])
        avail[p] = 0;
  }

  /// Runs the backward group of chain position `pos`.
  void doGroup(int pos) {
    int id = chain[pos - 1];
    if (!everComputed[pos] &&
        std::find(outputs.begin(), outputs.end(), id) != outputs.end())
      ensure(pos);
    for (int read : groupReads[pos])
      ensure(read);
    for (int b : groups[pos])
      order.push_back(b);
  }

  /// Reverses positions hi..lo+1 with `slots` free checkpoint slots; lo is
  /// available.
  void reverse(int lo, int hi, int slots) {
    if (hi <= lo || tooLong)
      return;
    int len = hi - lo;
    if (slots == 0 || len == 1) {
      for (int pos = hi; pos > lo && !tooLong; --pos) {
        doGroup(pos);
        drop(lo, pos);
      }
      return;
    }
    int t = 1;
    while (beta(slots, t) < len)
      ++t;
    // Griewank's range for the least total work: beta(c, t - 2) <= j <=
    // beta(c, t - 1) and beta(c - 1, t - 1) <= len - j <= beta(c - 1, t).
    int64_t j = std::max(beta(slots, t - 2), len - beta(slots - 1, t));
    j = std::min<int64_t>(std::max<int64_t>(j, 1), len - 1);
    int mid = lo + static_cast<int>(j);
    ensure(mid);
    held[mid] = 1;
    drop(lo, mid);
    reverse(mid, hi, slots - 1);
    reverse(lo, mid, slots);
    held[mid] = 0;
    avail[mid] = 0;
  }
};
} // namespace

namespace {
/// The chain and the backward groups revolve works on.
struct RevolveProblem {
  std::vector<int> chain;
  std::vector<std::vector<int>> groups, groupReads;
};
} // namespace

/// Finds the chain and groups the backward nodes by the highest chain
/// position they read; the groups must come in decreasing order. Returns an
/// empty string or why revolve does not apply.
static std::string prepareRevolve(const Graph &graph, RevolveProblem &p) {
  if (!isForwardChain(graph, &p.chain))
    return "the forward graph is not a chain";
  std::vector<int> pos(graph.size(), 0);
  for (int i = 0, e = p.chain.size(); i < e; ++i)
    pos[p.chain[i]] = i + 1;
  std::vector<char> needed = neededNodes(graph);
  const int len = p.chain.size();
  p.groups.assign(len + 1, {});
  p.groupReads.assign(len + 1, {});
  int current = len;
  for (int id = 0; id < graph.size(); ++id) {
    if (!needed[id] || graph.nodes[id].kind != NodeKind::Backward)
      continue;
    int top = 0;
    std::vector<int> reads;
    for (int dep : graph.nodes[id].deps)
      if (pos[dep] > 0) {
        top = std::max(top, pos[dep]);
        reads.push_back(pos[dep]);
      }
    if (top == 0)
      top = current;
    if (top > current)
      return "the backward does not visit the chain in reverse";
    if (top == 0)
      return "a backward node reads no chain value";
    current = top;
    p.groups[top].push_back(id);
    for (int r : reads)
      p.groupReads[top].push_back(r);
  }
  for (auto &reads : p.groupReads) {
    std::sort(reads.begin(), reads.end());
    reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
  }
  return "";
}

std::vector<int> remat::revolveComputeOrder(const Graph &graph, int slots,
                                            std::string *error) {
  RevolveProblem p;
  std::string why = prepareRevolve(graph, p);
  if (!why.empty()) {
    if (error)
      *error = why;
    return {};
  }
  RevolveDriver driver(graph, p.chain, p.groups, p.groupReads);
  return driver.run(std::max(0, slots), maxOrderLength(graph));
}

namespace {
/// One slot count's plan, as the simulator measured it.
struct Candidate {
  int slots = -1;
  int64_t peak = std::numeric_limits<int64_t>::max();
  double cost = std::numeric_limits<double>::infinity();
  Schedule schedule;
};

/// The search over slot counts, keeping the best verified plan. Each
/// candidate's compute order is built first (cheap); its cost is then
/// known, and a candidate that cannot beat the best plan is not reordered
/// or simulated (the expensive part, which grows with the order's length).
class SlotSearch {
public:
  SlotSearch(const Graph &graph, const SolveOptions &options,
             const RevolveProblem &p, WorkMeter &meter)
      : graph(graph), options(options),
        driver(graph, p.chain, p.groups, p.groupReads), len(p.chain.size()),
        limit(costLimit(graph, options)), maxLength(maxOrderLength(graph)),
        meter(meter) {}

  void consider(int slots);
  Candidate best;

private:
  bool cannotWin(double cost) const;
  bool isBetterThanBest(const Candidate &c) const;

  const Graph &graph;
  const SolveOptions &options;
  RevolveDriver driver;
  const int len;
  const double limit;
  const size_t maxLength;
  WorkMeter &meter;
};

/// The work units (`SolveAllowance`) of evaluating a compute order, per
/// position: its schedule (about two steps a position: the computation and
/// a free) built in every order policy and simulated.
static int64_t workPerPosition() { return orderWork(OrderPolicy::Best, 2); }
} // namespace

static double orderCost(const Graph &graph, const std::vector<int> &order) {
  double cost = 0;
  for (int id : order)
    cost += graph.nodes[id].cost;
  return cost;
}

/// Whether an order of `cost` loses to the best plan whatever its peak:
/// the best meets the constraints, and this cost passes the cost limit or,
/// for the compute objective, the best's cost (with room for the rounding
/// of sums taken in another order).
bool SlotSearch::cannotWin(double cost) const {
  const double slack = 1e-6 * std::max(1.0, std::abs(cost));
  if (best.slots < 0 || best.peak > options.budget || best.cost > limit + slack)
    return false;
  if (cost > limit + slack)
    return true;
  return options.objective == Objective::MinComputeUnderBudget &&
         cost > best.cost + slack;
}

/// isBetter, ties to the fewer slots (the search runs from many slots down).
bool SlotSearch::isBetterThanBest(const Candidate &c) const {
  if (best.slots < 0)
    return true;
  if (c.peak == best.peak && c.cost == best.cost)
    return c.slots < best.slots;
  return isBetter(options, limit, c.peak, c.cost, best.peak, best.cost);
}

/// Evaluates `slots` unless it is out of range or, once a plan is in hand,
/// the work is spent or its order would not be built, reordered and
/// simulated within the work left (the order stops growing at the length
/// that still fits).
void SlotSearch::consider(int slots) {
  if (slots < 0 || slots > len || (best.slots >= 0 && meter.exhausted()))
    return;
  size_t cap = maxLength;
  if (best.slots >= 0)
    cap = std::min<size_t>(cap, meter.left() / workPerPosition());
  std::vector<int> order = driver.run(slots, cap);
  Candidate c;
  c.slots = slots;
  if (order.empty()) {
    // Too long: recomputes too often, or would not be ready in time.
    meter.charge(static_cast<int64_t>(cap));
    if (cap == maxLength && isBetterThanBest(c))
      best = std::move(c);
    return;
  }
  if (cannotWin(orderCost(graph, order))) {
    meter.charge(static_cast<int64_t>(order.size()));
    return;
  }
  c.schedule = scheduleFromComputeOrder(graph, bestOrder(graph, order));
  Simulation sim = simulate(graph, c.schedule);
  meter.charge(workPerPosition() * static_cast<int64_t>(order.size()));
  if (sim.valid()) {
    c.peak = sim.peakBytes;
    c.cost = sim.cost;
  }
  if (isBetterThanBest(c))
    best = std::move(c);
}

SolveResult remat::solveRevolve(const Graph &graph,
                                const SolveOptions &options) {
  WorkMeter meter(options);
  const char *name = "revolve";
  RevolveProblem p;
  std::string why = prepareRevolve(graph, p);
  if (!why.empty())
    return failSolve(name, SolveStatus::Unsupported, why, meter);
  const int len = p.chain.size();
  SlotSearch search(graph, options, p, meter);
  // More slots: more memory, less recomputation. Scan small chains fully;
  // on long ones scan geometrically, then refine around the best. Many
  // slots first: their orders are the shortest (the quickest to evaluate,
  // and the cheapest for the compute objective).
  if (len <= 64) {
    for (int s = len; s >= 0; --s)
      search.consider(s);
  } else {
    std::vector<int> grid;
    for (int s = 0; s <= len; s = s < 4 ? s + 1 : s * 5 / 4)
      grid.push_back(s);
    search.consider(len);
    for (auto s = grid.rbegin(); s != grid.rend(); ++s)
      search.consider(*s);
    int center = search.best.slots;
    for (int s = center + 16; s >= center - 16; --s)
      if (s != center)
        search.consider(s);
  }
  Candidate &best = search.best;
  if (best.slots < 0 || !std::isfinite(best.cost))
    return failSolve(name, SolveStatus::Infeasible,
                     "every slot count recomputes too often", meter);
  return finishSolve(graph, options, name, std::move(best.schedule),
                     SolveStatus::Feasible, meter,
                     "checkpoint slots: " + std::to_string(best.slots));
}
