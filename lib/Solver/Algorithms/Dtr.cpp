//===- Dtr.cpp - DTR-style eviction simulated offline ---------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Our second solver: Dynamic Tensor Rematerialization (Kirisame et al.,
// 2021) run offline on the static graph. The nodes are computed in
// topological order under a memory limit; a value is freed once no later
// node reads it; when computing a node would exceed the limit, live forward
// values are evicted in increasing order of
//   h(t) = (cost(t) + cost of t's evicted forward operands) /
//          (bytes(t) * staleness(t)),
// staleness being the time since t was last read; an evicted (or freed)
// value that is needed again is recomputed, recursively. The operands of
// the node being computed and the graph outputs are never evicted. The
// compute order goes through the shared builder (which frees every copy at
// its last read, never later than DTR did), and the simulator verifies it.
//
// MinComputeUnderBudget runs it once at the budget; MinPeakUnderOverhead
// bisects the limit for the smallest peak within the cost limit. Fails
// (Infeasible) when the operands of some node plus the outputs alone exceed
// the limit, or when evictions cannot bring the peak under it.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Core/Ordering.h"
#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/SolverSupport.h"
#include "remat/Solver/Algorithms/Solvers.h"

#include <algorithm>
#include <limits>

using namespace remat;

namespace {
class DtrRun {
public:
  DtrRun(const Graph &graph) : graph(graph), n(graph.size()) {
    needed = neededNodes(graph);
    isOutput = graph.outputMask();
    reads.resize(n);
    for (int id = 0; id < n; ++id) {
      for (int dep : graph.nodes[id].deps)
        reads[id].push_back(dep);
      if (graph.nodes[id].isView())
        reads[id].push_back(graph.nodes[id].aliasOf);
    }
    root.resize(n);
    for (int id = 0; id < n; ++id)
      root[id] = graph.storageOf(id);
  }

  std::vector<int> run(int64_t limit) {
    this->limit = limit - graph.residentBytes();
    live.assign(n, 0);
    locked.assign(n, 0);
    holders.assign(n, 0);
    lastAccess.assign(n, 0);
    remaining.assign(n, 0);
    order.clear();
    liveList.clear();
    memory = 0;
    now = 1;
    aborted = false;
    scanned = 0;
    for (int id = 0; id < n; ++id)
      if (needed[id])
        for (int dep : reads[id])
          ++remaining[dep];
    for (int id = 0; id < n; ++id) {
      if (!needed[id] || graph.nodes[id].isResident())
        continue;
      if (!live[id])
        compute(id);
      if (aborted)
        return {};
      for (int dep : reads[id])
        if (--remaining[dep] == 0 && !isOutput[dep] && live[dep])
          drop(dep);
      if (remaining[id] == 0 && !isOutput[id])
        drop(id);
    }
    return order;
  }

private:
  const Graph &graph;
  const int n;
  std::vector<char> needed, isOutput, live, locked;
  std::vector<std::vector<int>> reads;
  std::vector<int> root, holders, remaining;
  std::vector<int64_t> lastAccess;
  std::vector<int> order, liveList;
  int64_t limit = 0, memory = 0, now = 1;

public:
  /// Set when the run gave up (thrashing); its order is then empty.
  bool aborted = false;
  /// Live values the evictions of the last run looked at (its work
  /// besides the order it returns).
  int64_t scanned = 0;

private:
  bool resident(int id) const { return graph.nodes[id].isResident(); }

  void hold(int id) {
    live[id] = 1;
    liveList.push_back(id);
    int r = root[id];
    if (!resident(r) && holders[r]++ == 0)
      memory += graph.nodes[r].bytes;
  }

  void drop(int id) {
    live[id] = 0;
    int r = root[id];
    if (!resident(r) && --holders[r] == 0)
      memory -= graph.nodes[r].bytes;
  }

  /// Bytes evicting `id` would release now.
  int64_t releases(int id) const {
    int r = root[id];
    return !resident(r) && holders[r] == 1 ? graph.nodes[r].bytes : 0;
  }

  bool evictOne() {
    int victim = -1;
    double best = std::numeric_limits<double>::infinity();
    size_t keep = 0;
    scanned += liveList.size();
    for (size_t i = 0; i < liveList.size(); ++i) {
      int id = liveList[i];
      if (!live[id])
        continue; // compact the list as we go
      liveList[keep++] = id;
      const Node &node = graph.nodes[id];
      if (locked[id] || isOutput[id] || node.kind != NodeKind::Forward ||
          node.keep == KeepPolicy::Always)
        continue;
      int64_t bytes = releases(id);
      if (bytes <= 0)
        continue;
      double cost = node.cost;
      for (int dep : reads[id])
        if (!live[dep] && graph.nodes[dep].kind == NodeKind::Forward)
          cost += graph.nodes[dep].cost;
      double staleness = static_cast<double>(now - lastAccess[id]) + 1;
      double h = (cost + 1e-9) / (static_cast<double>(bytes) * staleness);
      if (h < best) {
        best = h;
        victim = id;
      }
    }
    liveList.resize(keep);
    if (victim < 0)
      return false;
    drop(victim);
    return true;
  }

  void compute(int id) {
    // Thrashing (recomputations that evict each other's operands) can grow
    // without bound; past 64 computations per node the run gives up.
    if (aborted || order.size() > 64 * static_cast<size_t>(n) + 64) {
      aborted = true;
      return;
    }
    // Lock each operand once it is live, so that recomputing the next one
    // cannot evict it.
    for (int dep : reads[id]) {
      if (!live[dep] && !resident(dep))
        compute(dep);
      ++locked[dep];
    }
    int64_t need = graph.nodes[id].isView() ? 0 : graph.nodes[id].bytes;
    while (memory + need > limit && evictOne()) {
    }
    order.push_back(id);
    hold(id);
    lastAccess[id] = now;
    for (int dep : reads[id]) {
      --locked[dep];
      lastAccess[dep] = now;
    }
    ++now;
  }
};
} // namespace

SolveResult remat::solveDtr(const Graph &graph, const SolveOptions &options) {
  WorkMeter meter(options);
  const char *name = "dtr";
  DtrRun dtr(graph);
  // Evictions keep the given order under the limit; the builder's
  // reordering (same cost) may then lower the peak further.
  auto evaluate = [&](int64_t limit, Schedule &schedule) {
    schedule =
        scheduleFromComputeOrder(graph, bestOrder(graph, dtr.run(limit)));
    // A look at a live value is about a quarter of a step's simulation.
    meter.charge(orderWork(OrderPolicy::Best, schedule.steps.size()) +
                 dtr.scanned / 4);
    return simulate(graph, schedule);
  };
  Schedule schedule;
  if (options.objective == Objective::MinComputeUnderBudget) {
    int64_t top = options.budget;
    int64_t all = simulate(graph, checkpointAllSchedule(graph)).peakBytes;
    evaluate(std::min(top, all), schedule);
    if (dtr.aborted)
      return failSolve(name, SolveStatus::Infeasible,
                       "evictions thrash under this budget", meter);
    return finishSolve(graph, options, name, std::move(schedule),
                       SolveStatus::Feasible, meter);
  }
  // MinPeakUnderOverhead: the smallest limit whose schedule stays within
  // the cost limit.
  double costMax = costLimit(graph, options);
  int64_t lo = peakLowerBound(graph);
  int64_t hi = std::min(
      options.budget, simulate(graph, checkpointAllSchedule(graph)).peakBytes);
  Schedule best;
  Simulation bestSim = evaluate(hi, best);
  while (lo < hi && !meter.exhausted()) {
    int64_t mid = lo + (hi - lo) / 2;
    Schedule trial;
    Simulation sim = evaluate(mid, trial);
    if (!dtr.aborted && sim.valid() &&
        sim.cost <= costMax + 1e-9 * std::max(1.0, costMax) &&
        sim.peakBytes <= mid) {
      hi = std::min(mid, sim.peakBytes);
      if (sim.peakBytes < bestSim.peakBytes ||
          (sim.peakBytes == bestSim.peakBytes && sim.cost < bestSim.cost)) {
        best = std::move(trial);
        bestSim = sim;
      }
    } else {
      lo = mid + 1;
    }
  }
  return finishSolve(graph, options, name, std::move(best),
                     SolveStatus::Feasible, meter);
}
