//===- ScheduleBuilder.cpp - schedules from checkpoint sets ---------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Core/ScheduleBuilder.h"

#include "remat/Solver/Core/Ordering.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/SolverSupport.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <sstream>
#include <utility>

using namespace remat;

std::vector<int> remat::forwardOrder(const Graph &graph) {
  std::vector<char> needed = neededNodes(graph);
  std::vector<int> result;
  for (int id = 0; id < graph.size(); ++id)
    if (needed[id] && graph.nodes[id].kind == NodeKind::Forward)
      result.push_back(id);
  return result;
}

std::vector<int> remat::articulationPoints(const Graph &graph) {
  std::vector<int> fwd = forwardOrder(graph);
  std::vector<int> pos(graph.size(), -1);
  for (int i = 0, e = fwd.size(); i < e; ++i)
    pos[fwd[i]] = i;
  // crossed[i] > 0 when some forward edge u -> w has pos(u) < i < pos(w).
  std::vector<int> delta(fwd.size() + 1, 0);
  for (int w : fwd)
    forEachRead(graph.nodes[w], [&](int u) {
      if (pos[u] >= 0 && pos[w] - pos[u] > 1) {
        ++delta[pos[u] + 1];
        --delta[pos[w]];
      }
    });
  std::vector<int> result;
  int crossing = 0;
  for (int i = 0, e = fwd.size(); i < e; ++i) {
    crossing += delta[i];
    if (crossing == 0)
      result.push_back(fwd[i]);
  }
  return result;
}

bool remat::isForwardChain(const Graph &graph, std::vector<int> *chain) {
  std::vector<int> fwd = forwardOrder(graph);
  if (chain)
    *chain = fwd;
  if (fwd.empty())
    return false;
  std::vector<int> pos(graph.size(), -1);
  for (int i = 0, e = fwd.size(); i < e; ++i)
    pos[fwd[i]] = i;
  for (int i = 0, e = fwd.size(); i < e; ++i) {
    int forwardReads = 0;
    bool ok = true;
    forEachRead(graph.nodes[fwd[i]], [&](int dep) {
      if (graph.nodes[dep].isResident())
        return;
      ++forwardReads;
      ok &= i > 0 && dep == fwd[i - 1];
    });
    if (!ok || (i > 0 && forwardReads == 0))
      return false;
  }
  return true;
}

int64_t remat::ownedBytes(const Graph &graph, int id) {
  const Node &node = graph.nodes[id];
  return node.isView() || node.isResident() ? 0 : node.bytes;
}

double remat::forwardBytes(const Graph &graph) {
  double total = 0;
  for (int id : forwardOrder(graph))
    total += static_cast<double>(ownedBytes(graph, id));
  return total;
}

std::vector<char> remat::recomputableNodes(const Graph &graph) {
  const int n = graph.size();
  std::vector<char> needed = neededNodes(graph);
  // Seeds of the backward: resident values only backward nodes read (the
  // loss's cotangent, optimizer state).
  std::vector<char> forwardRead(n, 0), seed(n, 0);
  for (int id = 0; id < n; ++id)
    if (graph.nodes[id].kind == NodeKind::Forward)
      forEachRead(graph.nodes[id], [&](int dep) { forwardRead[dep] = 1; });
  for (int id = 0; id < n; ++id)
    seed[id] = graph.nodes[id].isResident() && !forwardRead[id];
  std::vector<char> isOutput = graph.outputMask();
  std::vector<char> independent(n, 0), result(n, 0);
  for (int id = 0; id < n; ++id) {
    const Node &node = graph.nodes[id];
    if (!needed[id] || node.isResident())
      continue;
    bool ok = true;
    forEachRead(node, [&](int dep) {
      ok &= !seed[dep] && (graph.nodes[dep].isResident() || independent[dep]);
    });
    independent[id] = node.kind == NodeKind::Forward || ok;
    // A backward output is the backward's own result, never hoisted.
    result[id] =
        node.kind == NodeKind::Forward || (independent[id] && !isOutput[id]);
  }
  return result;
}

/// What building a checkpoint set's compute order reads of the graph
/// alone, derived once per graph (a `CheckpointEvals` holds it for the
/// sets it evaluates).
struct remat::CheckpointBasis {
  explicit CheckpointBasis(const Graph &graph)
      : needed(neededNodes(graph)), recomputable(recomputableNodes(graph)),
        isOutput(graph.outputMask()), readsNever(graph.size(), 0) {
    const int n = graph.size();
    readStart.reserve(n + 1);
    for (int id = 0; id < n; ++id) {
      forEachRead(graph.nodes[id], [&](int dep) { reads.push_back(dep); });
      readStart.push_back(static_cast<int>(reads.size()));
    }
    findBackwardReadsNever(graph);
  }

  std::vector<char> needed, recomputable, isOutput;
  /// The backward nodes that read a `keep = never` value, directly, through
  /// a view or through other backward nodes: run in the forward pass, they
  /// would read the forward pass's copy of it (sharedNeverPin).
  std::vector<char> readsNever;
  /// What each node reads (forEachRead), flat: node id's reads are
  /// reads[readStart[id]] .. reads[readStart[id + 1] - 1].
  std::vector<int> reads, readStart{0};

private:
  void findBackwardReadsNever(const Graph &graph) {
    for (int id = 0; id < graph.size(); ++id) {
      const Node &node = graph.nodes[id];
      if (node.kind != NodeKind::Backward)
        continue;
      forEachRead(node, [&](int dep) {
        for (int v = dep; v >= 0; v = graph.nodes[v].aliasOf)
          readsNever[id] |=
              graph.nodes[v].keep == KeepPolicy::Never || readsNever[v];
      });
    }
  }
};

namespace {
/// Builds the compute order of a checkpoint set (see the header): the forward
/// phase, then the backward in runs over segments.
class CheckpointOrderBuilder {
public:
  CheckpointOrderBuilder(const Graph &graph, const CheckpointBasis &basis,
                         const std::vector<char> &keep,
                         const CheckpointOptions &options)
      : graph(graph), options(options), n(graph.size()), needed(basis.needed),
        recomputable(basis.recomputable), reads(basis.reads),
        readStart(basis.readStart), kept(n, 1), hoisted(n, 0), seg(n, -1),
        computed(n, 0), epochOf(n, kNever) {
    chooseKept(keep, basis);
    assignSegments();
  }

  std::vector<int> build() {
    runForwardPhase();
    runBackwardPhase();
    return std::move(order);
  }

private:
  static constexpr int kNever = std::numeric_limits<int>::min();

  /// Forward values are kept as `keep` says (pins and outputs win over
  /// it); backward values always are, and run in the forward pass
  /// (`hoisted`) when `keep` names a recomputable one that may run there.
  /// A backward node pinned `always` (a collective) is not hoisted for its
  /// pin: that pin forbids recomputing it, not running it late.
  void chooseKept(const std::vector<char> &keep, const CheckpointBasis &basis) {
    const std::vector<char> &isOutput = basis.isOutput;
    const std::vector<char> &readsNever = basis.readsNever;
    for (int id = 0; id < n; ++id) {
      if (!recomputable[id])
        continue;
      const Node &node = graph.nodes[id];
      bool k = id < static_cast<int>(keep.size()) && keep[id] &&
               node.keep != KeepPolicy::Never;
      if (node.kind == NodeKind::Forward)
        kept[id] = k || isOutput[id] || node.keep == KeepPolicy::Always;
      else
        hoisted[id] = k && !readsNever[id];
    }
  }

  /// Forward nodes split into segments at kept nodes in topological order;
  /// with `recomputeOnce`, a single segment.
  void assignSegments() {
    int count = 0;
    for (int id = 0; id < n; ++id) {
      if (!needed[id] || graph.nodes[id].kind != NodeKind::Forward)
        continue;
      seg[id] = options.recomputeOnce ? 0 : count;
      count += kept[id];
    }
  }

  bool available(int id) const {
    if (graph.nodes[id].isResident())
      return true;
    if (!computed[id])
      return false;
    if (kept[id] || epochOf[id] == epoch)
      return true;
    // A `keep = never` value is not carried from the forward pass into the
    // backward, even in the last segment.
    return options.reuseLastSegment && !options.recomputeOnce &&
           epochOf[id] == 0 && epoch == 1 && seg[id] == firstRunSeg &&
           graph.nodes[id].keep != KeepPolicy::Never;
  }

  /// Computes `root` and whatever it reads that is not available, depth
  /// first, in the current epoch.
  void ensure(int root) {
    if (available(root))
      return;
    stack.clear();
    stack.push_back({root, readStart[root]});
    while (!stack.empty()) {
      auto &[id, next] = stack.back();
      const int last = readStart[id + 1];
      while (next < last && available(reads[next]))
        ++next;
      if (next < last) {
        int dep = reads[next++];
        stack.push_back({dep, readStart[dep]});
        continue;
      }
      order.push_back(id);
      computed[id] = 1;
      epochOf[id] = epoch;
      stack.pop_back();
    }
  }

  /// Epoch 0: forward nodes and hoisted backward nodes, in topological
  /// order (with what the hoisted ones read).
  void runForwardPhase() {
    for (int id = 0; id < n; ++id)
      if (needed[id] &&
          (graph.nodes[id].kind == NodeKind::Forward || hoisted[id]))
        ensure(id);
  }

  /// The other needed nodes in topological order, each in the run of the
  /// deepest segment among the dropped values it reads.
  void runBackwardPhase() {
    for (int id = 0; id < n; ++id) {
      if (!needed[id] || graph.nodes[id].kind == NodeKind::Forward)
        continue;
      int s = -1;
      for (int i = readStart[id]; i < readStart[id + 1]; ++i)
        if (!kept[reads[i]])
          s = std::max(s, seg[reads[i]]);
      // Runs only move down the segments: a backward node that needs a
      // higher segment again recomputes it within the current run, so two
      // segments never alternate (and thrash).
      if (s >= 0 && (epoch == 0 || s < curSeg)) {
        ++epoch;
        curSeg = s;
        if (epoch == 1)
          firstRunSeg = s;
      }
      ensure(id);
    }
  }

  const Graph &graph;
  const CheckpointOptions &options;
  const int n;
  const std::vector<char> &needed, &recomputable;
  const std::vector<int> &reads, &readStart;
  std::vector<char> kept, hoisted;
  std::vector<int> seg;
  std::vector<char> computed;
  std::vector<int> epochOf;
  int epoch = 0, curSeg = -1, firstRunSeg = kNever;
  std::vector<int> order;
  /// Depth-first stack: a node and the index in `reads` of its next read.
  std::vector<std::pair<int, int>> stack;
};
} // namespace

std::vector<int>
remat::computeOrderFromCheckpoints(const Graph &graph,
                                   const std::vector<char> &keep,
                                   const CheckpointOptions &options) {
  return CheckpointOrderBuilder(graph, CheckpointBasis(graph), keep, options)
      .build();
}

/// scheduleFromCheckpoints with the graph's basis derived already.
static Schedule scheduleFromCheckpoints(const Graph &graph,
                                        const CheckpointBasis &basis,
                                        const std::vector<char> &keep,
                                        const CheckpointOptions &options) {
  return scheduleFromComputeOrder(
      graph,
      reorder(graph,
              CheckpointOrderBuilder(graph, basis, keep, options).build(),
              options.order));
}

Schedule remat::scheduleFromCheckpoints(const Graph &graph,
                                        const std::vector<char> &keep,
                                        const CheckpointOptions &options) {
  return ::scheduleFromCheckpoints(graph, CheckpointBasis(graph), keep,
                                   options);
}

std::vector<CheckpointOptions> remat::builderVariants() {
  CheckpointOptions once;
  once.recomputeOnce = true;
  return {CheckpointOptions(), once};
}

Schedule remat::checkpointAllSchedule(const Graph &graph) {
  std::vector<char> needed = neededNodes(graph);
  std::vector<int> order;
  for (int id = 0; id < graph.size(); ++id)
    if (needed[id])
      order.push_back(id);
  return scheduleFromComputeOrder(graph, order);
}

/// evaluateCheckpoints with the graph's basis derived already.
static CheckpointEval evaluateCheckpoints(const Graph &graph,
                                          const CheckpointBasis &basis,
                                          const std::vector<char> &keep,
                                          const CheckpointOptions &options) {
  CheckpointEval eval;
  eval.schedule = scheduleFromCheckpoints(graph, basis, keep, options);
  Simulation sim = simulate(graph, eval.schedule);
  eval.peakBytes =
      sim.valid() ? sim.peakBytes : std::numeric_limits<int64_t>::max();
  eval.cost = sim.valid() ? sim.cost : std::numeric_limits<double>::infinity();
  eval.work = orderWork(options.order, eval.schedule.steps.size());
  return eval;
}

CheckpointEval remat::evaluateCheckpoints(const Graph &graph,
                                          const std::vector<char> &keep,
                                          const CheckpointOptions &options) {
  return ::evaluateCheckpoints(graph, CheckpointBasis(graph), keep, options);
}

namespace {
/// Two 64-bit hashes of a sequence of words, each word mixed in with
/// splitmix64's finalizer under its own seed.
class WordHasher {
public:
  void add(uint64_t word) {
    low = mix(low ^ word, 0x9E3779B97F4A7C15ull);
    high = mix(high ^ word, 0xD1B54A32D192ED03ull);
  }
  void addDouble(double value) {
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    add(bits);
  }
  uint64_t low = 0x243F6A8885A308D3ull, high = 0x13198A2E03707344ull;

private:
  static uint64_t mix(uint64_t x, uint64_t seed) {
    x += seed;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
  }
};
} // namespace

/// The hash of a checkpoint set with its builder options.
static CheckpointEvals::Key keyOf(const std::vector<char> &keep,
                                  const CheckpointOptions &options) {
  WordHasher hasher;
  hasher.add(static_cast<uint64_t>(options.order) << 2 |
             uint64_t(options.reuseLastSegment) << 1 |
             uint64_t(options.recomputeOnce));
  hasher.add(keep.size());
  for (size_t i = 0; i < keep.size(); i += 8) {
    uint64_t word = 0;
    std::memcpy(&word, keep.data() + i, std::min<size_t>(8, keep.size() - i));
    hasher.add(word);
  }
  return {hasher.low, hasher.high};
}

/// The hash of what a checkpoint set's evaluation reads of `graph`.
static CheckpointEvals::Key keyOf(const Graph &graph) {
  WordHasher hasher;
  hasher.add(static_cast<uint64_t>(graph.fixedBytes));
  hasher.add(graph.nodes.size());
  for (const Node &node : graph.nodes) {
    hasher.add(static_cast<uint64_t>(node.bytes));
    hasher.addDouble(node.cost);
    hasher.add(static_cast<uint64_t>(node.kind) |
               static_cast<uint64_t>(node.keep) << 8 |
               static_cast<uint64_t>(node.gather) << 16 |
               static_cast<uint64_t>(static_cast<uint32_t>(node.aliasOf))
                   << 32);
    hasher.add(node.deps.size() << 32 | node.after.size());
    for (int dep : node.deps)
      hasher.add(static_cast<uint64_t>(dep));
    for (int before : node.after)
      hasher.add(static_cast<uint64_t>(before));
  }
  for (int out : graph.outputs)
    hasher.add(static_cast<uint64_t>(out));
  return {hasher.low, hasher.high};
}

CheckpointEvals::CheckpointEvals(const Graph &graph)
    : basis(std::make_shared<const CheckpointBasis>(graph)) {}

const CheckpointEval *
CheckpointEvals::find(const std::vector<char> &keep,
                      const CheckpointOptions &options) const {
  auto it = entries.find(keyOf(keep, options));
  return it == entries.end() ? nullptr : &it->second;
}

void CheckpointEvals::remember(const std::vector<char> &keep,
                               const CheckpointOptions &options,
                               const CheckpointEval &eval) {
  if (entries.size() >= kMaxEntries)
    entries.clear();
  CheckpointEval &entry = entries[keyOf(keep, options)];
  entry.peakBytes = eval.peakBytes;
  entry.cost = eval.cost;
  entry.work = eval.work;
  entry.built = false;
}

std::shared_ptr<CheckpointEvals> CheckpointMemo::of(const Graph &graph) {
  CheckpointEvals::Key key = keyOf(graph);
  if (auto it = tables.find(key); it != tables.end())
    return it->second;
  if (tables.size() >= kMaxGraphs)
    tables.clear();
  return tables[key] = std::make_shared<CheckpointEvals>(graph);
}

std::shared_ptr<CheckpointEvals>
remat::checkpointEvalsFor(const Graph &graph, const SolveOptions &options) {
  return options.checkpointMemo ? options.checkpointMemo->of(graph)
                                : std::make_shared<CheckpointEvals>(graph);
}

CheckpointEval remat::evaluateCheckpoints(const Graph &graph,
                                          const std::vector<char> &keep,
                                          const CheckpointOptions &options,
                                          CheckpointEvals *known) {
  if (!known)
    return evaluateCheckpoints(graph, keep, options);
  if (const CheckpointEval *eval = known->find(keep, options))
    return *eval;
  CheckpointEval eval =
      ::evaluateCheckpoints(graph, *known->basis, keep, options);
  known->remember(keep, options, eval);
  return eval;
}

void remat::buildCheckpointSchedule(const Graph &graph,
                                    const std::vector<char> &keep,
                                    const CheckpointOptions &options,
                                    CheckpointEval &eval) {
  if (!eval.built)
    eval = evaluateCheckpoints(graph, keep, options);
}

SolveResult
remat::solveFromCheckpointSets(const Graph &graph, const SolveOptions &options,
                               const std::string &solver,
                               const std::vector<std::vector<char>> &sets,
                               WorkMeter &meter, int *bestIndex) {
  double limit = costLimit(graph, options);
  int best = -1;
  CheckpointEval bestEval;
  CheckpointOptions bestVariant;
  std::vector<CheckpointOptions> variants = builderVariants();
  std::shared_ptr<CheckpointEvals> known = checkpointEvalsFor(graph, options);
  // Once the work is spent, the best evaluated so far is the answer.
  auto exhausted = [&] { return best >= 0 && meter.exhausted(); };
  for (int i = 0, e = sets.size(); i < e && !exhausted(); ++i) {
    for (const CheckpointOptions &variant : variants) {
      if (exhausted())
        break;
      CheckpointEval eval =
          evaluateCheckpoints(graph, sets[i], variant, known.get());
      meter.charge(eval.work);
      if (best < 0 || isBetter(options, limit, eval.peakBytes, eval.cost,
                               bestEval.peakBytes, bestEval.cost)) {
        best = i;
        bestEval = std::move(eval);
        bestVariant = variant;
      }
    }
  }
  if (bestIndex)
    *bestIndex = best;
  if (best < 0)
    return failSolve(solver, SolveStatus::Infeasible,
                     "no checkpoint set to evaluate", meter);
  buildCheckpointSchedule(graph, sets[best], bestVariant, bestEval);
  return finishSolve(graph, options, solver, std::move(bestEval.schedule),
                     SolveStatus::Feasible, meter);
}
