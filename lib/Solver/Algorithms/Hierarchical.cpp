//===- Hierarchical.cpp - block options combined by a DP over memory ------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The Rotor / Rockmate idea for graphs of thousands of nodes (docs/Solvers.md,
// "The hierarchical solver"; Zhao et al., "Rockmate: an Efficient, Fast,
// Automatic and Generic Tool for Re-materialization in PyTorch", ICML 2023):
//
//   * Blocks. The articulation points of the linearized forward graph cut it
//     into segments that only their last node leaves; consecutive segments
//     merge into blocks of at most kExactNodes free nodes (a longer segment
//     is a block of its own). A block's entry is the previous block's exit
//     (its last forward node): the only forward value that crosses into it.
//     Backward nodes stay outside the blocks and run in the backward (this
//     solver never hoists one into the forward pass, as min-cut may).
//   * Options. A keep subset of a block's nodes is scored by a local model
//     after Chen's: dropped values the backward reads, closed under reads
//     within the block, are recomputed once; the kept nodes cut the block
//     into segments whose recomputed values are live together ("work": the
//     largest segment's bytes); the score is (kept bytes, work bytes,
//     recompute cost, whether it reads a dropped entry). Small blocks enumerate
//     every subset of their free nodes (exact for the model); larger ones score
//     the projections of the min-cut sweep, Chen's greedy sets, keep-all and
//     keep-none, and the block's own sets: its matmul outputs (selective
//     checkpointing) and the prefixes of its nodes by recompute cost per
//     byte, alone and on top of the matmul outputs. Dominated options are
//     dropped: a small Pareto set per block. Identical blocks (same
//     `blockHash`, same free, forced and demanded nodes) are scored once.
//   * DP. Over the blocks in forward order and the prefix's kept bytes in
//     kLevels discrete levels, one option per block minimizing the recompute
//     cost such that, while block b's backward runs, kept(blocks <= b) +
//     work(b) + backward(b) fits the model budget (backward(b): the
//     gradients' footprint there, measured on the checkpoint-all schedule;
//     later blocks' kept values are freed by then). A block may recompute
//     from a dropped entry only if the previous block's option was scored
//     with its exit recomputed too (the DP state: whether the last block's
//     exit is available).
//   * Policies. Before the DP, full and selective activation checkpointing
//     on the repeated blocks (Blocks.h), and each mix of them (the last k
//     blocks selective), are verified as plans: the DP's model is not the
//     simulator, so this is what makes the answer never worse than a policy
//     that meets the constraints.
//   * Verification. The chosen set goes through the shared builder (every
//     variant of builderVariants(), reordered) and the simulator. The model
//     is not the simulator, so its budget is searched: under a budget it is
//     scaled down by the overshoot ratio while the simulated peak misses,
//     then bisected between fitting and missing; for MinPeakUnderOverhead it
//     is bisected for the smallest model budget meeting the cost limit. The
//     best verified plan (isBetter) is returned.
//
// Bounds: the DP is exact for its model only, and the model is neither above
// nor below the simulated peak, so no lowerBound is reported (an exact
// per-block optimum would bound only schedules that respect the blocks).
// Fails (Infeasible) when no probed plan meets the constraints.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Algorithms/BlockOptions.h"
#include "remat/Solver/Algorithms/Blocks.h"
#include "remat/Solver/Algorithms/Solvers.h"
#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/SolverSupport.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <tuple>

using namespace remat;

/// Blocks of at most this many free nodes enumerate every keep subset.
static constexpr int kExactNodes = 10;
/// Larger blocks score at most this many prefixes of their own cost-per-byte
/// order (twice: alone and on top of their matmul outputs).
static constexpr size_t kLocalPrefixes = 64;
/// Memory levels of the DP (of the model budget).
static constexpr int kLevels = 512;
/// Probes that scale the model budget down by the overshoot ratio, then
/// bisection probes between a fitting and a missing model budget.
static constexpr int kTightenProbes = 6;
static constexpr int kBisectProbes = 7;
static constexpr double kInfinity = std::numeric_limits<double>::infinity();

namespace {
/// A block's nodes seen locally, for scoring keep subsets.
struct LocalBlock {
  std::vector<std::vector<int>> users; ///< Readers within the block (indices).
  std::vector<char> readsEntry;        ///< Reads the block's entry.
  int exitIndex = -1;
};

/// The blocks of a graph and their Pareto sets of options (see the file
/// comment).
class Decomposition {
public:
  /// `sweep` bounds the min-cut sweep of `globalSets` (and counts it).
  /// Blocks merge articulation segments up to `blockNodes` free nodes.
  Decomposition(const Graph &graph, WorkMeter &sweep, int blockNodes);

  std::vector<DpBlock> blocks;

private:
  void formBlocks();
  void markDemand();
  void measureBackward();
  LocalBlock localView(const DpBlock &block) const;
  BlockOption score(const DpBlock &block, const LocalBlock &local,
                    const std::vector<char> &keep, bool exitRecomputed);
  std::vector<std::vector<char>> subsets(const DpBlock &block);
  void addLocalSets(const DpBlock &block, const std::vector<char> &base,
                    const std::vector<int> &freeIndex,
                    std::vector<std::vector<char>> &result);
  const std::vector<std::vector<char>> &globalSets();
  void buildOptions(DpBlock &block, bool last);
  uint64_t optionsKey(const DpBlock &block, bool last) const;
  void copyOptions(const DpBlock &from, DpBlock &to) const;

  const Graph &graph;
  const int n;
  const int blockNodes;
  WorkMeter &sweep;
  std::vector<char> free, forced, demand;
  std::vector<int> blockOf;
  std::optional<std::vector<std::vector<char>>> heuristicSets;
  /// `score`'s per-node marks, kept between calls (it runs a million times
  /// on a 50,000-node chain).
  std::vector<char> recomputed;
  /// The first block of each options key (identical blocks solved once).
  std::map<uint64_t, size_t> solvedBlocks;
};
} // namespace

Decomposition::Decomposition(const Graph &graph, WorkMeter &sweep,
                             int blockNodes)
    : graph(graph), n(graph.size()), blockNodes(blockNodes), sweep(sweep),
      free(n, 0), forced(n, 0), demand(n, 0), blockOf(n, -1) {
  std::vector<char> isOutput = graph.outputMask();
  // Outputs and `always` pins are kept whatever the option says, `never`
  // pins and views (saved through their base) are never kept.
  for (int id : forwardOrder(graph)) {
    const Node &node = graph.nodes[id];
    forced[id] = isOutput[id] || node.keep == KeepPolicy::Always;
    free[id] =
        !forced[id] && !node.isView() && node.keep == KeepPolicy::Default;
  }
  formBlocks();
  markDemand();
  measureBackward();
  for (size_t b = 0; b < blocks.size(); ++b)
    buildOptions(blocks[b], b + 1 == blocks.size());
}

/// Segments end at articulation points; consecutive segments merge while
/// the block has at most `blockNodes` free nodes.
void Decomposition::formBlocks() {
  std::vector<char> isAp(n, 0);
  for (int id : articulationPoints(graph))
    isAp[id] = 1;
  std::vector<int> segment(n, -1), exits;
  for (int id : forwardOrder(graph)) {
    segment[id] = exits.size();
    if (isAp[id])
      exits.push_back(id);
  }
  std::vector<std::vector<int>> members(exits.size());
  for (int id = 0; id < n; ++id)
    if (segment[id] >= 0 && segment[id] < static_cast<int>(exits.size()))
      members[segment[id]].push_back(id);
  int freeInBlock = 0;
  for (size_t s = 0; s < exits.size(); ++s) {
    int size = std::count_if(members[s].begin(), members[s].end(),
                             [&](int id) { return free[id] != 0; });
    if (blocks.empty() || freeInBlock + size > blockNodes) {
      int entry = blocks.empty() ? -1 : blocks.back().exit;
      blocks.emplace_back();
      blocks.back().entry = entry;
      freeInBlock = 0;
    }
    DpBlock &block = blocks.back();
    block.nodes.insert(block.nodes.end(), members[s].begin(), members[s].end());
    block.exit = exits[s];
    freeInBlock += size;
  }
  for (size_t b = 0; b < blocks.size(); ++b) {
    std::sort(blocks[b].nodes.begin(), blocks[b].nodes.end());
    for (int id : blocks[b].nodes)
      blockOf[id] = b;
  }
}

/// A block's value is demanded by the backward when a node outside the
/// blocks (a backward node) reads it, or a node of another block other than
/// through that block's entry, or it is an output.
void Decomposition::markDemand() {
  std::vector<char> needed = neededNodes(graph);
  for (int id = 0; id < n; ++id) {
    if (!needed[id])
      continue;
    forEachRead(graph.nodes[id], [&](int dep) {
      if (blockOf[dep] < 0)
        return;
      if (blockOf[id] < 0)
        demand[dep] = 1;
      else if (blockOf[id] != blockOf[dep] && dep != blocks[blockOf[id]].entry)
        demand[dep] = 1;
    });
  }
  for (int out : graph.outputs)
    if (blockOf[out] >= 0)
      demand[out] = 1;
}

/// backwardBytes: on the checkpoint-all schedule, the largest live bytes of
/// backward values (gradients, outputs so far) while a backward node reading
/// the block runs (a node reading no block continues the block before).
void Decomposition::measureBackward() {
  if (blocks.empty())
    return;
  Schedule schedule = checkpointAllSchedule(graph);
  Simulation sim = simulate(graph, schedule);
  const int64_t resident = graph.residentBytes();
  int64_t liveForward = 0;
  int current = static_cast<int>(blocks.size()) - 1;
  for (size_t i = 0; i < schedule.steps.size() && sim.valid(); ++i) {
    const Step &step = schedule.steps[i];
    if (blockOf[step.node] >= 0) {
      liveForward += (step.kind == Step::Kind::Compute ? 1 : -1) *
                     ownedBytes(graph, step.node);
      continue;
    }
    if (step.kind != Step::Kind::Compute)
      continue;
    int latest = -1;
    forEachRead(graph.nodes[step.node],
                [&](int dep) { latest = std::max(latest, blockOf[dep]); });
    current = latest >= 0 ? latest : current;
    DpBlock &block = blocks[current];
    block.backwardBytes = std::max(
        block.backwardBytes, sim.liveAfterStep[i] - resident - liveForward);
  }
}

LocalBlock Decomposition::localView(const DpBlock &block) const {
  LocalBlock local;
  const int k = block.nodes.size();
  local.users.resize(k);
  local.readsEntry.assign(k, 0);
  for (int i = 0; i < k; ++i) {
    int id = block.nodes[i];
    if (id == block.exit)
      local.exitIndex = i;
    forEachRead(graph.nodes[id], [&](int dep) {
      local.readsEntry[i] |= dep == block.entry;
      auto it = std::lower_bound(block.nodes.begin(), block.nodes.end(), dep);
      if (it != block.nodes.end() && *it == dep)
        local.users[it - block.nodes.begin()].push_back(i);
    });
  }
  return local;
}

/// The local model of keeping `keep` (indexed like block.nodes; forced
/// nodes set): dropped values the backward reads are recomputed, and so is
/// every dropped value a recomputed one reads. The kept nodes cut the block
/// into segments, as in the builder; a segment's recomputed values are live
/// together while its run of the backward executes (Chen's model), so the
/// work is the largest segment's. `kept` is left empty (`keptNodes`).
BlockOption Decomposition::score(const DpBlock &block, const LocalBlock &local,
                                 const std::vector<char> &keep,
                                 bool exitRecomputed) {
  BlockOption option;
  const int k = block.nodes.size();
  recomputed.assign(k, 0);
  int64_t segment = 0;
  for (int i = k - 1; i >= 0; --i) {
    int id = block.nodes[i];
    if (keep[i]) {
      option.keptBytes += ownedBytes(graph, id);
      option.workBytes = std::max(option.workBytes, segment);
      segment = 0;
      continue;
    }
    bool runs = demand[id] || (exitRecomputed && i == local.exitIndex);
    for (int user : local.users[i])
      runs |= recomputed[user] != 0;
    if (!runs)
      continue;
    recomputed[i] = 1;
    segment += ownedBytes(graph, id);
    option.recompute += graph.nodes[id].cost;
    option.needsEntry |= local.readsEntry[i] != 0;
  }
  option.workBytes = std::max(option.workBytes, segment);
  option.keepsExit = local.exitIndex >= 0 && keep[local.exitIndex];
  option.exitRecomputed = exitRecomputed && !option.keepsExit;
  return option;
}

/// Keep subsets to score (indexed like block.nodes): all of them when the
/// block has at most kExactNodes free nodes, else the global heuristic sets
/// restricted to the block and the block's own (addLocalSets).
std::vector<std::vector<char>> Decomposition::subsets(const DpBlock &block) {
  const int k = block.nodes.size();
  std::vector<int> freeIndex;
  std::vector<char> base(k, 0);
  for (int i = 0; i < k; ++i) {
    base[i] = forced[block.nodes[i]];
    if (free[block.nodes[i]])
      freeIndex.push_back(i);
  }
  std::vector<std::vector<char>> result;
  if (freeIndex.size() <= static_cast<size_t>(kExactNodes)) {
    for (uint32_t mask = 0; mask < (1u << freeIndex.size()); ++mask) {
      result.push_back(base);
      for (size_t j = 0; j < freeIndex.size(); ++j)
        result.back()[freeIndex[j]] = (mask >> j) & 1;
    }
    return result;
  }
  for (const std::vector<char> &set : globalSets()) {
    result.push_back(base);
    for (int i : freeIndex)
      result.back()[i] = set[block.nodes[i]];
  }
  addLocalSets(block, base, freeIndex, result);
  std::sort(result.begin(), result.end());
  result.erase(std::unique(result.begin(), result.end()), result.end());
  return result;
}

/// The block's own sets, beside the global ones: its matmul outputs (the
/// selective policy's choice), and the chain of prefixes of its free nodes
/// by recompute cost per byte, dearest first (from keep-none to keep-all),
/// also on top of the matmul outputs: per block, the practitioners'
/// policies and everything between them.
void Decomposition::addLocalSets(const DpBlock &block,
                                 const std::vector<char> &base,
                                 const std::vector<int> &freeIndex,
                                 std::vector<std::vector<char>> &result) {
  std::vector<char> matmuls = base;
  for (int i : freeIndex)
    matmuls[i] = isMatmulOp(graph.nodes[block.nodes[i]].op);
  std::vector<int> order = freeIndex;
  auto density = [&](int i) {
    const Node &node = graph.nodes[block.nodes[i]];
    return node.cost / static_cast<double>(std::max<int64_t>(1, node.bytes));
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](int x, int y) { return density(x) > density(y); });
  // At most kLocalPrefixes prefixes each, evenly spaced.
  const size_t step = order.size() / kLocalPrefixes + 1;
  for (const std::vector<char> &start : {base, matmuls}) {
    std::vector<char> set = start;
    result.push_back(set);
    for (size_t j = 0; j < order.size(); ++j) {
      set[order[j]] = 1;
      if ((j + 1) % step == 0 || j + 1 == order.size())
        result.push_back(set);
    }
  }
}

/// Whole-graph checkpoint sets for large blocks: keep-all, keep-none, the
/// min-cut sweep (within `sweep`) and Chen's greedy walk over a
/// geometric grid.
const std::vector<std::vector<char>> &Decomposition::globalSets() {
  if (heuristicSets)
    return *heuristicSets;
  std::vector<std::vector<char>> sets = minCutKeepSets(graph, &sweep);
  sets.push_back(std::vector<char>(n, 1));
  sets.push_back(std::vector<char>(n, 0));
  std::vector<int> fwd = forwardOrder(graph);
  double total = forwardBytes(graph);
  for (double f = 1e-3; f <= 1; f *= 1.5)
    sets.push_back(chenGreedyKeep(graph, fwd, total * f));
  heuristicSets = std::move(sets);
  return *heuristicSets;
}

/// Drops every option another one beats or ties in kept bytes, kept + work
/// bytes, recompute cost, what it leaves the next block and what it needs
/// from the previous one.
static std::vector<BlockOption> paretoFront(std::vector<BlockOption> options) {
  using Key = std::tuple<double, int64_t, int64_t, bool, bool>;
  auto key = [](const BlockOption &o) {
    return Key(o.recompute, o.keptBytes, o.keptBytes + o.workBytes,
               !o.exitAvailable(), o.needsEntry);
  };
  // Sorted by key alone (not by index as well: ties stay where std::sort
  // leaves them), through the keys, not the options, which are larger.
  std::vector<std::pair<Key, int>> sorted;
  sorted.reserve(options.size());
  for (size_t i = 0; i < options.size(); ++i)
    sorted.push_back({key(options[i]), static_cast<int>(i)});
  std::sort(sorted.begin(), sorted.end(),
            [](const auto &x, const auto &y) { return x.first < y.first; });
  std::vector<BlockOption> front;
  for (const auto &entry : sorted) {
    BlockOption &o = options[entry.second];
    // Sorted by cost first: only an earlier option can dominate `o`.
    bool dominated =
        std::any_of(front.begin(), front.end(), [&](const BlockOption &f) {
          return f.keptBytes <= o.keptBytes &&
                 f.keptBytes + f.workBytes <= o.keptBytes + o.workBytes &&
                 f.exitAvailable() >= o.exitAvailable() &&
                 f.needsEntry <= o.needsEntry;
        });
    if (!dominated)
      front.push_back(std::move(o));
  }
  return front;
}

/// Scores every subset, also with a dropped exit recomputed for the next
/// block (not for the last block, which no block follows); the options on
/// the Pareto front get their kept nodes.
void Decomposition::buildOptions(DpBlock &block, bool last) {
  const uint64_t key = optionsKey(block, last);
  auto known = solvedBlocks.find(key);
  if (known != solvedBlocks.end()) {
    copyOptions(blocks[known->second], block);
    return;
  }
  solvedBlocks.emplace(key, &block - blocks.data());
  LocalBlock local = localView(block);
  std::vector<std::vector<char>> keeps = subsets(block);
  std::vector<BlockOption> scored;
  for (size_t s = 0; s < keeps.size(); ++s) {
    auto add = [&](bool exitRecomputed) {
      scored.push_back(score(block, local, keeps[s], exitRecomputed));
      scored.back().subset = s;
    };
    add(false);
    if (!last && !scored.back().keepsExit)
      add(true);
  }
  block.options = paretoFront(std::move(scored));
  for (BlockOption &option : block.options)
    for (size_t i = 0; i < block.nodes.size(); ++i)
      if (keeps[option.subset][i] && free[block.nodes[i]])
        option.kept.push_back(block.nodes[i]);
}

/// What a block's options depend on: its subgraph (`blockHash`), which of
/// its nodes are free, forced and demanded, and whether it is the last.
uint64_t Decomposition::optionsKey(const DpBlock &block, bool last) const {
  uint64_t key = blockHash(graph, block.nodes, block.entry);
  for (int id : block.nodes)
    key = key * 0x100000001b3ULL ^
          (free[id] | forced[id] << 1 | demand[id] << 2 | last << 3);
  return key;
}

/// Gives `to` the options of the identical block `from`, their kept nodes
/// mapped by position.
void Decomposition::copyOptions(const DpBlock &from, DpBlock &to) const {
  to.options = from.options;
  for (BlockOption &option : to.options)
    for (int &id : option.kept)
      id = to.nodes[std::lower_bound(from.nodes.begin(), from.nodes.end(),
                                     id) -
                    from.nodes.begin()];
}

namespace {
/// The DP over blocks for one model budget (see the file comment). States
/// are (prefix kept level, whether the last exit is available).
class BlockDp {
public:
  BlockDp(const std::vector<DpBlock> &blocks, double modelBudget)
      : blocks(blocks), unit(modelBudget / kLevels),
        cost((kLevels + 1) * 2, kInfinity),
        from(blocks.size(), std::vector<int>((kLevels + 1) * 2, -1)) {}

  /// The option chosen per block, or nothing when no choice fits.
  std::optional<std::vector<int>> solve() {
    if (!(unit > 0))
      return std::nullopt;
    cost[0] = 0; // nothing kept; the first block has no entry to need
    for (size_t b = 0; b < blocks.size(); ++b)
      relax(b);
    auto best = std::min_element(cost.begin(), cost.end());
    if (*best == kInfinity)
      return std::nullopt;
    return backtrack(best - cost.begin());
  }

private:
  int level(int64_t bytes) const {
    return static_cast<int>(
        std::llround(std::min<double>(bytes / unit, kLevels + 1)));
  }

  void relax(size_t b) {
    std::vector<double> next(cost.size(), kInfinity);
    const DpBlock &block = blocks[b];
    for (int k = 0, e = block.options.size(); k < e; ++k) {
      const BlockOption &o = block.options[k];
      const int add = level(o.keptBytes);
      const int top =
          std::max(add, level(o.keptBytes + o.workBytes + block.backwardBytes));
      const int after = o.exitAvailable() ? 0 : 1;
      for (int m = 0; m + top <= kLevels; ++m)
        for (int s = 0; s < 2; ++s) {
          double c = cost[2 * m + s] + o.recompute;
          int to = 2 * (m + add) + after;
          if ((s == 1 && o.needsEntry) || !(c < next[to]))
            continue;
          next[to] = c;
          from[b][to] = 2 * k + s;
        }
    }
    cost.swap(next);
  }

  std::vector<int> backtrack(int state) const {
    std::vector<int> choice(blocks.size());
    for (size_t b = blocks.size(); b-- > 0;) {
      int packed = from[b][state];
      choice[b] = packed / 2;
      int m = state / 2 - level(blocks[b].options[choice[b]].keptBytes);
      state = 2 * m + packed % 2;
    }
    return choice;
  }

  const std::vector<DpBlock> &blocks;
  const double unit;
  std::vector<double> cost;
  std::vector<std::vector<int>> from;
};

/// The work units (`SolveAllowance`) of one DP over `blocks`: its inner
/// steps (an option at a level and state) are about a sixteenth of a
/// schedule step's simulation.
static int64_t dpWork(const std::vector<DpBlock> &blocks) {
  int64_t steps = 0;
  for (const DpBlock &block : blocks)
    steps += static_cast<int64_t>(block.options.size()) * (kLevels + 1) * 2;
  return steps / 16 + 1;
}

/// A verified plan: a checkpoint set, its best builder variant and what the
/// simulator measured.
struct Plan {
  std::vector<char> keep;
  CheckpointOptions variant;
  CheckpointEval eval;
};

/// The search over the model budget (see the file comment), keeping the
/// best verified plan.
class BudgetSearch {
public:
  BudgetSearch(const Graph &graph, const SolveOptions &options,
               const std::vector<DpBlock> &blocks, WorkMeter &meter)
      : graph(graph), options(options), blocks(blocks), meter(meter),
        progress(options, "hierarchical", meter.clock()),
        limit(costLimit(graph, options)), resident(graph.residentBytes()) {
    // The model's peak when everything is kept bounds every model budget.
    int64_t backward = 0;
    for (const DpBlock &block : blocks) {
      backward = std::max(backward, block.backwardBytes);
      for (int id : block.nodes)
        keepAll += ownedBytes(graph, id);
    }
    keepAll += backward;
  }

  void seedPolicies();
  void minimizeCompute();
  void minimizePeak();

  std::optional<Plan> best;
  int probes = 0;

private:
  std::optional<CheckpointEval> probe(double modelBudget);
  CheckpointEval consider(const std::vector<char> &keep);
  bool meets(const CheckpointEval &eval) const {
    return eval.peakBytes <= options.budget &&
           eval.cost <= limit + 1e-9 * std::max(1.0, std::abs(limit));
  }
  bool outOfTime() const { return meter.exhausted(); }

  const Graph &graph;
  const SolveOptions &options;
  const std::vector<DpBlock> &blocks;
  WorkMeter &meter;
  ProgressReporter progress;
  const double limit;
  const int64_t resident;
  double keepAll = 0;
};
} // namespace

/// Builds the DP's plan for `modelBudget` with every builder variant and
/// returns the best variant's simulated peak and cost (nothing when the DP
/// has no plan).
std::optional<CheckpointEval> BudgetSearch::probe(double modelBudget) {
  std::optional<std::vector<int>> choice = BlockDp(blocks, modelBudget).solve();
  meter.charge(dpWork(blocks));
  if (!choice)
    return std::nullopt;
  ++probes;
  std::vector<char> keep(graph.size(), 0);
  for (size_t b = 0; b < blocks.size(); ++b)
    for (int id : blocks[b].options[(*choice)[b]].kept)
      keep[id] = 1;
  std::optional<CheckpointEval> result = consider(keep);
  progress.report(best->eval.cost, best->eval.peakBytes, -1,
                  "probe " + std::to_string(probes) + " at model budget " +
                      std::to_string(static_cast<int64_t>(modelBudget)));
  return result;
}

/// Builds `keep` with every builder variant, keeps the best verified plan,
/// and returns the best variant's simulated peak and cost.
CheckpointEval BudgetSearch::consider(const std::vector<char> &keep) {
  std::optional<CheckpointEval> result;
  for (const CheckpointOptions &variant : builderVariants()) {
    CheckpointEval eval = evaluateCheckpoints(graph, keep, variant);
    meter.charge(eval.work);
    if (!result || isBetter(options, limit, eval.peakBytes, eval.cost,
                            result->peakBytes, result->cost))
      result = CheckpointEval{eval.peakBytes, eval.cost, {}};
    if (!best || isBetter(options, limit, eval.peakBytes, eval.cost,
                          best->eval.peakBytes, best->eval.cost))
      best = Plan{keep, variant, std::move(eval)};
  }
  return *result;
}

/// Full activation checkpointing and selective checkpointing on the
/// repeated blocks (Blocks.h), and every mix of the two
/// (policyCheckpoints), as plans: whatever the DP finds, the answer is
/// never worse than one of them that meets the constraints.
void BudgetSearch::seedPolicies() {
  std::vector<Block> repeated = findBlocks(graph);
  if (repeated.empty())
    return;
  bool ops = std::any_of(graph.nodes.begin(), graph.nodes.end(),
                         [](const Node &node) { return !node.op.empty(); });
  for (size_t first = 0; first <= repeated.size(); ++first)
    if (ops || first == repeated.size())
      consider(policyCheckpoints(graph, repeated, first));
  progress.report(best->eval.cost, best->eval.peakBytes, -1,
                  "the policies on " + std::to_string(repeated.size()) +
                      " repeated blocks");
}

/// Starts from the budget less the resident bytes; while the simulated peak
/// misses, scales the model budget by the overshoot ratio; then bisects
/// between the largest fitting and the smallest missing model budget to buy
/// back recompute.
void BudgetSearch::minimizeCompute() {
  const double room = static_cast<double>(options.budget - resident);
  if (!(room > 0))
    return;
  // `none`: the largest model budget known to have no plan.
  double x = std::min(room, keepAll), fit = -1, miss = -1, none = 0;
  for (int i = 0; i < kTightenProbes && fit < 0 && !outOfTime(); ++i) {
    std::optional<CheckpointEval> eval = probe(x);
    if (!eval) {
      // The model is stricter than the simulator here: loosen it.
      none = x;
      x = miss >= 0 ? (x + miss) / 2 : std::min(keepAll, x * 1.25);
    } else if (meets(*eval)) {
      fit = x;
    } else {
      miss = x;
      double over = static_cast<double>(eval->peakBytes - resident);
      x = std::max(x * std::clamp(room / over, 0.5, 0.98), (none + x) / 2);
    }
  }
  if (fit < 0 || fit >= keepAll)
    return;
  if (miss < 0) {
    // Everything kept may fit even where the model says it does not.
    std::optional<CheckpointEval> eval = probe(keepAll);
    if (eval && meets(*eval))
      return;
    miss = keepAll;
  }
  for (int i = 0; i < kBisectProbes && !outOfTime(); ++i) {
    double mid = (fit + miss) / 2;
    std::optional<CheckpointEval> eval = probe(mid);
    (eval && meets(*eval) ? fit : miss) = mid;
  }
}

/// Bisects the model budget for the smallest one whose plan meets the cost
/// limit (a smaller model budget means more recompute).
void BudgetSearch::minimizePeak() {
  double lo = 0, hi = keepAll;
  probe(hi);
  for (int i = 0; i < kTightenProbes + kBisectProbes && !outOfTime(); ++i) {
    double mid = (lo + hi) / 2;
    std::optional<CheckpointEval> eval = probe(mid);
    (eval && meets(*eval) ? hi : lo) = mid;
  }
}

/// Runs the model budget search for the objective of `options`.
static void searchBudget(BudgetSearch &search, const SolveOptions &options) {
  search.seedPolicies();
  if (options.objective == Objective::MinPeakUnderOverhead)
    search.minimizePeak();
  else
    search.minimizeCompute();
}

std::vector<DpBlock> remat::blockOptions(const Graph &graph, WorkMeter &meter,
                                         int blockNodes) {
  WorkMeter sweep(meter, meter.part(kSweepShare));
  std::vector<DpBlock> blocks =
      Decomposition(graph, sweep, std::max(1, blockNodes)).blocks;
  meter.charge(sweep);
  return blocks;
}

std::vector<char> remat::hierarchicalKeep(const Graph &graph,
                                          const SolveOptions &options,
                                          WorkMeter &meter) {
  std::vector<DpBlock> blocks = blockOptions(graph, meter, kExactNodes);
  if (blocks.empty())
    return {};
  BudgetSearch search(graph, options, blocks, meter);
  searchBudget(search, options);
  return search.best ? search.best->keep : std::vector<char>();
}

SolveResult remat::solveHierarchical(const Graph &graph,
                                     const SolveOptions &options) {
  WorkMeter meter(options);
  const char *name = "hierarchical";
  std::vector<DpBlock> blocks = blockOptions(graph, meter, kExactNodes);
  if (blocks.empty())
    return finishSolve(graph, options, name, checkpointAllSchedule(graph),
                       SolveStatus::Feasible, meter,
                       "no forward node to recompute");
  BudgetSearch search(graph, options, blocks, meter);
  searchBudget(search, options);
  size_t optionCount = 0;
  for (const DpBlock &block : blocks)
    optionCount += block.options.size();
  std::string summary = std::to_string(blocks.size()) + " blocks, " +
                        std::to_string(optionCount) + " options, " +
                        std::to_string(search.probes) + " probes";
  if (!search.best)
    return failSolve(name, SolveStatus::Infeasible,
                     "the block model has no plan within the budget (" +
                         summary + ")",
                     meter);
  const Plan &plan = *search.best;
  return finishSolve(graph, options, name, plan.eval.schedule,
                     SolveStatus::Feasible, meter, summary);
}
