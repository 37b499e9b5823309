//===- Arena.cpp - offset assignment: problem, verifier, greedy -----------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Arena/Arena.h"

#include "remat/Solver/Core/HostLink.h"
#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/Simulator.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <sstream>
#include <tuple>

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

/// The name of a greedy plan in ArenaPlan::planner, e.g.
/// "best-fit-by-size".
static std::string getGreedyName(ArenaOrder order, ArenaPlacement placement) {
  std::string name =
      placement == ArenaPlacement::BestFit ? "best-fit" : "first-fit";
  switch (order) {
  case ArenaOrder::BySize:
    return name + "-by-size";
  case ArenaOrder::ByArea:
    return name + "-by-area";
  case ArenaOrder::ByLength:
    return name + "-by-length";
  case ArenaOrder::ByStart:
    return name + "-by-start";
  }
  return name;
}

std::vector<int> remat::greedyOrder(const ArenaProblem &problem,
                                    ArenaOrder order) {
  auto length = [&](int i) {
    return int64_t(problem.buffers[i].end) - problem.buffers[i].begin + 1;
  };
  // The sort key, larger first: size x length saturates (it only orders).
  auto primary = [&](int i) -> int64_t {
    switch (order) {
    case ArenaOrder::BySize:
      return problem.alignedBytes(i);
    case ArenaOrder::ByArea:
      return problem.alignedBytes(i) > INT64_MAX / length(i)
                 ? INT64_MAX
                 : problem.alignedBytes(i) * length(i);
    case ArenaOrder::ByLength:
      return length(i);
    case ArenaOrder::ByStart:
      return -int64_t(problem.buffers[i].begin);
    }
    return 0;
  };
  std::vector<int> ids(problem.size());
  std::iota(ids.begin(), ids.end(), 0);
  std::stable_sort(ids.begin(), ids.end(), [&](int a, int b) {
    const ArenaBuffer &x = problem.buffers[a], &y = problem.buffers[b];
    return std::make_tuple(primary(a), problem.alignedBytes(a), -x.begin,
                           length(a)) > std::make_tuple(primary(b),
                                                        problem.alignedBytes(b),
                                                        -y.begin, length(b));
  });
  return ids;
}

/// The offset `placement` gives buffer `i` among the placed buffers (sorted
/// by offset): the smallest (best fit) or the lowest (first fit) gap
/// between those live with it that holds it, else the top of them. -1 when
/// that top would exceed `maxBytes`.
static int64_t fitOffset(const ArenaProblem &problem, int i,
                         const std::vector<std::pair<int64_t, int>> &placed,
                         ArenaPlacement placement) {
  int64_t size = problem.alignedBytes(i);
  int64_t top = 0, best = -1, bestGap = 0;
  for (const auto &[offset, j] : placed) {
    if (!problem.conflict(i, j) || problem.alignedBytes(j) == 0)
      continue;
    int64_t gap = offset - top;
    if (gap >= size && (best < 0 || gap < bestGap)) {
      if (placement == ArenaPlacement::FirstFit)
        return top;
      best = top;
      bestGap = gap;
    }
    top = std::max(top, offset + problem.alignedBytes(j));
  }
  if (best >= 0)
    return best;
  return size <= problem.maxBytes - top ? top : -1;
}

/// Places the buffers in `order`; returns the arena, or -1 when it would
/// exceed `maxBytes`.
static int64_t placeInOrder(const ArenaProblem &problem,
                            const std::vector<int> &order,
                            ArenaPlacement placement,
                            std::vector<int64_t> &offsets) {
  offsets.assign(problem.size(), 0);
  std::vector<std::pair<int64_t, int>> placed;
  placed.reserve(order.size());
  int64_t bytes = 0;
  for (int i : order) {
    int64_t offset = fitOffset(problem, i, placed, placement);
    if (offset < 0)
      return -1;
    offsets[i] = offset;
    bytes = std::max(bytes, offset + problem.alignedBytes(i));
    placed.insert(std::upper_bound(placed.begin(), placed.end(),
                                   std::make_pair(offset, i)),
                  {offset, i});
  }
  return bytes;
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

/// The plan of placing in `order`, or the error of an arena over the limit.
static ArenaPlan planInOrder(const ArenaProblem &problem,
                             const std::vector<int> &order,
                             ArenaPlacement placement,
                             const std::string &planner) {
  ArenaPlan plan;
  plan.planner = planner;
  if (std::string error = problem.check(); !error.empty()) {
    plan.error = error;
    return plan;
  }
  if (placeInOrder(problem, order, placement, plan.offsets) < 0) {
    std::ostringstream os;
    os << "the arena would exceed " << problem.maxBytes << " bytes";
    plan.error = os.str();
    return plan;
  }
  return finishArenaPlan(problem, std::move(plan));
}

ArenaPlan remat::planArenaGreedy(const ArenaProblem &problem, ArenaOrder order,
                                 ArenaPlacement placement) {
  std::vector<int> ids;
  if (problem.check().empty())
    ids = greedyOrder(problem, order);
  return planInOrder(problem, ids, placement, getGreedyName(order, placement));
}

/// One random move of the search: swap two buffers, or move one elsewhere.
static void perturbOrder(std::vector<int> &order, std::mt19937_64 &rng) {
  std::uniform_int_distribution<size_t> pick(0, order.size() - 1);
  size_t from = pick(rng), to = pick(rng);
  if (rng() % 2) {
    std::swap(order[from], order[to]);
    return;
  }
  int moved = order[from];
  order.erase(order.begin() + from);
  order.insert(order.begin() + to, moved);
}

ArenaPlan remat::searchArenaOrder(const ArenaProblem &problem,
                                  std::vector<int> order,
                                  const ArenaSearchOptions &options,
                                  const std::string &planner) {
  std::vector<int64_t> offsets;
  int64_t current = placeInOrder(problem, order, options.placement, offsets);
  int64_t lowerBound = problem.lowerBound();
  std::vector<int> best = order;
  int64_t bestBytes = current;
  std::mt19937_64 rng(options.seed);
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  for (int it = 0;
       it < options.iterations && current >= 0 && bestBytes > lowerBound;
       ++it) {
    std::vector<int> next = order;
    perturbOrder(next, rng);
    int64_t bytes = placeInOrder(problem, next, options.placement, offsets);
    if (bytes < 0)
      continue;
    // Annealing: a worse order is taken with a probability that fades with
    // its excess over `temperature` x the bound and with the iterations
    // left.
    double temperature = options.temperature * lowerBound *
                         (1.0 - double(it) / options.iterations);
    if (bytes > current &&
        (temperature <= 0 ||
         coin(rng) >= std::exp(-double(bytes - current) / temperature)))
      continue;
    order = std::move(next);
    current = bytes;
    if (current < bestBytes) {
      bestBytes = current;
      best = order;
    }
  }
  return planInOrder(problem, best, options.placement, planner);
}

//===----------------------------------------------------------------------===//
// Buffers of a schedule
//===----------------------------------------------------------------------===//

/// The bytes of `node`'s storage (`bytes`) in an arena of `alignment`: with
/// several results, each result aligned on its own, as the lowering's
/// buffers are (one problem for the schedule and its IR, Arena.h).
static int64_t getAlignedStorageBytes(const Node &node, int64_t bytes,
                                      int64_t alignment) {
  if (node.partBytes.empty() || alignment <= 1)
    return bytes;
  int64_t total = 0;
  for (int64_t part : node.partBytes)
    if (!addBytes(total, (part + alignment - 1) / alignment * alignment))
      return bytes;
  return std::max(total, bytes);
}

/// Whether `schedule` moves values to the host and back (Offload.h).
static bool hasCopies(const Schedule &schedule) {
  return std::any_of(schedule.steps.begin(), schedule.steps.end(),
                     [](const Step &step) {
                       return step.kind == Step::Kind::Offload ||
                              step.kind == Step::Kind::Prefetch;
                     });
}

/// `schedule` as the rematerialized program runs it (arenaOfSchedule) and
/// its simulation with the storages' lifetimes; copies are simulated on an
/// ideal link, since the program's buffer of an offloaded value dies at its
/// wait (at its copy without one) and a prefetched one lives from its
/// copy.
static Simulation simulateAsLowered(const Graph &graph,
                                    const Schedule &schedule,
                                    std::vector<StorageLifetime> &lifetimes) {
  std::string buildError;
  Schedule lastUse = scheduleAtLastUse(graph, schedule.steps, &buildError);
  if (!buildError.empty())
    return Simulation{buildError};
  std::optional<HostLink> ideal;
  if (hasCopies(schedule))
    ideal = findHostLink("ideal", graph);
  return simulate(graph, lastUse, &lifetimes, ideal ? &*ideal : nullptr);
}

ArenaProblem remat::arenaOfSchedule(const Graph &graph,
                                    const Schedule &schedule, int64_t alignment,
                                    std::string *error) {
  ArenaProblem problem;
  problem.alignment = alignment;
  std::vector<StorageLifetime> lifetimes;
  Simulation sim = simulateAsLowered(graph, schedule, lifetimes);
  if (!sim.valid()) {
    if (error)
      *error = sim.error;
    return problem;
  }
  for (const StorageLifetime &lifetime : lifetimes)
    if (lifetime.bytes > 0)
      problem.buffers.push_back(
          {getAlignedStorageBytes(graph.nodes[lifetime.node], lifetime.bytes,
                                  alignment),
           static_cast<int>(lifetime.begin),
           static_cast<int>(lifetime.end) - 1});
  return problem;
}
