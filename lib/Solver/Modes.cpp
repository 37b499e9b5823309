//===- Modes.cpp - what to ask of a solver --------------------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Modes.h"

#include "remat/Solver/ScheduleBuilder.h"
#include "remat/Solver/Simulator.h"
#include "remat/Solver/SolverSupport.h"

#include <algorithm>

using namespace remat;

const char *remat::toString(Mode mode) {
  switch (mode) {
  case Mode::MinCompute:
    return "min-compute";
  case Mode::MinPeak:
    return "min-peak";
  case Mode::MinBudget:
    return "min-budget";
  case Mode::MaxBatch:
    return "max-batch";
  }
  return "unknown";
}

bool remat::parseMode(const std::string &name, Mode &mode) {
  for (Mode m :
       {Mode::MinCompute, Mode::MinPeak, Mode::MinBudget, Mode::MaxBatch})
    if (name == toString(m)) {
      mode = m;
      return true;
    }
  return false;
}

Graph remat::scaleBatch(const Graph &graph, int64_t batch) {
  Graph scaled = graph;
  for (Node &node : scaled.nodes)
    if (node.kind != NodeKind::Param)
      node.bytes *= batch;
  return scaled;
}

BudgetSearch remat::findSmallestBudget(const Graph &graph,
                                       const SolverInfo &solver,
                                       const SolveOptions &options) {
  BudgetSearch search;
  SolveOptions probe = options;
  probe.objective = Objective::MinComputeUnderBudget;
  search.lowerBound = peakLowerBound(graph);
  int64_t lo = search.lowerBound;
  int64_t hi = simulate(graph, checkpointAllSchedule(graph)).peakBytes;
  hi = std::max(hi, lo);
  auto run = [&](int64_t budget) {
    probe.budget = budget;
    SolveResult result = solver.solve(graph, probe);
    ++search.probes;
    if (result.feasible() &&
        (!search.best.feasible() || result.peakBytes < search.best.peakBytes ||
         (result.peakBytes == search.best.peakBytes &&
          result.cost < search.best.cost)))
      search.best = result;
    else if (!search.best.feasible() && search.probes == 1)
      search.best = result;
    return result;
  };
  // The top of the range: checkpoint-all's peak fits every sane solver.
  SolveResult top = run(hi);
  if (!top.feasible())
    return search;
  hi = top.peakBytes;
  while (lo < hi && hi - lo > std::max<int64_t>(1, hi / 1000)) {
    int64_t mid = lo + (hi - lo) / 2;
    SolveResult result = run(mid);
    if (result.feasible())
      hi = std::min(mid, result.peakBytes);
    else
      lo = mid + 1;
  }
  if (lo < hi && hi - lo <= std::max<int64_t>(1, hi / 1000) && lo != hi)
    run(lo);
  if (search.best.feasible())
    search.smallestBudget = search.best.peakBytes;
  if (solver.exact && search.best.feasible())
    search.lowerBound =
        std::max(search.lowerBound, std::min(lo, search.smallestBudget));
  return search;
}

BatchSearch remat::findMaxBatch(const Graph &graph, const SolverInfo &solver,
                                const SolveOptions &options, int64_t maxBatch) {
  BatchSearch search;
  SolveOptions probe = options;
  probe.objective = Objective::MinComputeUnderBudget;
  auto fits = [&](int64_t batch, SolveResult &out) {
    ++search.probes;
    out = solver.solve(scaleBatch(graph, batch), probe);
    return out.feasible();
  };
  SolveResult result;
  if (!fits(1, result)) {
    search.result = result;
    return search;
  }
  search.batch = 1;
  search.result = result;
  int64_t lo = 1, hi = -1; // lo fits; hi (when set) does not
  while (hi < 0) {
    int64_t next = std::min(maxBatch, lo * 2);
    if (next == lo)
      return search;
    if (fits(next, result)) {
      lo = next;
      search.batch = lo;
      search.result = result;
    } else {
      hi = next;
    }
  }
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    if (fits(mid, result)) {
      lo = mid;
      search.batch = lo;
      search.result = result;
    } else {
      hi = mid;
    }
  }
  return search;
}

SolveResult remat::solveInMode(const Graph &graph, const SolverInfo &solver,
                               Mode mode, const SolveOptions &options) {
  SolveOptions opts = options;
  switch (mode) {
  case Mode::MinCompute:
    opts.objective = Objective::MinComputeUnderBudget;
    return solver.solve(graph, opts);
  case Mode::MinPeak:
    opts.objective = Objective::MinPeakUnderOverhead;
    return solver.solve(graph, opts);
  case Mode::MinBudget: {
    BudgetSearch search = findSmallestBudget(graph, solver, opts);
    SolveResult result = search.best;
    result.lowerBound = static_cast<double>(search.lowerBound);
    return result;
  }
  case Mode::MaxBatch:
    return findMaxBatch(graph, solver, opts).result;
  }
  return {};
}
