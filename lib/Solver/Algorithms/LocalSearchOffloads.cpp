//===- LocalSearchOffloads.cpp - local search with offloading -------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Local search over the third choice per value (docs/Offload.md, "Offload
// in local search"): a value the plan recomputes may instead be kept by
// offloading it to the host. The plans that reach it (the ladder's, the
// chain DP's) choose what to keep and recompute without the link, block by
// block, and what to offload by the peak alone, largest first; where the
// link has time left, a recomputed value of much recompute cost per byte (a
// matmul's output) is worth moving instead.
//
// A point is a compute schedule (compute and free steps) and the values
// offloaded first; the caller's judge places the copies (those values
// first, more where the plan is still over the budget) and predicts the
// time. A move keeps one recomputed value from its first computation to its
// last read (its recomputations and the frees between them dropped, and
// the recomputations that then go unread with them) and offloads it first.
// Moves are tried most recompute cost per byte first; one is taken when the
// judged plan is better (`isBetterVerdict`), and the point then offloads
// first what the judge placed. Passes repeat until none is taken or the
// work is spent (counted, not timed: deterministic).
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Algorithms/Solvers.h"
#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/SolverSupport.h"
#include "remat/Solver/Core/WorkMeter.h"

#include <algorithm>

using namespace remat;

namespace {
/// A point of the climb: a compute schedule, the values offloaded first,
/// and the judge's verdict on them.
struct JointPoint {
  Schedule schedule;
  std::vector<int> offloaded;
  OffloadVerdict verdict;
};

class JointClimb {
public:
  JointClimb(const Graph &graph, const SolveOptions &options,
             const OffloadJudge &judge, WorkMeter &meter)
      : graph(graph), options(options), judge(judge), meter(meter) {}

  JointPoint start(const Schedule &schedule);
  /// One pass over the moves from `point`; whether one was taken.
  bool pass(JointPoint &point);

private:
  OffloadVerdict evaluate(const Schedule &schedule,
                          const std::vector<int> &offloaded);
  bool isBetterVerdict(const OffloadVerdict &a, const OffloadVerdict &b) const;
  double perByte(int id) const {
    return graph.nodes[id].cost / static_cast<double>(ownedBytes(graph, id));
  }

  const Graph &graph;
  const SolveOptions &options;
  const OffloadJudge &judge;
  WorkMeter &meter;
};
} // namespace

/// Within the budget first, then faster; of two over it, the lower peak.
bool JointClimb::isBetterVerdict(const OffloadVerdict &a,
                                 const OffloadVerdict &b) const {
  bool aFits = a.peak <= options.budget, bFits = b.peak <= options.budget;
  if (aFits != bFits)
    return aFits;
  return aFits ? a.time < b.time * (1 - 1e-12) : a.peak < b.peak;
}

OffloadVerdict JointClimb::evaluate(const Schedule &schedule,
                                    const std::vector<int> &offloaded) {
  OffloadVerdict verdict = judge(schedule, offloaded);
  meter.charge(verdict.work);
  return verdict;
}

/// `schedule` without its copies (its offloaded values kept on the device),
/// those values offloaded first.
JointPoint JointClimb::start(const Schedule &schedule) {
  JointPoint point;
  point.offloaded = offloadedNodes(schedule);
  for (const Step &step : schedule.steps)
    if (step.kind == Step::Kind::Compute || step.kind == Step::Kind::Free)
      point.schedule.steps.push_back(step);
  point.verdict = evaluate(point.schedule, point.offloaded);
  return point;
}

/// The steps of `schedule` whose `keep` is set.
static Schedule keptSteps(const Schedule &schedule,
                          const std::vector<char> &keep) {
  Schedule kept;
  for (size_t i = 0; i < schedule.steps.size(); ++i)
    if (keep[i])
      kept.steps.push_back(schedule.steps[i]);
  return kept;
}

/// `schedule` with the recomputations nothing reads before the value is
/// freed (or the schedule ends) dropped, with their frees, until none is
/// left.
static Schedule dropUnreadRecomputations(const Graph &graph,
                                         Schedule schedule) {
  for (bool dropped = true; dropped;) {
    dropped = false;
    const size_t n = schedule.steps.size();
    std::vector<char> keep(n, 1), computed(graph.size(), 0);
    // The compute step of each live value, and whether it was read since.
    std::vector<int64_t> liveAt(graph.size(), -1);
    std::vector<char> read(graph.size(), 0);
    for (size_t i = 0; i < n; ++i) {
      const Step &step = schedule.steps[i];
      if (step.kind == Step::Kind::Free) {
        int64_t at = liveAt[step.node];
        if (at >= 0 && !read[step.node] && computed[step.node] > 1) {
          keep[at] = keep[i] = 0;
          dropped = true;
        }
        liveAt[step.node] = -1;
        continue;
      }
      forEachRead(graph.nodes[step.node], [&](int dep) { read[dep] = 1; });
      ++computed[step.node];
      liveAt[step.node] = static_cast<int64_t>(i);
      read[step.node] = 0;
    }
    schedule = keptSteps(schedule, keep);
  }
  return schedule;
}

/// `schedule` with `node` computed once and held from its first computation
/// to where the schedule last frees it (to the end when it last computes
/// it: an output): its other computations and frees dropped.
static Schedule keepFromFirst(const Graph &graph, const Schedule &schedule,
                              int node) {
  const size_t n = schedule.steps.size();
  std::vector<char> keep(n, 1);
  size_t first = n, last = n;
  for (size_t i = 0; i < n; ++i)
    if (schedule.steps[i].node == node) {
      keep[i] = 0;
      first = std::min(first, i);
      last = i;
    }
  if (first < n)
    keep[first] = 1;
  if (last < n && schedule.steps[last].kind == Step::Kind::Free)
    keep[last] = 1;
  return dropUnreadRecomputations(graph, keptSteps(schedule, keep));
}

bool JointClimb::pass(JointPoint &point) {
  std::vector<int> count(graph.size(), 0);
  for (const Step &step : point.schedule.steps)
    if (step.kind == Step::Kind::Compute)
      ++count[step.node];
  std::vector<int> recomputed;
  for (int id = 0; id < graph.size(); ++id)
    if (count[id] > 1 && !graph.nodes[id].isView() && ownedBytes(graph, id) > 0)
      recomputed.push_back(id);
  std::stable_sort(recomputed.begin(), recomputed.end(),
                   [&](int a, int b) { return perByte(a) > perByte(b); });
  bool taken = false;
  for (int id : recomputed) {
    if (meter.exhausted())
      break;
    Schedule schedule = keepFromFirst(graph, point.schedule, id);
    std::vector<int> offloaded = point.offloaded;
    offloaded.push_back(id);
    OffloadVerdict verdict = evaluate(schedule, offloaded);
    if (!isBetterVerdict(verdict, point.verdict))
      continue;
    point.schedule = std::move(schedule);
    point.offloaded = verdict.offloaded;
    point.verdict = std::move(verdict);
    taken = true;
  }
  return taken;
}

int64_t remat::searchLocalOffloads(const Graph &graph,
                                   const SolveOptions &options,
                                   const Schedule &start,
                                   const OffloadJudge &judge) {
  WorkMeter meter(options);
  JointClimb climb(graph, options, judge, meter);
  JointPoint point = climb.start(start);
  while (!meter.exhausted() && climb.pass(point)) {
  }
  return meter.used();
}
