//===- Offload.cpp - keep, recompute or offload, planned jointly ----------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Search/Offload.h"

#include "remat/Solver/Algorithms/Solvers.h"
#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/SolverSupport.h"
#include "remat/Solver/Core/WorkMeter.h"

#include <algorithm>
#include <chrono>
#include <limits>

using namespace remat;

/// Rungs of the joint ladder above its bottom (recompute only); the top is
/// the keep-all order (offload only).
static constexpr int kLadderRungs = 8;
/// The effort of each solve between the ladder's bottom and top, as a part
/// of the request's (the bottom's solve takes all of it, so that the joint
/// plan is never dearer than the recompute-only one).
static constexpr double kRungEffort = 0.25;
/// The effort of the local search with offloading that ends the joint
/// search, as a part of the request's.
static constexpr double kClimbEffort = 0.25;
/// The smallest-budget search: its bisection probes at most, the effort of
/// each as a part of the request's, and the whole plans asked at the
/// smallest budgets the probes met before the keep-all peak.
static constexpr int kSearchProbes = 10;
static constexpr double kProbeEffort = 0.25;
static constexpr int kConfirmations = 3;
/// How many times one prefetch may move earlier (halving its distance to
/// its offload each time).
static constexpr int kAdvanceMoves = 4;

const char *remat::toString(OffloadChoice choice) {
  switch (choice) {
  case OffloadChoice::Joint:
    return "joint";
  case OffloadChoice::OffloadOnly:
    return "offload";
  case OffloadChoice::RecomputeOnly:
    return "recompute";
  }
  return "?";
}

namespace {
/// A stretch of one storage's life in a schedule between two reads, in
/// which no step reads it or a view of it: its owner can be offloaded after
/// step `after` and prefetched before step `before` (indices of the
/// schedule's steps). The views of it live then (`views`, in compute order)
/// are freed before the offload and computed again right before step
/// `before` (a view costs nothing, and computing it right after the
/// prefetch would wait for the copy there).
struct Gap {
  int node = -1;
  size_t after = 0, before = 0;
  int64_t bytes = 0;
  std::vector<int> views;
};

/// A gap taken: the prefetch goes before step `prefetchAt` (after <
/// prefetchAt <= before).
struct Transfer {
  size_t gap = 0;
  size_t prefetchAt = 0;
};

/// One storage a schedule allocated, while any value sharing it is live:
/// its owner (while live), its live views in compute order, and the last
/// step that read any of them.
struct Storage {
  int owner = -1;
  bool ownerLive = true;
  size_t lastRead = 0;
  std::vector<int> views;
};
} // namespace

/// `schedule` with every value sharing a storage freed with the last of
/// them: a view's free or its owner's waits until the storage's last
/// reference goes (the bytes are held until then anyway), so that the owner
/// is live, and can be offloaded, as long as its storage is. `schedule`
/// itself when that changes anything else (a value computed again while
/// still held).
static Schedule holdSharersTogether(const Graph &graph,
                                    const Schedule &schedule) {
  const size_t n = schedule.steps.size();
  std::vector<int> storageOf(graph.size(), -1), refs;
  std::vector<size_t> lastFree;
  for (size_t i = 0; i < n; ++i) {
    const Step &step = schedule.steps[i];
    int id = step.node;
    if (step.kind == Step::Kind::Compute) {
      const Node &node = graph.nodes[id];
      if (node.isView() && storageOf[node.aliasOf] >= 0) {
        storageOf[id] = storageOf[node.aliasOf];
        ++refs[storageOf[id]];
      } else if (!node.isView()) {
        storageOf[id] = static_cast<int>(refs.size());
        refs.push_back(1);
        lastFree.push_back(n);
      }
    } else if (step.kind == Step::Kind::Free && storageOf[id] >= 0) {
      if (--refs[storageOf[id]] == 0)
        lastFree[storageOf[id]] = i;
    }
  }
  // Replays with the frees held back to their storage's last one.
  Schedule held;
  std::vector<std::vector<int>> waiting(refs.size());
  std::vector<int> instance(graph.size(), -1);
  int instances = 0;
  for (size_t i = 0; i < n; ++i) {
    const Step &step = schedule.steps[i];
    int id = step.node;
    if (step.kind == Step::Kind::Compute) {
      const Node &node = graph.nodes[id];
      instance[id] = node.isView() && instance[node.aliasOf] >= 0
                         ? instance[node.aliasOf]
                         : (node.isView() ? -1 : instances++);
    }
    int s = instance[id];
    if (step.kind != Step::Kind::Free || s < 0) {
      held.steps.push_back(step);
      continue;
    }
    if (lastFree[s] != i) {
      waiting[s].push_back(id);
      continue;
    }
    for (int member : waiting[s])
      held.steps.push_back(Step::free(member));
    held.steps.push_back(step);
  }
  Simulation before = simulate(graph, schedule);
  Simulation after = simulate(graph, held);
  if (!after.valid() || after.peakBytes != before.peakBytes)
    return schedule;
  return held;
}

/// The gap of `storage` from step `after` to step `before`, when its owner
/// is live to carry it.
static std::optional<Gap> makeGap(const Graph &graph, const Storage &storage,
                                  size_t after, size_t before) {
  if (!storage.ownerLive)
    return std::nullopt;
  return Gap{storage.owner, after, before, graph.nodes[storage.owner].bytes,
             storage.views};
}

/// The gaps of `schedule`'s storages (Gap) of at least one compute step.
static std::vector<Gap> findGaps(const Graph &graph, const Schedule &schedule) {
  std::vector<Gap> gaps;
  std::vector<Storage> storages;
  std::vector<int> storageOf(graph.size(), -1);
  auto read = [&](int node, size_t i) {
    if (storageOf[node] < 0)
      return;
    Storage &storage = storages[storageOf[node]];
    size_t after = storage.lastRead;
    while (after + 1 < i && schedule.steps[after + 1].kind == Step::Kind::Free)
      ++after;
    if (i - after > 1)
      if (std::optional<Gap> gap = makeGap(graph, storage, after, i))
        gaps.push_back(std::move(*gap));
    storage.lastRead = i;
  };
  for (size_t i = 0; i < schedule.steps.size(); ++i) {
    const Step &step = schedule.steps[i];
    const Node &node = graph.nodes[step.node];
    int id = step.node;
    if (step.kind == Step::Kind::Free) {
      if (int s = storageOf[id]; s >= 0 && storages[s].owner == id)
        storages[s].ownerLive = false;
      else if (s >= 0)
        storages[s].views.erase(
            std::remove(storages[s].views.begin(), storages[s].views.end(), id),
            storages[s].views.end());
      storageOf[id] = -1;
      continue;
    }
    forEachRead(node, [&](int dep) { read(dep, i); });
    if (node.isView() && storageOf[node.aliasOf] >= 0) {
      storageOf[id] = storageOf[node.aliasOf];
      storages[storageOf[id]].views.push_back(id);
    } else if (!node.isView() && node.bytes > 0) {
      storageOf[id] = static_cast<int>(storages.size());
      storages.push_back({id, true, i, {}});
    }
  }
  return gaps;
}

namespace {
/// The greedy of `addOffloads` on one base schedule.
class OffloadSearch {
public:
  OffloadSearch(const Graph &graph, const Schedule &schedule,
                const HostLink &link)
      : graph(graph), base(holdSharersTogether(graph, schedule)), link(link),
        gaps(findGaps(graph, base)), taken(gaps.size(), 0),
        tried(gaps.size(), 0) {}

  OffloadedPlan run(int64_t budget, const std::vector<int> &first);

private:
  Schedule merge(const std::vector<Transfer> &list,
                 std::vector<size_t> &baseAt) const;
  bool simulateWith(const std::vector<Transfer> &list,
                    int64_t fasterWithin = -1, int64_t peakWithin = -1);
  void takeFirst(const std::vector<int> &nodes);
  std::vector<size_t> latestPrefetches() const;
  void queuePrefetches(int64_t budget);
  void advancePrefetches(int64_t budget);
  size_t peakBaseStep() const;
  std::optional<Transfer> choose(size_t peak) const;
  bool better(const Simulation &next) const;

  const Graph &graph;
  const Schedule base;
  const HostLink &link;
  std::vector<Gap> gaps;
  std::vector<char> taken, tried;
  std::vector<Transfer> transfers;
  /// The current plan: its schedule, simulation, and where each base step
  /// is in it.
  Schedule schedule;
  Simulation sim;
  std::vector<size_t> baseAt;
};
} // namespace

/// The base schedule with `list`'s copies: each prefetch right before its
/// step, each offload right after its gap's first step, the gap's views
/// computed again right before its last.
Schedule OffloadSearch::merge(const std::vector<Transfer> &list,
                              std::vector<size_t> &at) const {
  const size_t n = base.steps.size();
  std::vector<std::vector<Step>> before(n), after(n);
  for (const Transfer &t : list) {
    const Gap &gap = gaps[t.gap];
    for (int view : gap.views)
      after[gap.after].push_back(Step::free(view));
    after[gap.after].push_back(Step::offload(gap.node));
    before[t.prefetchAt].push_back(Step::prefetch(gap.node));
    for (int view : gap.views)
      before[gap.before].push_back(Step::compute(view));
  }
  Schedule merged;
  merged.steps.reserve(n + 2 * list.size());
  at.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    merged.steps.insert(merged.steps.end(), before[i].begin(), before[i].end());
    at[i] = merged.steps.size();
    merged.steps.push_back(base.steps[i]);
    merged.steps.insert(merged.steps.end(), after[i].begin(), after[i].end());
  }
  return merged;
}

/// Simulates the base with `list`; true (and it becomes the current plan)
/// when it is valid, within the host budget and better than the current:
/// of a lower peak (`better`), or with `fasterWithin` >= 0, faster and of a
/// peak within it, or with `peakWithin` >= 0, of a peak within that.
bool OffloadSearch::simulateWith(const std::vector<Transfer> &list,
                                 int64_t fasterWithin, int64_t peakWithin) {
  std::vector<size_t> at;
  Schedule next = merge(list, at);
  Simulation nextSim = simulate(graph, next, nullptr, &link);
  if (!nextSim.valid() || nextSim.hostPeakBytes > link.hostBudget)
    return false;
  bool accepted = schedule.steps.empty() || better(nextSim);
  if (fasterWithin >= 0)
    accepted = nextSim.time < sim.time && nextSim.peakBytes <= fasterWithin;
  else if (peakWithin >= 0)
    accepted = nextSim.peakBytes <= peakWithin;
  if (!accepted)
    return false;
  schedule = std::move(next);
  sim = std::move(nextSim);
  baseAt = std::move(at);
  return true;
}

/// A lower peak, or the same peak at fewer steps.
bool OffloadSearch::better(const Simulation &next) const {
  auto atPeak = [](const Simulation &s) {
    return std::count(s.liveAfterStep.begin(), s.liveAfterStep.end(),
                      s.peakBytes);
  };
  return next.peakBytes < sim.peakBytes ||
         (next.peakBytes == sim.peakBytes && atPeak(next) < atPeak(sim));
}

/// The base step at (or right after, for a prefetch) the current plan's
/// first step at its peak.
size_t OffloadSearch::peakBaseStep() const {
  size_t m = std::find(sim.liveAfterStep.begin(), sim.liveAfterStep.end(),
                       sim.peakBytes) -
             sim.liveAfterStep.begin();
  return std::lower_bound(baseAt.begin(), baseAt.end(), m) - baseAt.begin();
}

/// The gap to take at base step `peak`: of the values idle across it whose
/// offload is done by then (without waiting for other copies), the one
/// whose prefetch stalls least, the largest among those; its prefetch as
/// late as still hides it.
std::optional<Transfer> OffloadSearch::choose(size_t peak) const {
  auto startOf = [&](size_t i) { return sim.startOfStep[baseAt[i]]; };
  std::optional<Transfer> best;
  double bestStall = 0;
  int64_t bestBytes = 0;
  for (size_t g = 0; g < gaps.size(); ++g) {
    const Gap &gap = gaps[g];
    if (taken[g] || tried[g] || gap.after >= peak || gap.before <= peak)
      continue;
    double copy = link.copyCost(gap.bytes);
    if (startOf(gap.after + 1) + copy > startOf(peak))
      continue;
    // The latest step q in (peak, before] at least `copy` before `before`.
    double latest = startOf(gap.before) - copy;
    size_t q = peak + 1;
    for (size_t lo = peak + 1, hi = gap.before; lo <= hi;) {
      size_t mid = lo + (hi - lo) / 2;
      if (startOf(mid) <= latest) {
        q = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1; // mid >= lo > peak >= 0
      }
    }
    double stall = std::max(0.0, startOf(q) - latest);
    if (!best || stall < bestStall ||
        (stall == bestStall && gap.bytes > bestBytes)) {
      best = Transfer{g, q};
      bestStall = stall;
      bestBytes = gap.bytes;
    }
  }
  return best;
}

/// Where each transfer's prefetch goes when the copies back queue on one
/// stream and each must end by its read, on the clock of the compute alone:
/// latest read first, each copy ending by its read and by the start of the
/// copy issued after it, and issued at the latest step that leaves it that
/// time (as late as possible on one machine); no earlier than the step
/// after its offload.
std::vector<size_t> OffloadSearch::latestPrefetches() const {
  std::vector<double> clock(base.steps.size() + 1, 0);
  for (size_t i = 0; i < base.steps.size(); ++i) {
    const Step &step = base.steps[i];
    clock[i + 1] =
        clock[i] +
        (step.kind == Step::Kind::Compute ? graph.nodes[step.node].cost : 0);
  }
  std::vector<size_t> order(transfers.size());
  for (size_t t = 0; t < order.size(); ++t)
    order[t] = t;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return gaps[transfers[a].gap].before > gaps[transfers[b].gap].before;
  });
  std::vector<size_t> at(transfers.size());
  double next = std::numeric_limits<double>::infinity();
  for (size_t t : order) {
    const Gap &gap = gaps[transfers[t].gap];
    next = std::min(clock[gap.before], next) - link.copyCost(gap.bytes);
    auto first = clock.begin() + gap.after + 1;
    auto last = clock.begin() + gap.before + 1;
    size_t q = std::upper_bound(first, last, next) - clock.begin();
    at[t] = std::max(gap.after + 1, q - 1);
  }
  return at;
}

/// Places the prefetches as `latestPrefetches` does, all at once, or else
/// one at a time, each move kept where it shortens the
/// predicted time within `budget`: the greedy places each prefetch for its
/// copy alone, and copies queue behind each other.
void OffloadSearch::queuePrefetches(int64_t budget) {
  std::vector<size_t> at = latestPrefetches();
  std::vector<Transfer> all = transfers;
  for (size_t t = 0; t < all.size(); ++t)
    all[t].prefetchAt = at[t];
  // Copies issued at one step go in the order of their reads.
  std::stable_sort(all.begin(), all.end(),
                   [&](const Transfer &a, const Transfer &b) {
                     return std::make_pair(a.prefetchAt, gaps[a.gap].before) <
                            std::make_pair(b.prefetchAt, gaps[b.gap].before);
                   });
  if (simulateWith(all, budget)) {
    transfers = std::move(all);
    return;
  }
  for (size_t t = transfers.size(); t-- > 0 && sim.stall > 0;) {
    if (transfers[t].prefetchAt == at[t])
      continue;
    std::vector<Transfer> next = transfers;
    next[t].prefetchAt = at[t];
    if (simulateWith(next, budget))
      transfers = std::move(next);
  }
}

/// Moves prefetches earlier where that shortens the predicted time within
/// `budget`: each, in order, halfway back towards its offload, while that
/// helps (the greedy places them as late as hides each copy alone, and
/// copies queue behind each other).
void OffloadSearch::advancePrefetches(int64_t budget) {
  for (size_t t = 0; t < transfers.size() && sim.stall > 0; ++t) {
    for (int move = 0; move < kAdvanceMoves; ++move) {
      size_t earliest = gaps[transfers[t].gap].after + 1;
      size_t at = transfers[t].prefetchAt;
      if (at <= earliest)
        break;
      std::vector<Transfer> next = transfers;
      next[t].prefetchAt = at - (at - earliest + 1) / 2;
      if (!simulateWith(next, budget))
        break;
      transfers = std::move(next);
    }
  }
}

/// Offloads `nodes` across the longest gap of each (a value kept from the
/// forward pass for the backward), their prefetches placed for the queue
/// (`latestPrefetches`), kept when the peak is no higher.
void OffloadSearch::takeFirst(const std::vector<int> &nodes) {
  std::vector<Transfer> list;
  for (int node : nodes) {
    std::optional<size_t> longest;
    for (size_t g = 0; g < gaps.size(); ++g)
      if (gaps[g].node == node &&
          (!longest || gaps[g].before - gaps[g].after >
                           gaps[*longest].before - gaps[*longest].after))
        longest = g;
    if (longest)
      list.push_back(Transfer{*longest, gaps[*longest].before});
  }
  if (list.empty())
    return;
  transfers = std::move(list);
  std::vector<size_t> at = latestPrefetches();
  for (size_t t = 0; t < transfers.size(); ++t)
    transfers[t].prefetchAt = at[t];
  if (!simulateWith(transfers, -1, sim.peakBytes)) {
    transfers.clear();
    return;
  }
  for (const Transfer &t : transfers)
    taken[t.gap] = 1;
}

OffloadedPlan OffloadSearch::run(int64_t budget,
                                 const std::vector<int> &first) {
  if (!simulateWith({})) {
    OffloadedPlan invalid;
    invalid.result.status = SolveStatus::Infeasible;
    invalid.sim = simulate(graph, base, nullptr, &link);
    invalid.result.message = invalid.sim.error;
    return invalid;
  }
  takeFirst(first);
  for (size_t round = 0; round <= gaps.size() && sim.peakBytes > budget;
       ++round) {
    std::optional<Transfer> pick = choose(peakBaseStep());
    if (!pick)
      break;
    std::vector<Transfer> next = transfers;
    next.push_back(*pick);
    if (simulateWith(next)) {
      transfers = std::move(next);
      taken[pick->gap] = 1;
    } else {
      tried[pick->gap] = 1;
    }
  }
  if (sim.peakBytes <= budget && sim.stall > 0)
    queuePrefetches(budget);
  if (sim.peakBytes <= budget)
    advancePrefetches(budget);
  OffloadedPlan plan;
  plan.result.status = sim.valid() && sim.peakBytes <= budget
                           ? SolveStatus::Feasible
                           : SolveStatus::Infeasible;
  plan.result.schedule = std::move(schedule);
  plan.result.peakBytes = sim.peakBytes;
  plan.result.cost = sim.cost;
  plan.sim = std::move(sim);
  return plan;
}

OffloadedPlan remat::addOffloads(const Graph &graph, const Schedule &schedule,
                                 const HostLink &link, int64_t budget,
                                 const std::vector<int> &first) {
  OffloadedPlan plan = OffloadSearch(graph, schedule, link).run(budget, first);
  if (plan.sim.copies == 0)
    return plan;
  plan.result.schedule = placeOffloadWaits(graph, plan.result.schedule, link);
  plan.sim = simulate(graph, plan.result.schedule, nullptr, &link);
  plan.result.peakBytes = plan.sim.peakBytes;
  return plan;
}

Schedule remat::placeOffloadWaits(const Graph &graph, const Schedule &schedule,
                                  const HostLink &link) {
  const std::vector<Step> &steps = schedule.steps;
  auto isKind = [](Step::Kind kind) {
    return [kind](const Step &step) { return step.kind == kind; };
  };
  if (std::any_of(steps.begin(), steps.end(), isKind(Step::Kind::Wait)))
    return schedule;
  Simulation sim = simulate(graph, schedule, nullptr, &link);
  if (!sim.valid() || sim.offloadEnds.empty())
    return schedule;
  // waitsBefore[i]: the nodes whose waits go right before step i.
  std::vector<std::vector<int>> waitsBefore(steps.size() + 1);
  size_t ordinal = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].kind != Step::Kind::Offload)
      continue;
    size_t at = sim.offloadEnds[ordinal++];
    while (at > i + 1 && steps[at - 1].kind == Step::Kind::Prefetch)
      --at;
    waitsBefore[at].push_back(steps[i].node);
  }
  Schedule waited;
  waited.steps.reserve(steps.size() + ordinal);
  for (size_t i = 0; i <= steps.size(); ++i) {
    for (int node : waitsBefore[i])
      waited.steps.push_back(Step::wait(node));
    if (i < steps.size())
      waited.steps.push_back(steps[i]);
  }
  return waited;
}

/// The recompute-only plan at `budget` brought down to `options.budget` by
/// offloading; infeasible when the solver finds none or offloading cannot.
static OffloadedPlan planRung(const Graph &graph, const SolverInfo &solver,
                              SolveOptions options, int64_t budget,
                              const HostLink &link) {
  int64_t deviceBudget = options.budget;
  options.budget = budget;
  SolveResult solved = solver.solve(graph, options);
  OffloadedPlan plan;
  if (!solved.feasible()) {
    plan.result = std::move(solved);
    return plan;
  }
  plan = addOffloads(graph, solved.schedule, link, deviceBudget);
  plan.result.work = solved.work;
  plan.result.stoppedByTimeLimit = solved.stoppedByTimeLimit;
  return plan;
}

/// Whether `a` is the better plan: feasible, then faster, then smaller; of
/// two infeasible ones, the one with a schedule of the smaller peak (a plan
/// that does not simulate has none: addOffloads).
static bool isBetterPlan(const OffloadedPlan &a, const OffloadedPlan &b) {
  if (a.result.feasible() != b.result.feasible())
    return a.result.feasible();
  if (!a.result.feasible()) {
    bool aHas = !a.result.schedule.steps.empty();
    bool bHas = !b.result.schedule.steps.empty();
    if (aHas != bHas)
      return aHas;
    return a.result.peakBytes < b.result.peakBytes;
  }
  if (a.sim.time != b.sim.time)
    return a.sim.time < b.sim.time;
  return a.result.peakBytes < b.result.peakBytes;
}

/// The solver's recompute-only schedules at the ladder's rungs strictly
/// between `low` and `top`, at a part of the effort and without the last
/// resort; their work added to `work`.
static std::vector<Schedule> solveRungs(const Graph &graph,
                                        const SolverInfo &solver,
                                        SolveOptions options, int64_t low,
                                        int64_t top, int64_t &work) {
  std::vector<Schedule> rungs;
  options.effort *= kRungEffort;
  options.lastResort = false;
  for (int k = 1; k < kLadderRungs && top > low; ++k) {
    options.budget = low + (top - low) / kLadderRungs * k;
    SolveResult solved = solver.solve(graph, options);
    work += solved.work;
    if (solved.feasible())
      rungs.push_back(std::move(solved.schedule));
  }
  return rungs;
}

/// `best`, or the better plan of `schedules` brought down to `budget` by
/// offloading.
static OffloadedPlan bringDown(const Graph &graph,
                               const std::vector<Schedule> &schedules,
                               const HostLink &link, int64_t budget,
                               OffloadedPlan best) {
  for (const Schedule &schedule : schedules) {
    OffloadedPlan plan = addOffloads(graph, schedule, link, budget);
    if (isBetterPlan(plan, best))
      best = std::move(plan);
  }
  return best;
}

/// A judge for the offloading searches (Solvers.h): each plan brought down
/// to `budget` by `addOffloads` with the values it offloads first, the
/// better kept in `best`.
static OffloadJudge keepingBest(const Graph &graph, const HostLink &link,
                                int64_t budget, OffloadedPlan &best) {
  return [&graph, &link, budget, &best](const Schedule &schedule,
                                        const std::vector<int> &offloaded) {
    OffloadedPlan plan = addOffloads(graph, schedule, link, budget, offloaded);
    OffloadVerdict verdict{std::numeric_limits<int64_t>::max(), plan.sim.time,
                           static_cast<int64_t>(schedule.steps.size()) *
                               (plan.sim.copies + 1),
                           offloadedNodes(plan.result.schedule)};
    if (plan.sim.valid())
      verdict.peak = plan.sim.peakBytes;
    if (isBetterPlan(plan, best))
      best = std::move(plan);
    return verdict;
  };
}

OffloadedPlan remat::planOnChain(const Graph &graph,
                                 const SolveOptions &options,
                                 const HostLink &link) {
  OffloadedPlan best;
  best.result.work = searchRotorOffloads(
      graph, options, link, keepingBest(graph, link, options.budget, best));
  return best;
}

/// `best` improved by local search with offloading from its schedule
/// (`searchLocalOffloads`), at a part of the effort; its work added.
static OffloadedPlan climbJointly(const Graph &graph, SolveOptions options,
                                  const HostLink &link, OffloadedPlan best) {
  if (best.sim.copies == 0)
    return best;
  options.effort *= kClimbEffort;
  Schedule start = best.result.schedule;
  int64_t work = best.result.work;
  work += searchLocalOffloads(graph, options, start,
                              keepingBest(graph, link, options.budget, best));
  best.result.work = work;
  return best;
}

/// The plans of `request.choice` (Offload.h) at `options.budget`, the best
/// of them: the solver's plan at the budget, without the last resort,
/// `rungs` (for Joint; the keep-all order last) brought down to it, and the
/// chain DP's plans with offloading (`planOnChain`); the
/// last resort (auto's MILP) only when none plans, since offloading often
/// meets a budget below the recompute-only plans'.
static OffloadedPlan searchLadder(const Graph &graph, const SolverInfo &solver,
                                  const SolveOptions &options,
                                  const OffloadRequest &request,
                                  const std::vector<Schedule> &rungs) {
  const HostLink &link = request.link;
  if (request.choice == OffloadChoice::OffloadOnly)
    return addOffloads(graph, rungs.back(), link, options.budget);
  if (request.choice == OffloadChoice::RecomputeOnly)
    return planRung(graph, solver, options, options.budget, link);
  SolveOptions bottom = options;
  bottom.lastResort = false;
  OffloadedPlan best = planRung(graph, solver, bottom, options.budget, link);
  int64_t work = best.result.work;
  best = bringDown(graph, rungs, link, options.budget, std::move(best));
  OffloadedPlan chained = planOnChain(graph, bottom, link);
  work += chained.result.work;
  if (isBetterPlan(chained, best))
    best = std::move(chained);
  best.result.work = work;
  best = climbJointly(graph, bottom, link, std::move(best));
  work = best.result.work;
  if (!best.result.feasible() && options.lastResort) {
    OffloadedPlan last = planRung(graph, solver, options, options.budget, link);
    work += last.result.work;
    if (isBetterPlan(last, best))
      best = std::move(last);
  }
  best.result.work = work;
  return best;
}

/// The ladder above `low` for `request` (none but the keep-all order
/// unless Joint), the keep-all order last; solves' work added to `work`.
static std::vector<Schedule> ladderAbove(const Graph &graph,
                                         const SolverInfo &solver,
                                         const SolveOptions &options,
                                         const OffloadRequest &request,
                                         int64_t low, int64_t &work) {
  Schedule keepAll = checkpointAllSchedule(graph);
  std::vector<Schedule> rungs;
  if (request.choice == OffloadChoice::Joint)
    rungs = solveRungs(graph, solver, options, low,
                       simulate(graph, keepAll).peakBytes, work);
  rungs.push_back(std::move(keepAll));
  return rungs;
}

OffloadedPlan remat::planWithOffloads(const Graph &graph,
                                      const SolverInfo &solver,
                                      const SolveOptions &options,
                                      const OffloadRequest &request) {
  auto start = std::chrono::steady_clock::now();
  int64_t work = 0;
  std::vector<Schedule> rungs =
      ladderAbove(graph, solver, options, request, options.budget, work);
  OffloadedPlan plan = searchLadder(graph, solver, options, request, rungs);
  plan.result.work += work;
  if (!plan.result.feasible() && request.link.hostBudget < kMaxTotalBytes) {
    OffloadRequest unlimited = request;
    unlimited.link.hostBudget = kMaxTotalBytes;
    OffloadedPlan wider =
        searchLadder(graph, solver, options, unlimited, rungs);
    if (wider.result.feasible())
      plan.hostNeeded = wider.sim.hostPeakBytes;
  }
  plan.result.solver = solver.name;
  plan.result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return plan;
}

/// Whether `plan` fits its budgets and predicts a time within `limit`.
static bool meetsLimit(const OffloadedPlan &plan, double limit) {
  return plan.result.feasible() && plan.sim.time <= limit;
}

/// The budgets the bisection's probes met below `top`, in increasing order
/// (Offload.h).
static std::vector<int64_t>
probeBudgets(const Graph &graph, const SolverInfo &solver,
             const SolveOptions &options, const OffloadRequest &request,
             double limit, int64_t top, int64_t resolution) {
  WorkMeter meter(options);
  std::vector<int64_t> met;
  SolveOptions probe = options;
  probe.effort *= kProbeEffort;
  probe.lastResort = false;
  int64_t lo = peakLowerBound(graph) - 1, hi = top;
  int64_t work = 0;
  std::vector<Schedule> rungs =
      ladderAbove(graph, solver, probe, request, lo, work);
  for (int k = 0; k < kSearchProbes && hi - lo > resolution && !meter.timeUp();
       ++k) {
    probe.budget = lo + (hi - lo) / 2;
    if (meetsLimit(searchLadder(graph, solver, probe, request, rungs), limit)) {
      hi = probe.budget;
      met.push_back(hi);
    } else {
      lo = probe.budget;
    }
  }
  std::reverse(met.begin(), met.end());
  return met;
}

OffloadedBudget remat::findSmallestOffloadedBudget(
    const Graph &graph, const SolverInfo &solver, const SolveOptions &options,
    const OffloadRequest &request, int64_t known) {
  double limit = costLimit(graph, options);
  SolveOptions asked = options;
  asked.objective = Objective::MinComputeUnderBudget;
  int64_t top = simulate(graph, checkpointAllSchedule(graph)).peakBytes;
  if (known < 0 || known > top)
    known = top;
  OffloadedBudget found;
  std::vector<int64_t> candidates =
      probeBudgets(graph, solver, asked, request, limit, known,
                   std::max<int64_t>(1, top / 1000));
  if (candidates.size() > kConfirmations)
    candidates.resize(kConfirmations);
  candidates.push_back(known);
  if (known < top)
    candidates.push_back(top);
  for (int64_t budget : candidates) {
    asked.budget = budget;
    OffloadedPlan plan = planWithOffloads(graph, solver, asked, request);
    if (meetsLimit(plan, limit)) {
      found.budget = budget;
      found.plan = std::move(plan);
      break;
    }
  }
  return found;
}
