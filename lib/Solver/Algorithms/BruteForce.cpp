//===- BruteForce.cpp - exhaustive exact solver for tiny graphs -----------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Dijkstra over the sets of live values. Why this is exact for the memory
// model of Problem.h (graphs without views):
//   * whether a step is allowed depends only on the set of live values
//     (compute: dependencies live, the value not live; free: the value
//     live), and so do the live bytes (the sum of the live values' bytes);
//   * a schedule is therefore a path in the graph whose vertices are live
//     sets, edges are steps, the cost of a compute edge is the node's cost
//     and a free edge costs 0; the peak constraint removes compute edges
//     into sets over the budget (peak is measured after compute steps);
//   * the goal vertices are the sets containing every output.
// Costs are non-negative, so Dijkstra finds the cheapest path to a goal:
// the optimal schedule. For MinPeakUnderOverhead the smallest budget whose
// optimum is within the cost limit is found by bisection on the budget
// (feasibility is monotone in the budget). With views the live set does not
// determine the bytes (a view may hold an old copy of its base), so views
// are unsupported.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/SolverSupport.h"
#include "remat/Solver/Algorithms/Solvers.h"

#include <algorithm>
#include <limits>
#include <queue>

using namespace remat;

static constexpr int kMaxNodes = 20;

namespace {
struct Exhaustive {
  const Graph &graph;
  std::vector<int> nodes;      // needed non-resident nodes, local index
  std::vector<int> localOf;    // graph id -> local index or -1
  std::vector<uint32_t> needs; // local deps mask per local node
  std::vector<int64_t> bytes;
  std::vector<double> cost;
  uint32_t goal = 0;
  int64_t resident = 0;

  explicit Exhaustive(const Graph &graph) : graph(graph) {
    std::vector<char> needed = neededNodes(graph);
    localOf.assign(graph.size(), -1);
    for (int id = 0; id < graph.size(); ++id)
      if (needed[id]) {
        localOf[id] = nodes.size();
        nodes.push_back(id);
      }
    resident = graph.residentBytes();
  }

  void prepare() {
    needs.assign(nodes.size(), 0);
    for (size_t i = 0; i < nodes.size(); ++i) {
      const Node &node = graph.nodes[nodes[i]];
      bytes.push_back(node.bytes);
      cost.push_back(node.cost);
      for (int dep : node.deps)
        if (localOf[dep] >= 0)
          needs[i] |= 1u << localOf[dep];
    }
    for (int out : graph.outputs)
      if (localOf[out] >= 0)
        goal |= 1u << localOf[out];
  }

  /// The cheapest schedule with peak <= budget, as a list of (compute?,
  /// local node) steps; false when there is none.
  bool solve(int64_t budget, double &bestCost,
             std::vector<std::pair<bool, int>> *steps) {
    const uint32_t states = 1u << nodes.size();
    std::vector<double> dist(states, std::numeric_limits<double>::infinity());
    std::vector<int> how(states, 0); // step into the state: +/-(i+1)
    std::vector<int64_t> live(states, 0);
    using Item = std::pair<double, uint32_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
    dist[0] = 0;
    queue.push({0, 0});
    auto liveBytes = [&](uint32_t set) {
      int64_t sum = resident;
      for (size_t i = 0; i < nodes.size(); ++i)
        if (set >> i & 1)
          sum += bytes[i];
      return sum;
    };
    while (!queue.empty()) {
      auto [d, set] = queue.top();
      queue.pop();
      if (d > dist[set])
        continue;
      if ((set & goal) == goal) {
        bestCost = d;
        if (steps) {
          steps->clear();
          for (uint32_t s = set; how[s] != 0;) {
            int h = how[s];
            bool compute = h > 0;
            int i = (compute ? h : -h) - 1;
            steps->push_back({compute, i});
            s = compute ? (s & ~(1u << i)) : (s | (1u << i));
          }
          std::reverse(steps->begin(), steps->end());
        }
        return true;
      }
      int64_t bytesNow = liveBytes(set);
      for (size_t i = 0; i < nodes.size(); ++i) {
        uint32_t bit = 1u << i;
        if (set & bit) {
          uint32_t next = set & ~bit;
          if (d < dist[next]) {
            dist[next] = d;
            how[next] = -static_cast<int>(i + 1);
            queue.push({d, next});
          }
        } else if ((needs[i] & set) == needs[i] &&
                   bytesNow + bytes[i] <= budget) {
          uint32_t next = set | bit;
          double nd = d + cost[i];
          if (nd < dist[next]) {
            dist[next] = nd;
            how[next] = static_cast<int>(i + 1);
            queue.push({nd, next});
          }
        }
      }
    }
    return false;
  }

  Schedule toSchedule(const std::vector<std::pair<bool, int>> &steps) const {
    Schedule schedule;
    for (auto [compute, i] : steps)
      schedule.steps.push_back(compute ? Step::compute(nodes[i])
                                       : Step::free(nodes[i]));
    return schedule;
  }
};
} // namespace

SolveResult remat::solveBruteForce(const Graph &graph,
                                   const SolveOptions &options) {
  WorkMeter meter(options);
  const char *name = "brute-force";
  for (const Node &node : graph.nodes) {
    if (node.isView())
      return failSolve(name, SolveStatus::Unsupported,
                       "views are not supported by the exhaustive solver",
                       meter);
    // The live set does not record whether a node was computed before, so
    // "never recompute" pins cannot be searched exactly.
    if (node.keep != KeepPolicy::Default)
      return failSolve(name, SolveStatus::Unsupported,
                       "keep pins are not supported by the exhaustive solver",
                       meter);
  }
  Exhaustive search(graph);
  if (search.nodes.size() > kMaxNodes)
    return failSolve(
        name, SolveStatus::Unsupported,
        "more than " + std::to_string(kMaxNodes) + " nodes to schedule", meter);
  search.prepare();
  std::vector<std::pair<bool, int>> steps;
  double cost = 0;
  if (options.objective == Objective::MinComputeUnderBudget) {
    if (!search.solve(options.budget, cost, &steps))
      return failSolve(name, SolveStatus::Infeasible,
                       "no schedule fits the budget of " +
                           std::to_string(options.budget) + " bytes",
                       meter);
    SolveResult result =
        finishSolve(graph, options, name, search.toSchedule(steps),
                    SolveStatus::Optimal, meter);
    result.lowerBound = result.cost;
    return result;
  }
  // MinPeakUnderOverhead: bisect the budget.
  double limit = costLimit(graph, options);
  int64_t lo = peakLowerBound(graph);
  int64_t hi = std::min<int64_t>(options.budget,
                                 finishSolve(graph, options, name,
                                             checkpointAllSchedule(graph),
                                             SolveStatus::Feasible, meter)
                                     .peakBytes);
  auto fits = [&](int64_t budget, std::vector<std::pair<bool, int>> *out) {
    double c = 0;
    return search.solve(budget, c, out) &&
           c <= limit + 1e-9 * std::max(1.0, limit);
  };
  if (lo > hi || !fits(hi, nullptr))
    return failSolve(name, SolveStatus::Infeasible,
                     "no schedule meets the budget and the cost limit", meter);
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (fits(mid, nullptr))
      hi = mid;
    else
      lo = mid + 1;
  }
  fits(lo, &steps);
  SolveResult result =
      finishSolve(graph, options, name, search.toSchedule(steps),
                  SolveStatus::Optimal, meter);
  result.lowerBound = static_cast<double>(result.peakBytes);
  return result;
}
