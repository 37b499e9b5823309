//===- CostBoundTest.cpp - the lower bound on compute within a budget -----===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Core/CostBound.h"
#include "remat/Solver/Algorithms/Solvers.h"
#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/SolverSupport.h"
#include "remat/Solver/Testing/Generators.h"

#include "gtest/gtest.h"

using namespace remat;

namespace {

/// `g` with one forward node that reads a single forward node turned into a
/// view of it (no storage, no cost), when there is one: views hold their
/// base's storage, which the bound must count.
Graph withView(Graph g) {
  for (int id = 0; id < g.size(); ++id) {
    Node &node = g.nodes[id];
    if (node.kind != NodeKind::Forward || node.deps.size() != 1 ||
        g.nodes[node.deps[0]].kind != NodeKind::Forward)
      continue;
    node.aliasOf = node.deps[0];
    node.bytes = 0;
    node.cost = 0;
    break;
  }
  return g;
}

/// Budgets from the peak lower bound to the checkpoint-all peak.
std::vector<int64_t> budgets(const Graph &g) {
  int64_t low = peakLowerBound(g);
  int64_t top = simulate(g, checkpointAllSchedule(g)).peakBytes;
  std::vector<int64_t> result;
  for (int step = 0; step <= 4; ++step)
    result.push_back(low + (top - low) * step / 4);
  return result;
}

/// Random heterogeneous DAGs of five forward nodes, seeds 1 to `count`;
/// every third with a view (`withView`).
std::vector<Graph> randomGraphs(uint64_t count) {
  GeneratorOptions opts;
  opts.params = false;
  opts.heterogeneous = true;
  std::vector<Graph> graphs;
  for (uint64_t seed = 1; seed <= count; ++seed) {
    opts.seed = seed;
    Graph g = makeRandomDag(5, seed, opts);
    graphs.push_back(seed % 3 == 0 ? withView(std::move(g)) : std::move(g));
  }
  return graphs;
}

} // namespace

// The bound is a bound: never above the least cost the exhaustive solver
// finds within the budget. It also proves recompute (more than the
// checkpoint-all cost) on a good share of the tight budgets, or it would say
// nothing.
TEST(CostBoundTest, NeverAboveTheExhaustiveOptimum) {
  int compared = 0, proven = 0;
  for (const Graph &g : randomGraphs(59)) {
    ASSERT_EQ(g.check(), "");
    for (int64_t budget : budgets(g)) {
      SolveOptions options;
      options.budget = budget;
      SolveResult exact = solveBruteForce(g, options);
      if (!exact.feasible())
        continue;
      CostBound bound = costBoundAtBudget(g, budget);
      ++compared;
      EXPECT_LE(bound.cost, exact.cost * (1 + 1e-9) + 1e-9)
          << g.name << " at " << budget;
      EXPECT_GE(bound.cost, checkpointAllCost(g) - 1e-9) << g.name;
      if (bound.recompute > 0)
        ++proven;
    }
  }
  EXPECT_GE(compared, 100);
  EXPECT_GE(proven, compared / 10);
}

// On a chain at the least budget the exhaustive solver meets, the bound
// proves recompute, and at the checkpoint-all peak it proves none.
TEST(CostBoundTest, ChainAtItsLeastBudget) {
  GeneratorOptions opts;
  opts.params = false;
  Graph g = makeChain(6, opts);
  SolveOptions options;
  options.budget = peakLowerBound(g);
  SolveResult exact = solveBruteForce(g, options);
  while (!exact.feasible()) {
    options.budget += 1;
    exact = solveBruteForce(g, options);
  }
  CostBound tight = costBoundAtBudget(g, options.budget);
  EXPECT_GT(tight.recompute, 0);
  EXPECT_GE(tight.node, 0);
  EXPECT_LE(tight.cost, exact.cost + 1e-9);
  int64_t top = simulate(g, checkpointAllSchedule(g)).peakBytes;
  EXPECT_EQ(costBoundAtBudget(g, top).recompute, 0);
}

// The peak bound within a cost limit is a bound: never above the least
// peak the exhaustive solver finds within that limit, and above the peak
// lower bound on some of the tight limits.
TEST(CostBoundTest, PeakWithinCostNeverAboveTheExhaustiveOptimum) {
  int compared = 0, raised = 0;
  for (const Graph &g : randomGraphs(39)) {
    int64_t top = simulate(g, checkpointAllSchedule(g)).peakBytes;
    for (double overhead : {0.0, 0.1, 0.3}) {
      SolveOptions options;
      options.objective = Objective::MinPeakUnderOverhead;
      options.maxOverhead = overhead;
      options.budget = top;
      SolveResult exact = solveBruteForce(g, options);
      if (!exact.feasible())
        continue;
      ++compared;
      int64_t bound = peakBoundWithinCost(g, costLimit(g, options), top);
      EXPECT_LE(bound, exact.peakBytes) << g.name << " at " << overhead;
      if (bound > peakLowerBound(g))
        ++raised;
    }
  }
  EXPECT_GE(compared, 60);
  EXPECT_GE(raised, compared / 10);
}

// The bound does not depend on the cost unit: costs scaled by 1e-6 or 1e6
// scale the proven recompute alike.
TEST(CostBoundTest, IndependentOfTheCostUnit) {
  GeneratorOptions opts;
  opts.heterogeneous = true;
  Graph g = makeTransformer(4, opts);
  int64_t low = peakLowerBound(g);
  int64_t top = simulate(g, checkpointAllSchedule(g)).peakBytes;
  int64_t budget = low + (top - low) / 4;
  double recompute = costBoundAtBudget(g, budget).recompute;
  ASSERT_GT(recompute, 0);
  for (double scale : {1e-6, 1e6}) {
    Graph scaled = g;
    for (Node &node : scaled.nodes)
      node.cost *= scale;
    EXPECT_NEAR(costBoundAtBudget(scaled, budget).recompute / scale, recompute,
                1e-6 * recompute)
        << scale;
  }
}
