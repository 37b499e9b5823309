//===- Ordering.cpp - memory-aware orders of a compute order --------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Core/Ordering.h"

#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/SolverSupport.h"

#include <algorithm>
#include <functional>
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
  std::vector<int> current(graph.size(), -1), first(graph.size(), -1);
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
    // The next copy of a node waits for every reader of the previous one;
    // the first waits for the first copy of each node it comes after.
    if (int q = current[order[p]]; q >= 0) {
      dag.preds.items.push_back(q);
      for (int r = readerHead[q]; r >= 0; r = readerNext[r])
        dag.preds.items.push_back(readerPos[r]);
    } else {
      for (int before : node.after)
        if (first[before] >= 0)
          dag.preds.items.push_back(first[before]);
      first[order[p]] = pos;
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

/// The inverse of a relation over positions, flat: `related(p, fn)` calls
/// `fn(q)` for every q that p relates to; entry q of the result lists those
/// p in position order (counted, then filled).
template <typename Fn> static Lists inverse(int len, Fn related) {
  Lists result;
  result.start.assign(len + 1, 0);
  for (int p = 0; p < len; ++p)
    related(p, [&](int q) { ++result.start[q + 1]; });
  for (int p = 0; p < len; ++p)
    result.start[p + 1] += result.start[p];
  result.items.resize(result.start[len]);
  std::vector<int> fill(result.start.begin(), result.start.end() - 1);
  for (int p = 0; p < len; ++p)
    related(p, [&](int q) { result.items[fill[q]++] = p; });
  return result;
}

/// `lists` (one per position, of positions) inverted: entry q lists the
/// positions whose lists hold q.
static Lists invert(const Lists &lists) {
  return inverse(lists.size(), [&](int p, auto fn) {
    std::for_each(lists.begin(p), lists.end(p), fn);
  });
}

namespace {
/// How the positions of a compute order use storage: what each reads, and
/// which storages are never freed.
struct StorageUse {
  /// Per position: the distinct storages it reads.
  Lists storagesRead;
  /// Per storage position: whether an output's final copy lives in it.
  std::vector<char> pinned;
};
} // namespace

static StorageUse storageUse(const Graph &graph, const std::vector<int> &order,
                             const Instances &dag) {
  StorageUse use;
  use.pinned.assign(order.size(), 0);
  std::vector<int> last(graph.size(), -1);
  for (size_t p = 0; p < order.size(); ++p)
    last[order[p]] = static_cast<int>(p);
  for (int out : graph.outputs)
    if (out >= 0 && out < graph.size() && last[out] >= 0 &&
        dag.storage[last[out]] >= 0)
      use.pinned[dag.storage[last[out]]] = 1;
  use.storagesRead.items.reserve(dag.reads.items.size());
  for (int p = 0, e = order.size(); p < e; ++p) {
    for (const int *q = dag.reads.begin(p); q != dag.reads.end(p); ++q)
      if (dag.storage[*q] >= 0)
        use.storagesRead.items.push_back(dag.storage[*q]);
    use.storagesRead.close();
    use.storagesRead.sortUniqueLast();
  }
  return use;
}

namespace {
/// The state of list scheduling: which storages each ready position would
/// free, given how many readers each storage still waits for.
struct GreedyState {
  const Graph &graph;
  const std::vector<int> &order;
  const Instances &dag;
  /// Per storage position: readers not yet scheduled; pinned storages
  /// (`use`) are never freed.
  std::vector<int> pending;
  StorageUse use;
  /// Per storage position: the positions that read it (`use.storagesRead`
  /// inverted).
  Lists readers;

  GreedyState(const Graph &graph, const std::vector<int> &order,
              const Instances &dag)
      : graph(graph), order(order), dag(dag), pending(order.size(), 0),
        use(storageUse(graph, order, dag)) {
    for (int s : use.storagesRead.items)
      ++pending[s];
    readers = invert(use.storagesRead);
  }

  int64_t allocated(int p) const {
    const Node &node = graph.nodes[order[p]];
    return node.isView() ? 0 : node.bytes;
  }

  /// Live bytes after running `p` minus live bytes before it.
  int64_t delta(int p) const {
    int64_t result = allocated(p);
    for (const int *s = use.storagesRead.begin(p);
         s != use.storagesRead.end(p); ++s)
      if (pending[*s] == 1 && !use.pinned[*s])
        result -= graph.nodes[order[*s]].bytes;
    if (dag.storage[p] == p && pending[p] == 0 && !use.pinned[p])
      result -= allocated(p);
    return result;
  }

  /// Runs `p`. A ready position's `delta` only changes when a storage it
  /// reads is left with one reader to go (it): `changed` gets the readers
  /// of each such storage.
  void run(int p, const std::function<void(int)> &changed) {
    for (const int *s = use.storagesRead.begin(p);
         s != use.storagesRead.end(p); ++s)
      if (--pending[*s] == 1)
        std::for_each(readers.begin(*s), readers.end(*s), changed);
  }
};
} // namespace

/// List scheduling: among the ready positions, run the one with the smallest
/// change in live bytes, then the smallest allocation, then the earliest.
/// The ready positions wait in a heap keyed that way; a position whose
/// change in live bytes drops is pushed again with its new key, and the
/// entries left behind are skipped (O(len log len), not a scan of every
/// ready position per step).
static std::vector<int> memoryGreedyPositions(const Graph &graph,
                                              const std::vector<int> &order,
                                              const Instances &dag) {
  const int len = order.size();
  const Lists succs = invert(dag.preds);
  std::vector<int> waiting(len, 0);
  for (int p = 0; p < len; ++p)
    waiting[p] = dag.preds.count(p);
  GreedyState state(graph, order, dag);
  using Key = std::tuple<int64_t, int64_t, int>; // delta, allocation, position
  std::priority_queue<Key, std::vector<Key>, std::greater<Key>> ready;
  auto push = [&](int p) {
    ready.push({state.delta(p), state.allocated(p), p});
  };
  std::vector<char> done(len, 0);
  auto repush = [&](int p) {
    if (!done[p] && waiting[p] == 0)
      push(p);
  };
  for (int p = 0; p < len; ++p)
    if (waiting[p] == 0)
      push(p);
  std::vector<int> result;
  result.reserve(len);
  while (!ready.empty()) {
    auto [delta, allocation, p] = ready.top();
    ready.pop();
    if (done[p] || delta != state.delta(p))
      continue; // an entry with an outdated key
    done[p] = 1;
    state.run(p, repush);
    result.push_back(p);
    for (const int *s = succs.begin(p); s != succs.end(p); ++s)
      if (--waiting[*s] == 0)
        push(*s);
  }
  return result;
}

namespace {
/// A run order's peak: the largest live total after a position runs
/// (before its frees, as the simulator measures), and how many positions
/// reach it. Lower is better, peak first.
struct PeakProfile {
  int64_t peak = 0;
  int steps = 0;

  void add(int64_t live, int count = 1) {
    if (live > peak)
      *this = {live, 0};
    if (live == peak)
      steps += count;
  }
  bool operator<(const PeakProfile &other) const {
    return peak != other.peak ? peak < other.peak : steps < other.steps;
  }
};

/// A candidate move: the positions that run at run indices lo..hi, in
/// their new order.
struct Window {
  int lo = 0, hi = -1;
  std::vector<int> arranged;
};

/// The peak repair of `repairPeak`. A move takes one position and what it
/// depends on (or what depends on it) within reach across the first peak
/// step, so only the run indices between them change; each move is measured
/// on that window alone, against the peaks before and after it.
class PeakRepair {
public:
  PeakRepair(const Graph &graph, const std::vector<int> &order);

  std::vector<int> run(WorkMeter *meter);

private:
  void measure();
  int firstPeakIndex() const;
  bool improve();
  Window hoist(int at, int q);
  Window sink(int at, int s);
  bool mark(int from, const Lists &edges, int lo, int hi, int at);
  Window arrange(int lo, int hi, bool markedFirst) const;
  int64_t changeAt(int at, bool hoisted);
  PeakProfile evaluate(const Window &window);
  template <typename Fn> void forEachStorage(int p, Fn fn) const;

  const Graph &graph;
  const std::vector<int> &order;
  Instances dag;
  StorageUse use;
  Lists succs;
  const int len;
  /// The positions allocating or reading each storage (storage positions).
  Lists users;
  /// The run order (positions), each position's run index, the last run
  /// index using each storage (allocating it, reading it or a view of it).
  std::vector<int> seq, where, last;
  /// Live bytes after each run index: before its frees (`peakAt`) and after
  /// them (`settled`); the profile of the indices before and after each.
  std::vector<int64_t> peakAt, settled;
  std::vector<PeakProfile> upTo, from;
  /// Scratch: the moved group and its marks (`mark`), the storages seen
  /// (`changeAt`), the new last run index of each storage and whether it is
  /// freed (`evaluate`), by stamp.
  std::vector<int> group, marked, seen, newLast, freedStamp;
  int stamp = 0, seenStamp = 0;
  /// Work units (SolveAllowance) of the rounds so far: the positions
  /// measured and the run indices of the windows evaluated.
  int64_t work = 0;
};
} // namespace

/// Groups of more positions than this are not moved; the repair stops
/// after this many moves (on the bench graphs it stops by itself after at
/// most about 80).
static constexpr size_t kMaxMovedPositions = 32;
static constexpr int kMaxRepairRounds = 256;

PeakRepair::PeakRepair(const Graph &graph, const std::vector<int> &order)
    : graph(graph), order(order), dag(buildInstances(graph, order)),
      use(storageUse(graph, order, dag)), succs(invert(dag.preds)),
      len(order.size()), seq(len), where(len), last(len), peakAt(len),
      settled(len), upTo(len + 1), from(len + 1), marked(len, 0),
      seen(len, 0), newLast(len, 0), freedStamp(len, 0) {
  for (int i = 0; i < len; ++i)
    seq[i] = i;
  users = inverse(len, [&](int p, auto fn) { forEachStorage(p, fn); });
}

/// Calls `fn` on each storage position `p` allocates or reads.
template <typename Fn> void PeakRepair::forEachStorage(int p, Fn fn) const {
  if (dag.storage[p] >= 0)
    fn(dag.storage[p]);
  for (const int *s = use.storagesRead.begin(p); s != use.storagesRead.end(p);
       ++s)
    if (*s != dag.storage[p])
      fn(*s);
}

/// Fills everything derived from `seq`.
void PeakRepair::measure() {
  work += len;
  for (int i = 0; i < len; ++i) {
    where[seq[i]] = i;
    forEachStorage(seq[i], [&](int s) { last[s] = i; });
  }
  int64_t live = graph.residentBytes();
  for (int i = 0; i < len; ++i) {
    const int p = seq[i];
    if (dag.storage[p] == p)
      live += graph.nodes[order[p]].bytes;
    peakAt[i] = live;
    forEachStorage(p, [&](int s) {
      if (last[s] == i && !use.pinned[s])
        live -= graph.nodes[order[s]].bytes;
    });
    settled[i] = live;
  }
  upTo[0] = {graph.residentBytes(), 0};
  for (int i = 0; i < len; ++i) {
    upTo[i + 1] = upTo[i];
    upTo[i + 1].add(peakAt[i]);
  }
  from[len] = {};
  for (int i = len - 1; i >= 0; --i) {
    from[i] = from[i + 1];
    from[i].add(peakAt[i]);
  }
}

int PeakRepair::firstPeakIndex() const {
  for (int i = 0; i < len; ++i)
    if (peakAt[i] == upTo[len].peak)
      return i;
  return -1;
}

/// Marks `start` and what reaches it, or what it reaches, along `edges`
/// within run indices lo..hi; false when that includes the run index `at`
/// or more than kMaxMovedPositions positions.
bool PeakRepair::mark(int start, const Lists &edges, int lo, int hi, int at) {
  ++stamp;
  group.clear();
  std::vector<int> stack{start};
  marked[start] = stamp;
  while (!stack.empty()) {
    const int p = stack.back();
    stack.pop_back();
    if (where[p] == at || group.size() >= kMaxMovedPositions)
      return false;
    group.push_back(p);
    for (const int *r = edges.begin(p); r != edges.end(p); ++r)
      if (where[*r] >= lo && where[*r] <= hi && marked[*r] != stamp) {
        marked[*r] = stamp;
        stack.push_back(*r);
      }
  }
  return true;
}

/// The positions at run indices lo..hi, the marked ones first or last, each
/// part in its order.
Window PeakRepair::arrange(int lo, int hi, bool markedFirst) const {
  Window window{lo, hi, {}};
  window.arranged.reserve(hi - lo + 1);
  for (bool first : {true, false})
    for (int i = lo; i <= hi; ++i)
      if ((marked[seq[i]] == stamp) == (first == markedFirst))
        window.arranged.push_back(seq[i]);
  return window;
}

/// Position `q`, which runs after run index `at`, moved to just before it
/// with what it needs that runs in between, so that the storages it reads
/// last are freed before `at`; an empty window when that moves `at`.
Window PeakRepair::hoist(int at, int q) {
  if (!mark(q, dag.preds, at, where[q], at) || changeAt(at, true) >= 0)
    return {};
  return arrange(at, where[q], /*markedFirst=*/true);
}

/// Position `s`, which runs before run index `at`, moved to just after it
/// with what reads it in between, so that its storage is allocated after
/// `at`; an empty window when that moves `at`.
Window PeakRepair::sink(int at, int s) {
  if (!mark(s, succs, where[s], at, at) || changeAt(at, false) >= 0)
    return {};
  return arrange(where[s], at, /*markedFirst=*/false);
}

/// How the live bytes while the position at run index `at` runs change
/// when the marked group runs before it (`hoisted`) or after it: only the
/// storages the group allocates or reads change, each live there when
/// allocated before it and used at it or after it.
int64_t PeakRepair::changeAt(int at, bool hoisted) {
  auto moved = [&](int p) { return marked[p] == stamp; };
  ++seenStamp;
  int64_t change = 0;
  for (int g : group)
    forEachStorage(g, [&](int t) {
      if (seen[t] == seenStamp)
        return;
      seen[t] = seenStamp;
      bool was = where[t] <= at && (use.pinned[t] || last[t] >= at);
      bool allocated = hoisted ? moved(t) || where[t] <= at
                               : !moved(t) && where[t] <= at;
      bool used = use.pinned[t];
      for (const int *u = users.begin(t); !used && u != users.end(t); ++u)
        used = hoisted ? !moved(*u) && where[*u] >= at
                       : moved(*u) || where[*u] >= at;
      int64_t bytes = graph.nodes[order[t]].bytes;
      change += (allocated && used ? bytes : 0) - (was ? bytes : 0);
    });
  return change;
}

/// The profile of `seq` with the window's arrangement: the indices outside
/// it are unchanged; inside, a storage whose last use was in the window is
/// freed after its last use there.
PeakProfile PeakRepair::evaluate(const Window &window) {
  const int lo = window.lo, hi = window.hi;
  work += hi - lo + 1;
  ++stamp;
  for (int j = 0; j <= hi - lo; ++j)
    forEachStorage(window.arranged[j], [&](int s) {
      if (last[s] >= lo && last[s] <= hi)
        newLast[s] = lo + j;
    });
  PeakProfile profile = upTo[lo];
  int64_t live = lo > 0 ? settled[lo - 1] : graph.residentBytes();
  for (int j = 0; j <= hi - lo; ++j) {
    const int p = window.arranged[j];
    if (dag.storage[p] == p)
      live += graph.nodes[order[p]].bytes;
    profile.add(live);
    forEachStorage(p, [&](int s) {
      if (last[s] >= lo && last[s] <= hi && newLast[s] == lo + j &&
          !use.pinned[s] && freedStamp[s] != stamp) {
        freedStamp[s] = stamp;
        live -= graph.nodes[order[s]].bytes;
      }
    });
  }
  profile.add(from[hi + 1].peak, from[hi + 1].steps);
  return profile;
}

/// One round: at the first peak step, for every storage live there, its
/// allocation sunk past the step and its last reader hoisted before it;
/// takes the move that lowers (peak, steps at the peak) most.
bool PeakRepair::improve() {
  const int at = firstPeakIndex();
  if (at < 0)
    return false;
  std::vector<int> live;
  for (int i = 0; i <= at; ++i) {
    const int s = seq[i];
    if (dag.storage[s] == s && (use.pinned[s] || last[s] >= at))
      live.push_back(s);
  }
  PeakProfile best = upTo[len];
  Window chosen;
  auto consider = [&](Window window) {
    if (window.arranged.empty())
      return;
    if (PeakProfile profile = evaluate(window); profile < best) {
      best = profile;
      chosen = std::move(window);
    }
  };
  for (int s : live) {
    if (where[s] < at)
      consider(sink(at, s));
    if (last[s] > at && !use.pinned[s])
      consider(hoist(at, seq[last[s]]));
  }
  if (chosen.arranged.empty())
    return false;
  std::copy(chosen.arranged.begin(), chosen.arranged.end(),
            seq.begin() + chosen.lo);
  measure();
  return true;
}

std::vector<int> PeakRepair::run(WorkMeter *meter) {
  measure();
  for (int round = 0; round < kMaxRepairRounds; ++round) {
    if (meter) {
      meter->charge(work);
      work = 0;
      if (meter->exhausted())
        break;
    }
    if (!improve())
      break;
  }
  if (meter)
    meter->charge(work);
  std::vector<int> result;
  result.reserve(len);
  for (int p : seq)
    result.push_back(order[p]);
  return result;
}

int64_t remat::orderWork(OrderPolicy policy, size_t steps) {
  int64_t perStep = 1;
  switch (policy) {
  case OrderPolicy::Given:
    break;
  case OrderPolicy::OnDemand:
  case OrderPolicy::OnDemandLatestFirst:
  case OrderPolicy::OnDemandLargestLast:
    perStep = 2;
    break;
  case OrderPolicy::OnDemandWorkingSet:
  case OrderPolicy::MemoryGreedy:
    perStep = 3;
    break;
  case OrderPolicy::Best:
    perStep = 10;
    break;
  }
  return perStep * static_cast<int64_t>(steps);
}

std::vector<int> remat::repairPeak(const Graph &graph,
                                   const std::vector<int> &order,
                                   WorkMeter *meter) {
  return PeakRepair(graph, order).run(meter);
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

const char *remat::getOrderPolicyName(OrderPolicy policy) {
  switch (policy) {
  case OrderPolicy::Given:
    return "given";
  case OrderPolicy::OnDemand:
    return "on-demand";
  case OrderPolicy::OnDemandLatestFirst:
    return "on-demand-latest-first";
  case OrderPolicy::OnDemandLargestLast:
    return "on-demand-largest-last";
  case OrderPolicy::OnDemandWorkingSet:
    return "on-demand-working-set";
  case OrderPolicy::MemoryGreedy:
    return "memory-greedy";
  case OrderPolicy::Best:
    return "best";
  }
  return "unknown";
}
