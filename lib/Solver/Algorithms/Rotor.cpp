//===- Rotor.cpp - multi-level re-forwarding over a chain of segments -----===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The optimal checkpointing of heterogeneous chains (Beaumont, Eyraud-Dubois,
// Herrmann, Joly, Shilova, "Optimal checkpointing for heterogeneous chains:
// how to train deep neural networks with limited memory", 2019, the "Rotor"
// DP) with per-block options, as Rockmate combines them (Zhao et al., ICML
// 2023), on any training graph whose forward pass has articulation points:
//
//   * Chain. The blocks of BlockOptions.h: the forward graph cut at its
//     articulation points, so that block s reads only block s-1's exit among
//     forward values, each with a Pareto set of keep options scored by the
//     local model (kept bytes, recomputed bytes held in its backward,
//     recompute cost). Backward nodes form groups: a node joins the latest
//     block it reads, or an earlier group when a backward node it depends
//     on runs there (groups run from the last block to the first).
//   * DP. cost(s, t, m): the least forward cost that runs the backward of
//     blocks s..t from s's entry within m memory levels. Either block s runs
//     with one of its options (what it keeps stays for its backward, which
//     recomputes the rest; then s+1..t, then group s), or s..s'-1 run keeping
//     only the exit of s'-1 (then s'..t, then s..s'-1 again from the entry):
//     re-forwarding on as many levels as pays. One table serves every memory
//     level. Its space holds the single-level plans (every block with an
//     option: full and selective checkpointing among them) and revolve's.
//   * Plans. Each distinct top-level cost gives a compute order (the forward
//     blocks as the DP runs them; before each backward group, the dropped
//     values it reads, closed under reads within the block); the shared
//     builder adds the frees, `bestOrder` moves each recomputation next to
//     its use, and the simulator measures it. The model is not the
//     simulator, so the levels are searched: for the compute objective the
//     largest level whose plan meets the budget (by bisection, then its
//     neighbours), for the peak objective the smallest levels within the
//     cost limit.
//
// No lower bound: the model is exact only for plans that respect the
// blocks. Fails (Infeasible) when no level's plan meets the constraints.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Algorithms/BlockOptions.h"
#include "remat/Solver/Algorithms/Solvers.h"
#include "remat/Solver/Core/Ordering.h"
#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/SolverSupport.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

using namespace remat;

/// About this many blocks at most (the DP is cubic in them, its table
/// quadratic): articulation segments merge into blocks of up to forward
/// nodes / kBlocks free nodes.
static constexpr int kBlocks = 100;
/// Memory levels of the DP: kLevels, and on short chains also as many as
/// fit in about kCells entries of the table, up to kMostLevels (a block's
/// exit rounds up to one level: on the 33 blocks of an 8B-shaped model,
/// with 200 levels of 0.4 GB, every option keeping under 0.4 GB looked
/// free; but on decomposed mobilenet_v2 the coarse table's plans fit
/// budgets the fine one's do not, 137.0 against 166.3 MiB).
static constexpr int kLevels = 200;
static constexpr size_t kCells = 1'000'000;
static constexpr int kMostLevels = 4000;

/// The finer level count of a chain of n blocks (kLevels when the chain is
/// too long for more).
static int finerLevels(int n) {
  size_t pairs = static_cast<size_t>(n) * (n + 1) / 2;
  return static_cast<int>(
      std::clamp<size_t>(kCells / pairs, kLevels, kMostLevels));
}
/// Levels tried above the bisection's answer (the simulated peak is not
/// monotone in the model's level), and above the peak objective's.
static constexpr int kNeighbours = 4;
/// The smallest levels tried for a plan that fits, spaced as kLevels levels
/// would be (their plans' simulated peaks are not in the levels' order
/// either).
static constexpr size_t kLowSteps = 8;
/// Inner iterations of the DP per work unit: one takes about 6 ns (30 M on
/// the 8B-shaped Llama's chain in 0.18 s), a unit about 36 ns (Solver.h).
static constexpr int64_t kIterationsPerUnit = 4;
/// Levels of the grid the time search (with offloading) starts from.
static constexpr size_t kTimeGrid = 8;

static constexpr double kInfinity = std::numeric_limits<double>::infinity();

namespace {
/// One option of a block as this DP runs it: the option's kept nodes stay
/// from the forward pass; the group recomputes the other values of the
/// block it reads, and what they read likewise (`recomputedFor`).
struct Way {
  const BlockOption *option = nullptr;
  int64_t workBytes = 0; ///< Bytes the group recomputes.
  double recompute = 0;  ///< Cost of what the group recomputes.
  /// What offloading the kept values (not the exit, not outputs) moves:
  /// their storages, bytes, and the copies' time on the chain's link.
  std::vector<int> offloadable;
  int64_t offloadBytes = 0;
  double copyCost = 0;
};

/// The blocks as a chain, indexed 1..size() (index 0 is the resident input
/// side), with their backward groups and what a recomputation may run.
struct BlockChain {
  std::vector<DpBlock> blocks;
  /// Forward nodes each block's forward runs (its nodes; the last block
  /// also the forward nodes after the last articulation point).
  std::vector<std::vector<int>> forward, groups;
  std::vector<int64_t> exitBytes;
  /// The gradients' footprint while each group runs (`measureBackward`).
  std::vector<int64_t> backwardBytes;
  /// The most bytes one node of the block holds with its operands of the
  /// chain while the forward runs it.
  std::vector<int64_t> forwardBytes;
  std::vector<double> cost;
  /// Each group's own cost (its backward nodes).
  std::vector<double> groupCost;
  /// The link a block's kept values may be offloaded over; none: keep or
  /// recompute only.
  const HostLink *link = nullptr;
  /// Forward nodes a recomputation runs again (not outputs, not pinned).
  std::vector<char> recompute;
  std::vector<int> blockOf;
  /// Each block's options, rescored for its group (`scoreWays`).
  std::vector<std::vector<Way>> ways;

  int size() const { return static_cast<int>(blocks.size()); }
  const DpBlock &block(int s) const { return blocks[s - 1]; }
  /// What block s run with `way` holds while blocks s+1.. run: what it
  /// keeps, and its exit (their entry).
  int64_t heldBytes(int s, const Way &way, bool offload = false) const {
    return way.option->keptBytes + (way.option->keepsExit ? 0 : exitBytes[s]) -
           (offload ? way.offloadBytes : 0);
  }
  /// Whether block s of a range ending at t may offload with `way`: a block
  /// follows whose forward and group the copies run beside.
  bool canOffload(int s, int t, const Way &way) const {
    return link && s < t && way.offloadBytes > 0;
  }
  /// The time block s's offloaded values stall the step: what their copies
  /// take beyond the next block's forward (the copies out) and beyond its
  /// group (the copies back). The copies queue on one stream per direction,
  /// so blocks that each keep within their windows keep the queue short.
  double stall(int s, const Way &way) const {
    return std::max(0.0, way.copyCost - cost[s + 1]) +
           std::max(0.0, way.copyCost - groupCost[s + 1]);
  }
};
} // namespace

/// Assigns each needed backward node to the latest block it reads (a block's
/// exit counts as the next block's), or earlier when a backward node it
/// depends on (or must follow) runs there; nodes reading no forward value
/// run with their earliest-running consumer.
static void groupBackward(const Graph &graph, BlockChain &chain) {
  const int none = chain.size() + 1;
  std::vector<char> needed = neededNodes(graph);
  std::vector<int> group(graph.size(), none), pending(graph.size(), 1);
  auto isBackward = [&](int id) {
    return needed[id] && graph.nodes[id].kind == NodeKind::Backward;
  };
  auto forEachEarlier = [&](int id, auto fn) {
    for (const std::vector<int> *edges :
         {&graph.nodes[id].deps, &graph.nodes[id].after})
      for (int dep : *edges)
        if (isBackward(dep))
          fn(dep);
  };
  for (int id = 0; id < graph.size(); ++id) {
    if (!isBackward(id))
      continue;
    int top = 0;
    forEachRead(graph.nodes[id], [&](int dep) {
      // An exit is the next block's entry, held while that block's group runs.
      int s = chain.blockOf[dep];
      bool exit = s > 0 && s < chain.size() && chain.block(s).exit == dep;
      top = std::max(top, exit ? s + 1 : s);
    });
    group[id] = top > 0 ? top : none;
    forEachEarlier(
        id, [&](int dep) { group[id] = std::min(group[id], group[dep]); });
  }
  chain.groups.assign(chain.size() + 1, {});
  for (int id = graph.size() - 1; id >= 0; --id) {
    if (!isBackward(id))
      continue;
    if (group[id] == none)
      group[id] = pending[id];
    forEachEarlier(id, [&](int dep) {
      if (group[dep] == none)
        pending[dep] = std::max(pending[dep], group[id]);
    });
  }
  for (int id = 0; id < graph.size(); ++id)
    if (isBackward(id))
      chain.groups[group[id]].push_back(id);
}

/// The values of block s that group s reads and `kept` does not hold, and
/// the values of block s they read likewise, ascending. `marks` (one per
/// node) is all zero before and after.
static std::vector<int> recomputedFor(const Graph &graph,
                                      const BlockChain &chain, int s,
                                      const std::vector<int> &kept,
                                      std::vector<char> &marks) {
  for (int id : kept)
    marks[id] = 1;
  std::vector<int> stack, result;
  auto need = [&](int id) {
    if (chain.blockOf[id] == s && !marks[id] && chain.recompute[id]) {
      marks[id] = 1;
      stack.push_back(id);
    }
  };
  for (int id : chain.groups[s])
    forEachRead(graph.nodes[id], need);
  while (!stack.empty()) {
    int id = stack.back();
    stack.pop_back();
    result.push_back(id);
    forEachRead(graph.nodes[id], need);
  }
  for (int id : kept)
    marks[id] = 0;
  for (int id : result)
    marks[id] = 0;
  std::sort(result.begin(), result.end());
  return result;
}

/// The backward's footprint while each group runs: with the groups run in
/// order (the last block's first), each backward value held from its
/// computation to its last use there (outputs to the end, a view keeping its
/// base's storage), the most bytes live while one of the group's nodes is
/// computed, with the forward pass's outputs.
static void measureBackward(const Graph &graph, BlockChain &chain) {
  std::vector<int> order, position(graph.size(), -1);
  for (int s = chain.size(); s >= 1; --s)
    for (int id : chain.groups[s]) {
      position[id] = order.size();
      order.push_back(id);
    }
  const int end = order.size();
  std::vector<int> lastUse(graph.size(), -1);
  for (int out : graph.outputs)
    lastUse[graph.storageOf(out)] = end;
  for (int at = 0; at < end; ++at)
    forEachRead(graph.nodes[order[at]], [&](int dep) {
      int root = graph.storageOf(dep);
      if (position[root] >= 0)
        lastUse[root] = std::max(lastUse[root], at);
    });
  std::vector<std::vector<int>> freedAfter(end);
  for (int id : order)
    if (!graph.nodes[id].isView() && lastUse[id] < end)
      freedAfter[std::max(lastUse[id], position[id])].push_back(id);
  chain.backwardBytes.assign(chain.size() + 1, 0);
  // Forward outputs (the loss) stay to the end too.
  int64_t live = 0;
  for (int out : graph.outputs)
    if (graph.nodes[out].kind == NodeKind::Forward)
      live += ownedBytes(graph, out);
  for (int s = chain.size(), at = 0; s >= 1; --s)
    for (size_t i = 0; i < chain.groups[s].size(); ++i, ++at) {
      live += ownedBytes(graph, order[at]);
      chain.backwardBytes[s] = std::max(chain.backwardBytes[s], live);
      for (int id : freedAfter[at])
        live -= ownedBytes(graph, id);
    }
}

/// The storages of block s that `way` keeps and may offload: not the exit's
/// (the next block reads it at once), owned by the block and recomputable
/// (not outputs, not pinned); with
/// their bytes and the copies' time on the chain's link.
static void scoreOffload(const Graph &graph, const BlockChain &chain, int s,
                         Way &way) {
  int exit = graph.storageOf(chain.block(s).exit);
  for (int id : way.option->kept) {
    int root = graph.storageOf(id);
    if (root == exit || chain.blockOf[root] != s || !chain.recompute[root] ||
        std::count(way.offloadable.begin(), way.offloadable.end(), root))
      continue;
    way.offloadable.push_back(root);
    way.offloadBytes += ownedBytes(graph, root);
    way.copyCost += chain.link->copyCost(ownedBytes(graph, root));
  }
}

/// The ways of each block: its options, with what its group recomputes and,
/// with a link, what offloading would move.
static void scoreWays(const Graph &graph, BlockChain &chain) {
  chain.ways.assign(chain.size() + 1, {});
  std::vector<char> marks(graph.size(), 0);
  for (int s = 1; s <= chain.size(); ++s)
    for (const BlockOption &option : chain.block(s).options) {
      Way way{&option};
      for (int id : recomputedFor(graph, chain, s, option.kept, marks)) {
        way.workBytes += ownedBytes(graph, id);
        way.recompute += graph.nodes[id].cost;
      }
      if (chain.link)
        scoreOffload(graph, chain, s, way);
      chain.ways[s].push_back(std::move(way));
    }
}

/// Each block's exit bytes, forward cost (what a recomputation runs) and the
/// most bytes one of its nodes holds with its operands.
static void measureForward(const Graph &graph, BlockChain &chain) {
  const int n = chain.size();
  chain.exitBytes.assign(n + 1, 0);
  chain.forwardBytes.assign(n + 1, 0);
  chain.cost.assign(n + 1, 0);
  for (int s = 1; s <= n; ++s) {
    chain.exitBytes[s] =
        ownedBytes(graph, graph.storageOf(chain.block(s).exit));
    for (int id : chain.forward[s]) {
      if (chain.recompute[id])
        chain.cost[s] += graph.nodes[id].cost;
      int64_t bytes = ownedBytes(graph, id);
      forEachRead(graph.nodes[id], [&](int dep) {
        if (chain.blockOf[dep] > 0)
          bytes += ownedBytes(graph, dep);
      });
      chain.forwardBytes[s] = std::max(chain.forwardBytes[s], bytes);
    }
  }
}

static BlockChain buildChain(const Graph &graph, std::vector<DpBlock> blocks,
                             const HostLink *link) {
  BlockChain chain;
  chain.blocks = std::move(blocks);
  chain.link = link;
  const int n = chain.size();
  chain.blockOf.assign(graph.size(), 0);
  chain.forward.assign(n + 1, {});
  for (int s = 1; s <= n; ++s)
    for (int id : chain.block(s).nodes)
      chain.blockOf[id] = s;
  for (int id : forwardOrder(graph)) {
    if (chain.blockOf[id] == 0)
      chain.blockOf[id] = n; // after the last articulation point
    chain.forward[chain.blockOf[id]].push_back(id);
  }
  chain.recompute.assign(graph.size(), 1);
  for (int out : graph.outputs)
    chain.recompute[out] = 0;
  for (int id = 0; id < graph.size(); ++id)
    if (graph.nodes[id].keep == KeepPolicy::Always)
      chain.recompute[id] = 0;
  measureForward(graph, chain);
  groupBackward(graph, chain);
  measureBackward(graph, chain);
  chain.groupCost.assign(n + 1, 0);
  for (int s = 1; s <= n; ++s)
    for (int id : chain.groups[s])
      chain.groupCost[s] += graph.nodes[id].cost;
  scoreWays(graph, chain);
  return chain;
}

namespace {
/// The DP's table over (s, t, memory level); see the file comment.
class RotorTable {
public:
  /// The table over `levels` memory levels.
  RotorTable(const BlockChain &chain, int levels);

  /// Fills the table; returns the work units it took.
  int64_t fill();
  double cost(int s, int t, int m) const { return costs[index(s, t, m)]; }
  /// What block s does in the best plan of (s, t, m): run with option
  /// `option` (its kept values offloaded or not), or keep only the exit of
  /// `next` - 1; neither: no plan.
  struct Choice {
    int option = -1, next = -1;
    bool offload = false;
  };
  Choice choice(int s, int t, int m) const {
    int16_t c = choices[index(s, t, m)];
    if (c >= 0)
      return Choice{c & ~kOffloaded, -1, (c & kOffloaded) != 0};
    return Choice{-1, c == kNone ? -1 : -c};
  }
  /// The levels `bytes` takes, rounded up.
  int level(int64_t bytes) const {
    return static_cast<int>(std::ceil(static_cast<double>(bytes) / unit));
  }
  int levels() const { return numLevels; }

private:
  static constexpr int16_t kNone = std::numeric_limits<int16_t>::min();
  /// The flag of an option choice that offloads (options are fewer).
  static constexpr int16_t kOffloaded = 1 << 14;
  /// The entries of (s, t), 1 <= s <= t <= n, one per level.
  size_t index(int s, int t, int m) const {
    size_t pair = static_cast<size_t>(t) * (t - 1) / 2 + (s - 1);
    return pair * (numLevels + 1) + m;
  }
  void fillEntry(int s, int t, int m);

  const BlockChain &chain;
  const int n;
  const int numLevels;
  double unit = 1;
  std::vector<double> costs;
  std::vector<int16_t> choices;
  std::vector<double> prefixCost;
};
} // namespace

RotorTable::RotorTable(const BlockChain &chain, int levels)
    : chain(chain), n(chain.size()), numLevels(levels) {
  int64_t top = 0, kept = 0;
  for (int s = 1; s <= n; ++s) {
    int64_t most = 0;
    for (const Way &way : chain.ways[s]) {
      most = std::max(most, way.option->keptBytes);
      top = std::max(top, way.option->keptBytes + way.workBytes);
    }
    kept += most + chain.exitBytes[s];
    top = std::max(top, chain.backwardBytes[s]);
  }
  unit = std::max(1.0, static_cast<double>(kept + top) / numLevels);
  const size_t size = static_cast<size_t>(n) * (n + 1) / 2 * (numLevels + 1);
  costs.assign(size, kInfinity);
  choices.assign(size, kNone);
  prefixCost.assign(n + 1, 0);
  for (int s = 1; s <= n; ++s)
    prefixCost[s] = prefixCost[s - 1] + chain.cost[s];
}

void RotorTable::fillEntry(int s, int t, int m) {
  double best = kInfinity;
  int16_t pick = kNone;
  const int64_t backward = chain.backwardBytes[s];
  auto consider = [&](double c, int pickIf) {
    if (c < best) {
      best = c;
      pick = static_cast<int16_t>(pickIf);
    }
  };
  for (size_t o = 0; o < chain.ways[s].size(); ++o) {
    const Way &way = chain.ways[s][o];
    if (level(way.option->keptBytes + way.workBytes + backward) > m ||
        level(chain.forwardBytes[s]) > m)
      continue;
    // The last block of a range needs no forward for a way that keeps
    // nothing: its group recomputes what it reads (the first forward pass
    // runs each block once whatever the plan).
    double forward = s == t && way.option->kept.empty() ? 0 : chain.cost[s];
    // Before s's group runs, what it keeps (and its exit, the next block's
    // entry, while the later blocks run) is held.
    const int kept =
        level(s < t ? chain.heldBytes(s, way) : way.option->keptBytes);
    if (kept <= m)
      consider(forward + way.recompute +
                   (s == t ? 0 : cost(s + 1, t, m - kept)),
               static_cast<int>(o));
    // Offloaded, the kept values leave the device while the next block
    // runs forward, and come back while its group runs.
    if (!chain.canOffload(s, t, way) ||
        level(way.option->keptBytes + chain.forwardBytes[s + 1]) > m)
      continue;
    const int held = level(chain.heldBytes(s, way, true));
    consider(forward + way.recompute + chain.stall(s, way) +
                 cost(s + 1, t, m - held),
             static_cast<int>(o) | kOffloaded);
  }
  int64_t transient = 0;
  for (int next = s + 1; next <= t; ++next) {
    transient = std::max(transient, chain.forwardBytes[next - 1]);
    const int exit = level(chain.exitBytes[next - 1]);
    if (exit > m || level(transient) > m)
      continue;
    double c = prefixCost[next - 1] - prefixCost[s - 1] +
               cost(next, t, m - exit) + cost(s, next - 1, m);
    if (c < best) {
      best = c;
      pick = static_cast<int16_t>(-next);
    }
  }
  costs[index(s, t, m)] = best;
  choices[index(s, t, m)] = pick;
}

int64_t RotorTable::fill() {
  int64_t iterations = 0;
  for (int len = 0; len < n; ++len)
    for (int s = 1; s + len <= n; ++s)
      for (int m = 0; m <= numLevels; ++m) {
        fillEntry(s, s + len, m);
        iterations += len + chain.ways[s].size();
      }
  return iterations / kIterationsPerUnit;
}

namespace {
/// The compute order of the DP's plan at one top-level memory level.
class OrderEmitter {
public:
  OrderEmitter(const Graph &graph, const BlockChain &chain,
               const RotorTable &table)
      : graph(graph), chain(chain), table(table) {}

  std::vector<int> run(int m) {
    order.clear();
    offloaded.clear();
    computed.assign(graph.size(), 0);
    marks.assign(graph.size(), 0);
    reverse(1, chain.size(), m);
    return order;
  }
  /// The storages the last plan run offloads, in the order their blocks
  /// chose to.
  const std::vector<int> &offloads() const { return offloaded; }

private:
  /// Runs block s forward: every node the first time, then the ones a
  /// recomputation may run again.
  void forward(int s) {
    for (int id : chain.forward[s])
      if (!computed[id] || chain.recompute[id]) {
        order.push_back(id);
        computed[id] = 1;
      }
  }
  void backward(int s, const Way &way);

  void reverse(int s, int t, int m) {
    RotorTable::Choice c = table.choice(s, t, m);
    if (c.option >= 0) {
      const Way &way = chain.ways[s][c.option];
      if (s < t || !way.option->kept.empty() || !computed[chain.block(s).exit])
        forward(s);
      if (c.offload)
        offloaded.insert(offloaded.end(), way.offloadable.begin(),
                         way.offloadable.end());
      if (s < t)
        reverse(s + 1, t, m - table.level(chain.heldBytes(s, way, c.offload)));
      backward(s, way);
      return;
    }
    for (int k = s; k < c.next; ++k)
      forward(k);
    reverse(c.next, t, m - table.level(chain.exitBytes[c.next - 1]));
    reverse(s, c.next - 1, m);
  }

  const Graph &graph;
  const BlockChain &chain;
  const RotorTable &table;
  std::vector<int> order;
  std::vector<char> computed, marks;

  std::vector<int> offloaded;
};
} // namespace

/// Runs group s after recomputing the values of block s it reads that
/// `way` does not keep (`recomputedFor`; `bestOrder` then moves each next to
/// its first use).
void OrderEmitter::backward(int s, const Way &way) {
  std::vector<int> redo =
      recomputedFor(graph, chain, s, way.option->kept, marks);
  order.insert(order.end(), redo.begin(), redo.end());
  order.insert(order.end(), chain.groups[s].begin(), chain.groups[s].end());
}

namespace {
/// One level's plan, as the simulator measured it.
struct Candidate {
  int64_t peak = std::numeric_limits<int64_t>::max();
  double cost = kInfinity;
  Schedule schedule;
};

/// The search over the table's top-level memory levels (see the file
/// comment), keeping the best verified plan.
class LevelSearch {
public:
  /// Each plan is simulated, or judged by `judge` when given (its cost is
  /// then the time it predicts).
  LevelSearch(const Graph &graph, const SolveOptions &options,
              const BlockChain &chain, const RotorTable &table,
              WorkMeter &meter, const OffloadJudge *judge = nullptr);

  void run() {
    if (steps.empty())
      return;
    if (judge)
      minimizeTime();
    else if (options.objective == Objective::MinPeakUnderOverhead)
      minimizePeak();
    else
      minimizeCompute();
  }

  std::optional<Candidate> best;
  int evaluations = 0;

private:
  bool meets(const Candidate &c) const {
    return c.peak <= options.budget && c.cost <= limit * (1 + 1e-9);
  }
  const Candidate &evaluate(size_t step);
  void minimizeCompute();
  void minimizePeak();
  void minimizeTime();

  const Graph &graph;
  const SolveOptions &options;
  OrderEmitter emitter;
  const double limit;
  WorkMeter &meter;
  const OffloadJudge *judge;
  /// Levels between the smallest ones tried first (`minimizeCompute`).
  const int stride;
  /// The smallest level of each distinct top-level cost, cheapest last.
  std::vector<int> steps;
  std::vector<std::optional<Candidate>> seen;
};
} // namespace

LevelSearch::LevelSearch(const Graph &graph, const SolveOptions &options,
                         const BlockChain &chain, const RotorTable &table,
                         WorkMeter &meter, const OffloadJudge *judge)
    : graph(graph), options(options), emitter(graph, chain, table),
      limit(costLimit(graph, options)), meter(meter), judge(judge),
      stride(std::max(1, table.levels() / kLevels)) {
  double last = kInfinity;
  for (int m = 0; m <= table.levels(); ++m) {
    double c = table.cost(1, chain.size(), m);
    if (std::isfinite(c) && c < last) {
      steps.push_back(m);
      last = c;
    }
  }
  seen.resize(steps.size());
}

/// Builds, reorders and simulates the plan of `steps[step]`; keeps the best.
const Candidate &LevelSearch::evaluate(size_t step) {
  if (seen[step])
    return *seen[step];
  std::vector<int> order = emitter.run(steps[step]);
  Candidate c;
  c.schedule = scheduleFromComputeOrder(graph, bestOrder(graph, order));
  meter.charge(orderWork(OrderPolicy::Best, 2 * order.size()));
  ++evaluations;
  if (judge) {
    OffloadVerdict verdict = (*judge)(c.schedule, emitter.offloads());
    meter.charge(verdict.work);
    c.peak = verdict.peak;
    c.cost = verdict.time;
  } else if (Simulation sim = simulate(graph, c.schedule); sim.valid()) {
    c.peak = sim.peakBytes;
    c.cost = sim.cost;
  }
  if (!best || isBetter(options, limit, c.peak, c.cost, best->peak, best->cost))
    best = c;
  seen[step] = std::move(c);
  return *seen[step];
}

/// The cheapest plan that meets the budget: the first of the smallest
/// levels (a stride apart) whose plan fits, bisection above it for the
/// largest whose plan fits, then the next few above that.
void LevelSearch::minimizeCompute() {
  size_t fit = 0, miss = steps.size() - 1;
  if (meets(evaluate(miss)))
    return;
  for (size_t tried = 1; !meets(evaluate(fit)); ++tried) {
    if (tried >= kLowSteps || meter.exhausted())
      return;
    // The next level at least a stride up, as kLevels levels would space
    // them (finer levels would try only the very lowest memory).
    int next = steps[fit] + stride;
    while (fit < miss && steps[fit] < next)
      ++fit;
    if (fit >= miss)
      return;
  }
  while (miss - fit > 1 && !meter.exhausted()) {
    size_t mid = (fit + miss) / 2;
    (meets(evaluate(mid)) ? fit : miss) = mid;
  }
  for (size_t i = miss + 1;
       i < steps.size() && i <= miss + kNeighbours && !meter.exhausted(); ++i)
    evaluate(i);
}

/// The fastest judged plan that meets the budget. Copies added to bring a
/// plan down may stall it, so its time is not monotone in the level: an even
/// grid of levels, then a ternary search between the grid's neighbours of
/// the fastest (a level whose plan misses counts as infinitely slow, and
/// the search moves up from it).
void LevelSearch::minimizeTime() {
  auto time = [&](size_t step) {
    const Candidate &c = evaluate(step);
    return meets(c) ? c.cost : kInfinity;
  };
  const size_t last = steps.size() - 1;
  size_t fastest = last;
  std::vector<size_t> grid;
  for (size_t i = 0; i < kTimeGrid; ++i)
    grid.push_back(last * i / (kTimeGrid - 1));
  for (size_t step : grid) {
    if (time(step) < time(fastest))
      fastest = step;
    if (meter.exhausted())
      break;
  }
  size_t at = std::find(grid.begin(), grid.end(), fastest) - grid.begin();
  size_t lo = at > 0 ? grid[at - 1] : 0;
  size_t hi = at + 1 < grid.size() ? grid[at + 1] : last;
  while (hi - lo > 2 && !meter.exhausted()) {
    size_t a = lo + (hi - lo) / 3, b = hi - (hi - lo) / 3;
    double ta = time(a), tb = time(b);
    if (!std::isfinite(ta) && !std::isfinite(tb))
      lo = b;
    else if (ta <= tb)
      hi = b;
    else
      lo = a;
  }
  for (size_t step = lo; step <= hi && !meter.exhausted(); ++step)
    evaluate(step);
}

/// The least peak within the cost limit: the smallest level whose plan's
/// cost meets it (bisected on the orders' costs, which need no simulation),
/// and the next few above.
void LevelSearch::minimizePeak() {
  auto withinLimit = [&](size_t step) {
    double cost = 0;
    for (int id : emitter.run(steps[step]))
      cost += graph.nodes[id].cost;
    return cost <= limit * (1 + 1e-9);
  };
  size_t miss = 0, fit = steps.size() - 1;
  if (withinLimit(miss))
    fit = miss;
  while (fit - miss > 1) {
    size_t mid = (fit + miss) / 2;
    (withinLimit(mid) ? fit : miss) = mid;
  }
  for (size_t i = fit; i < steps.size() && i <= fit + kNeighbours; ++i)
    if (i == fit || !meter.exhausted())
      evaluate(i);
}

/// The chain of `graph`'s blocks and their ways (over `link` when given);
/// none when no forward node can be recomputed.
static std::optional<BlockChain> chainOf(const Graph &graph, WorkMeter &meter,
                                         const HostLink *link) {
  std::vector<DpBlock> blocks = blockOptions(
      graph, meter, (forwardOrder(graph).size() + kBlocks - 1) / kBlocks);
  if (blocks.empty())
    return std::nullopt;
  return buildChain(graph, std::move(blocks), link);
}

/// The levels search of one table over `chain`, its plan finished; nullopt
/// when no level has a plan. Adds the plans it evaluated to `evaluations`.
static std::optional<SolveResult>
solveTable(const Graph &graph, const SolveOptions &options,
           const BlockChain &chain, const RotorTable &table, WorkMeter &meter,
           int &evaluations) {
  LevelSearch search(graph, options, chain, table, meter);
  search.run();
  evaluations += search.evaluations;
  if (!search.best)
    return std::nullopt;
  return finishSolve(graph, options, "rotor", std::move(search.best->schedule),
                     SolveStatus::Feasible, meter);
}

SolveResult remat::solveRotor(const Graph &graph, const SolveOptions &options) {
  WorkMeter meter(options);
  const char *name = "rotor";
  std::optional<BlockChain> chain = chainOf(graph, meter, nullptr);
  if (!chain)
    return finishSolve(graph, options, name, checkpointAllSchedule(graph),
                       SolveStatus::Feasible, meter,
                       "no forward node to recompute");
  // The coarse table, then the finer one, the better plan once finished
  // (finishSolve's order repair moves peaks: on decomposed resnet50 two
  // plans of the same simulated peak ended 245.6 and 284.9 MB apart). The
  // finer table runs only where the work left pays for it as the coarse
  // pass cost (its fill scaled by the levels, its search as it was): a
  // member of `auto` with a small share skips it (spending it there took
  // from the local search: decomposed convnext_tiny's smallest budget went
  // 375.0 -> 386.0 MiB).
  const int finer = finerLevels(chain->size());
  std::optional<SolveResult> best;
  int evaluations = 0;
  int64_t fillWork = 0, searchWork = 0;
  for (int levels : {kLevels, finer}) {
    if (levels == finer &&
        (finer == kLevels ||
         meter.left() < fillWork / kLevels * finer + searchWork))
      break;
    RotorTable table(*chain, levels);
    fillWork = table.fill();
    meter.charge(fillWork);
    int64_t before = meter.used();
    std::optional<SolveResult> r =
        solveTable(graph, options, *chain, table, meter, evaluations);
    searchWork = meter.used() - before;
    if (r && (!best ||
              isBetterResult(options, costLimit(graph, options), *r, *best)))
      best = std::move(r);
  }
  std::string summary = std::to_string(chain->size()) + " blocks, " +
                        std::to_string(evaluations) + " plans";
  if (!best)
    return failSolve(name, SolveStatus::Infeasible,
                     "the chain model has no plan (" + summary + ")", meter);
  best->message += (best->message.empty() ? "" : "; ") + summary;
  best->work = meter.used();
  best->seconds = meter.seconds();
  best->stoppedByTimeLimit = meter.stoppedByTimeLimit();
  return std::move(*best);
}

int64_t remat::searchRotorOffloads(const Graph &graph,
                                   const SolveOptions &options,
                                   const HostLink &link,
                                   const OffloadJudge &judge) {
  WorkMeter meter(options);
  std::optional<BlockChain> chain = chainOf(graph, meter, &link);
  if (!chain)
    return meter.used();
  RotorTable table(*chain, finerLevels(chain->size()));
  meter.charge(table.fill());
  SolveOptions asked = options;
  asked.objective = Objective::MinComputeUnderBudget;
  LevelSearch search(graph, asked, *chain, table, meter, &judge);
  search.run();
  return meter.used();
}
