//===- ArenaPlanner.cpp - planArena: greedy, search, then exact ----------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// planArena combines the planners of Arena.cpp (greedy, order search) and
// ArenaExact.cpp (branch and bound) on the problem's canonical form; it sits
// above both so that neither calls the other's file back.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Arena/Arena.h"

#include <algorithm>
#include <numeric>
#include <tuple>

using namespace remat;

/// The best greedy plan, and the order and placement that made it.
static ArenaPlan planBestGreedy(const ArenaProblem &problem,
                                std::vector<int> &bestOrder) {
  ArenaPlan best;
  for (ArenaPlacement placement :
       {ArenaPlacement::BestFit, ArenaPlacement::FirstFit}) {
    for (ArenaOrder order : {ArenaOrder::BySize, ArenaOrder::ByArea,
                             ArenaOrder::ByLength, ArenaOrder::ByStart}) {
      ArenaPlan plan = planArenaGreedy(problem, order, placement);
      if (!plan.valid())
        return plan;
      if (best.offsets.size() != plan.offsets.size() ||
          plan.bytes < best.bytes) {
        best = std::move(plan);
        bestOrder = greedyOrder(problem, order);
      }
      if (best.optimal)
        return best;
    }
  }
  return best;
}

/// Four order searches from `order` (each placement, with and without
/// annealing: neither wins everywhere) sharing `iterations`, each from the
/// next `seed`; keeps the best plan in `best`. Stops early once `best` is at
/// most `stopBytes`.
static void searchOrders(const ArenaProblem &problem,
                         const std::vector<int> &order, int64_t iterations,
                         int64_t stopBytes, uint64_t &seed, ArenaPlan &best) {
  for (ArenaPlacement placement :
       {ArenaPlacement::FirstFit, ArenaPlacement::BestFit}) {
    for (double temperature : {0.0, 0.003}) {
      ArenaSearchOptions search{placement, static_cast<int>(iterations / 4),
                                temperature, seed++};
      if (search.iterations == 0 || best.optimal || best.bytes <= stopBytes)
        continue;
      ArenaPlan searched =
          searchArenaOrder(problem, order, search, "order-search");
      if (searched.valid() && searched.bytes < best.bytes)
        best = std::move(searched);
    }
  }
}

/// The arena the longer searches go on to meet: the target, or less when
/// `closeShare` asks for it; -1 without a target.
static int64_t getSearchGoal(const ArenaOptions &options, int64_t lowerBound) {
  if (options.targetBytes < 0 || options.closeShare <= 0)
    return options.targetBytes;
  auto slack = static_cast<int64_t>(static_cast<double>(lowerBound) *
                                    options.closeShare);
  return std::min(options.targetBytes, lowerBound + slack);
}

/// The planners of planArena on a canonical problem.
static ArenaPlan planCanonical(const ArenaProblem &problem,
                               const ArenaOptions &options) {
  std::vector<int> order;
  ArenaPlan best = planBestGreedy(problem, order);
  if (!best.valid() || best.optimal || problem.size() == 0)
    return best;
  int64_t n = problem.size();
  int64_t iterations =
      std::min<int64_t>(options.searchIterations, options.searchWork / (n * n));
  uint64_t seed = 26;
  searchOrders(problem, order, iterations, -1, seed, best);
  // Above the goal: longer searches with new seeds, within targetWork.
  int64_t goal = getSearchGoal(options, best.lowerBound);
  int64_t work = options.targetWork / (n * n);
  while (goal >= 0 && best.bytes > goal && iterations > 0 && !best.optimal &&
         2 * iterations <= work) {
    iterations *= 2;
    work -= iterations;
    searchOrders(problem, order, iterations, goal, seed, best);
  }
  if (!options.exact || best.optimal)
    return best;
  return planArenaExact(problem, options.exactOptions, &best);
}

/// `problem` with its buffers sorted by start (then longer first, then
/// larger first) and its steps renumbered by the starts: a buffer starts at
/// the rank of its start among all starts and ends at the rank of the last
/// start it covers, so that two buffers still overlap exactly when they
/// did. Problems with the same sizes and overlaps in the same start order
/// (a schedule's buffers and the memory analysis's of its rematerialized
/// IR) become one problem and get one plan. `order[k]` is the buffer that
/// became buffer k.
static ArenaProblem canonicalize(const ArenaProblem &problem,
                                 std::vector<int> &order) {
  std::vector<int> starts;
  for (const ArenaBuffer &buffer : problem.buffers)
    starts.push_back(buffer.begin);
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  auto rank = [&](int step) {
    return static_cast<int>(
        std::upper_bound(starts.begin(), starts.end(), step) -
        starts.begin() - 1);
  };
  ArenaProblem canonical = problem;
  for (ArenaBuffer &buffer : canonical.buffers) {
    buffer.begin = rank(buffer.begin);
    buffer.end = rank(buffer.end);
  }
  order.resize(problem.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const ArenaBuffer &x = canonical.buffers[a], &y = canonical.buffers[b];
    return std::make_tuple(x.begin, -x.end, -canonical.alignedBytes(a)) <
           std::make_tuple(y.begin, -y.end, -canonical.alignedBytes(b));
  });
  for (int k = 0; k < problem.size(); ++k)
    canonical.buffers[k] = problem.buffers[order[k]];
  for (ArenaBuffer &buffer : canonical.buffers) {
    buffer.begin = rank(buffer.begin);
    buffer.end = rank(buffer.end);
  }
  return canonical;
}

ArenaPlan remat::planArena(const ArenaProblem &problem,
                           const ArenaOptions &options) {
  if (!problem.check().empty())
    return planArenaGreedy(problem, ArenaOrder::BySize);
  std::vector<int> order;
  ArenaPlan plan = planCanonical(canonicalize(problem, order), options);
  if (!plan.valid())
    return plan;
  std::vector<int64_t> offsets(problem.size());
  for (int k = 0; k < problem.size(); ++k)
    offsets[order[k]] = plan.offsets[k];
  plan.offsets = std::move(offsets);
  return finishArenaPlan(problem, std::move(plan));
}
