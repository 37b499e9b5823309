//===- Arena.cpp - offset assignment: problem, verifier, greedy -----------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Arena.h"

#include "remat/Solver/ScheduleBuilder.h"
#include "remat/Solver/Simulator.h"

#include <algorithm>
#include <numeric>
#include <sstream>

using namespace remat;

//===----------------------------------------------------------------------===//
// The problem
//===----------------------------------------------------------------------===//

/// `bytes` rounded up to `alignment` (a power of two), or -1 when that
/// exceeds kMaxTotalBytes.
static int64_t alignUp(int64_t bytes, int64_t alignment) {
  if (bytes > kMaxTotalBytes - (alignment - 1))
    return -1;
  return (bytes + alignment - 1) & ~(alignment - 1);
}

std::string ArenaProblem::check() const {
  std::ostringstream os;
  if (alignment < 1 || (alignment & (alignment - 1)) != 0 ||
      alignment > kMaxTotalBytes) {
    os << "the alignment " << alignment << " is not a power of two";
    return os.str();
  }
  if (maxBytes < 0 || maxBytes > kMaxTotalBytes) {
    os << "the arena limit " << maxBytes << " is not in [0, 2^62]";
    return os.str();
  }
  for (int i = 0; i < size(); ++i) {
    const ArenaBuffer &buffer = buffers[i];
    if (buffer.bytes < 0)
      os << "buffer " << i << " has a negative size (" << buffer.bytes << ")";
    else if (buffer.begin > buffer.end)
      os << "buffer " << i << " ends (" << buffer.end << ") before it begins ("
         << buffer.begin << ")";
    else if (alignedBytes(i) < 0 || alignedBytes(i) > maxBytes)
      os << "buffer " << i << " of " << buffer.bytes
         << " bytes does not fit an arena of at most " << maxBytes << " bytes";
    if (!os.str().empty())
      return os.str();
  }
  return "";
}

int64_t ArenaProblem::alignedBytes(int i) const {
  return alignUp(buffers[i].bytes, alignment);
}

int64_t ArenaProblem::lowerBound() const {
  // Sweep over (step, +bytes) at starts and (end + 1, -bytes) after ends;
  // at equal steps the ends come first.
  std::vector<std::pair<int64_t, int64_t>> events;
  events.reserve(2 * buffers.size());
  for (int i = 0; i < size(); ++i) {
    int64_t bytes = alignedBytes(i);
    if (bytes < 0)
      return kMaxTotalBytes + 1;
    events.push_back({buffers[i].begin, bytes});
    events.push_back({int64_t(buffers[i].end) + 1, -bytes});
  }
  std::sort(events.begin(), events.end());
  int64_t live = 0, best = 0;
  for (const auto &[step, change] : events) {
    if (__builtin_add_overflow(live, change, &live) || live > kMaxTotalBytes)
      return kMaxTotalBytes + 1;
    best = std::max(best, live);
  }
  return best;
}

//===----------------------------------------------------------------------===//
// The verifier
//===----------------------------------------------------------------------===//

/// The first buffer that is misplaced on its own (offset, alignment, extent),
/// as a message; empty when there is none.
static std::string checkExtents(const ArenaProblem &problem,
                                const ArenaPlan &plan) {
  std::ostringstream os;
  if (plan.bytes < 0 || plan.bytes > problem.maxBytes) {
    os << "the arena of " << plan.bytes << " bytes exceeds the limit of "
       << problem.maxBytes << " bytes";
    return os.str();
  }
  for (int i = 0; i < problem.size(); ++i) {
    int64_t offset = plan.offsets[i];
    if (offset < 0 || offset % problem.alignment != 0)
      os << "buffer " << i << " is at offset " << offset
         << ", not a non-negative multiple of the alignment "
         << problem.alignment;
    else if (problem.alignedBytes(i) > plan.bytes - offset)
      os << "buffer " << i << " at offset " << offset << " ("
         << problem.alignedBytes(i) << " bytes) ends past the arena of "
         << plan.bytes << " bytes";
    if (!os.str().empty())
      return os.str();
  }
  return "";
}

std::string remat::verifyArena(const ArenaProblem &problem,
                               const ArenaPlan &plan) {
  if (std::string error = problem.check(); !error.empty())
    return "ill-formed problem: " + error;
  if (static_cast<int>(plan.offsets.size()) != problem.size()) {
    std::ostringstream os;
    os << "the plan has " << plan.offsets.size() << " offsets for "
       << problem.size() << " buffers";
    return os.str();
  }
  if (std::string error = checkExtents(problem, plan); !error.empty())
    return error;
  // Sweep over time: buffers sorted by start; each one is checked against
  // those started before it that are still live.
  std::vector<int> order(problem.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return problem.buffers[a].begin < problem.buffers[b].begin;
  });
  std::vector<int> active;
  for (int i : order) {
    active.erase(std::remove_if(active.begin(), active.end(),
                                [&](int j) {
                                  return problem.buffers[j].end <
                                         problem.buffers[i].begin;
                                }),
                 active.end());
    for (int j : active) {
      int64_t a = plan.offsets[i], b = plan.offsets[j];
      if (problem.alignedBytes(i) == 0 || problem.alignedBytes(j) == 0 ||
          a >= b + problem.alignedBytes(j) || b >= a + problem.alignedBytes(i))
        continue;
      std::ostringstream os;
      os << "buffers " << j << " and " << i << " are live together (at step "
         << problem.buffers[i].begin << ") and overlap: [" << b << ", "
         << b + problem.alignedBytes(j) << ") and [" << a << ", "
         << a + problem.alignedBytes(i) << ")";
      return os.str();
    }
    active.push_back(i);
  }
  return "";
}

//===----------------------------------------------------------------------===//
// Greedy best fit
//===----------------------------------------------------------------------===//

/// The buffers in the order `order` places them.
static std::vector<int> greedyOrder(const ArenaProblem &problem,
                                    ArenaOrder order) {
  std::vector<int> ids(problem.size());
  std::iota(ids.begin(), ids.end(), 0);
  auto bySize = [&](int a, int b) {
    const ArenaBuffer &x = problem.buffers[a], &y = problem.buffers[b];
    if (problem.alignedBytes(a) != problem.alignedBytes(b))
      return problem.alignedBytes(a) > problem.alignedBytes(b);
    if (x.begin != y.begin)
      return x.begin < y.begin;
    return x.end > y.end;
  };
  auto byLifetime = [&](int a, int b) {
    const ArenaBuffer &x = problem.buffers[a], &y = problem.buffers[b];
    if (x.begin != y.begin)
      return x.begin < y.begin;
    return problem.alignedBytes(a) > problem.alignedBytes(b);
  };
  if (order == ArenaOrder::BySize)
    std::stable_sort(ids.begin(), ids.end(), bySize);
  else
    std::stable_sort(ids.begin(), ids.end(), byLifetime);
  return ids;
}

/// The offset best fit gives buffer `i` among the placed buffers (sorted by
/// offset): the smallest gap between those live with it that holds it, else
/// the top of them. -1 when that top would exceed `maxBytes`.
static int64_t bestFit(const ArenaProblem &problem, int i,
                       const std::vector<std::pair<int64_t, int>> &placed) {
  int64_t size = problem.alignedBytes(i);
  int64_t top = 0, best = -1, bestGap = 0;
  for (const auto &[offset, j] : placed) {
    if (!problem.conflict(i, j) || problem.alignedBytes(j) == 0)
      continue;
    int64_t gap = offset - top;
    if (gap >= size && (best < 0 || gap < bestGap)) {
      best = top;
      bestGap = gap;
    }
    top = std::max(top, offset + problem.alignedBytes(j));
  }
  if (best >= 0)
    return best;
  return size <= problem.maxBytes - top ? top : -1;
}

ArenaPlan remat::finishArenaPlan(const ArenaProblem &problem, ArenaPlan plan) {
  plan.bytes = 0;
  for (int i = 0; i < problem.size(); ++i)
    plan.bytes =
        std::max(plan.bytes, plan.offsets[i] + problem.alignedBytes(i));
  plan.lowerBound = problem.lowerBound();
  plan.optimal = plan.optimal || plan.bytes <= plan.lowerBound;
  if (std::string error = verifyArena(problem, plan); !error.empty())
    plan.error = "internal error: the " + plan.planner +
                 " plan fails the verifier: " + error;
  return plan;
}

ArenaPlan remat::planArenaGreedy(const ArenaProblem &problem,
                                 ArenaOrder order) {
  ArenaPlan plan;
  plan.planner =
      order == ArenaOrder::BySize ? "greedy-by-size" : "greedy-by-lifetime";
  if (std::string error = problem.check(); !error.empty()) {
    plan.error = error;
    return plan;
  }
  plan.offsets.assign(problem.size(), 0);
  std::vector<std::pair<int64_t, int>> placed;
  for (int i : greedyOrder(problem, order)) {
    int64_t offset = bestFit(problem, i, placed);
    if (offset < 0) {
      std::ostringstream os;
      os << "the arena would exceed " << problem.maxBytes << " bytes";
      plan.error = os.str();
      return plan;
    }
    plan.offsets[i] = offset;
    placed.insert(std::upper_bound(placed.begin(), placed.end(),
                                   std::make_pair(offset, i)),
                  {offset, i});
  }
  return finishArenaPlan(problem, std::move(plan));
}

ArenaPlan remat::planArena(const ArenaProblem &problem,
                           const ArenaOptions &options) {
  ArenaPlan best = planArenaGreedy(problem, ArenaOrder::BySize);
  if (!best.valid() || best.optimal)
    return best;
  ArenaPlan byLifetime = planArenaGreedy(problem, ArenaOrder::ByLifetime);
  if (byLifetime.valid() && byLifetime.bytes < best.bytes)
    best = std::move(byLifetime);
  if (!options.exact || best.optimal)
    return best;
  return planArenaExact(problem, options.exactOptions, &best);
}

//===----------------------------------------------------------------------===//
// Buffers of a schedule
//===----------------------------------------------------------------------===//

ArenaProblem remat::arenaOfSchedule(const Graph &graph,
                                    const Schedule &schedule, int64_t alignment,
                                    std::string *error) {
  ArenaProblem problem;
  problem.alignment = alignment;
  std::vector<int> order;
  for (const Step &step : schedule.steps)
    if (step.kind == Step::Kind::Compute)
      order.push_back(step.node);
  std::string buildError;
  Schedule lastUse = scheduleFromComputeOrder(graph, order, &buildError);
  std::vector<StorageLifetime> lifetimes;
  Simulation sim = buildError.empty() ? simulate(graph, lastUse, &lifetimes)
                                      : Simulation{buildError};
  if (!sim.valid()) {
    if (error)
      *error = sim.error;
    return problem;
  }
  for (const StorageLifetime &lifetime : lifetimes)
    if (lifetime.bytes > 0)
      problem.buffers.push_back({lifetime.bytes,
                                 static_cast<int>(lifetime.begin),
                                 static_cast<int>(lifetime.end) - 1});
  return problem;
}
