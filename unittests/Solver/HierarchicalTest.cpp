//===- HierarchicalTest.cpp - the block-decomposition solver --------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// `hierarchical` is also one of the registered solvers SolversTest runs on
// hundreds of random DAGs against the exhaustive solver; these tests add
// generated chains and ResNets, the exhaustive optimum on chains, and scale.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Testing/Generators.h"
#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/SolverSupport.h"
#include "remat/Solver/Algorithms/Solvers.h"

#include "TestGraphs.h"

#include "gtest/gtest.h"

using namespace remat;
using namespace remat::test;

namespace {

/// Budgets from the checkpoint-all peak down to the peak lower bound.
std::vector<int64_t> budgetLadder(const Graph &g) {
  int64_t top = simulate(g, checkpointAllSchedule(g)).peakBytes;
  int64_t lo = peakLowerBound(g);
  std::vector<int64_t> budgets;
  for (int step = 0; step <= 4; ++step)
    budgets.push_back(top - (top - lo) * step / 4);
  return budgets;
}

// Small chains and ResNets (with and without parameters, heterogeneous
// sizes): every answer is verified and never cheaper than the exact optimum.
TEST(HierarchicalTest, GeneratedGraphsAgainstBruteForce) {
  int compared = 0;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    GeneratorOptions o = unitOptions();
    o.heterogeneous = seed % 2 == 0;
    o.seed = seed;
    o.params = seed % 3 == 0;
    Graph g =
        seed % 4 < 2 ? makeChain(3 + seed % 5, o) : makeResNet(1 + seed % 2, o);
    for (int64_t budget : budgetLadder(g)) {
      SolveOptions opts;
      opts.budget = budget;
      SolveResult exact = solveBruteForce(g, opts);
      if (exact.status == SolveStatus::Unsupported)
        break; // over 20 nodes with parameters
      SolveResult r = solveHierarchical(g, opts);
      std::string what = g.name + " budget " + std::to_string(budget);
      if (!r.feasible())
        continue;
      expectVerifiedPlan(g, opts, r, what);
      ASSERT_TRUE(exact.feasible()) << what << " beat the exact solver";
      EXPECT_GE(r.cost, exact.cost - 1e-9) << what;
      ++compared;
    }
  }
  EXPECT_GT(compared, 20);
}

// On unit chains without parameters the block DP reaches the exhaustive
// optimum at the checkpoint-all peak (nothing recomputed) and one byte
// below it (one value recomputed: the cheapest choice is a single node).
TEST(HierarchicalTest, MatchesTheOptimumOnChains) {
  for (int layers : {4, 6, 8}) {
    Graph g = makeChain(layers, unitOptions());
    int64_t top = simulate(g, checkpointAllSchedule(g)).peakBytes;
    for (int64_t budget : {top, top - 1}) {
      SolveOptions opts;
      opts.budget = budget;
      SolveResult exact = solveBruteForce(g, opts);
      ASSERT_TRUE(exact.feasible()) << g.name << ": " << exact.message;
      SolveResult r = solveHierarchical(g, opts);
      expectVerifiedPlan(g, opts, r, g.name);
      EXPECT_DOUBLE_EQ(r.cost, exact.cost) << g.name << " budget " << budget;
    }
  }
}

// Min peak under one extra forward pass: verified, within the cost limit,
// and saving memory on a long chain (Chen's regime).
TEST(HierarchicalTest, MinPeakOnALongChain) {
  Graph g = makeChain(400, unitOptions());
  SolveOptions opts;
  opts.objective = Objective::MinPeakUnderOverhead;
  SolveResult r = solveHierarchical(g, opts);
  expectVerifiedPlan(g, opts, r, g.name);
  EXPECT_LE(r.cost, costLimit(g, opts) + 1e-9);
  EXPECT_LT(r.peakBytes, simulate(g, checkpointAllSchedule(g)).peakBytes / 2);
}

// Thousands of nodes within seconds, every family verified at 60 % of the
// checkpoint-all peak (the budget every family here can meet).
TEST(HierarchicalTest, ScalesToGeneratedFamilies) {
  for (const char *family : {"chain", "resnet", "transformer"}) {
    Graph g = makeFamily(family, 2000);
    SolveOptions opts;
    opts.budget = simulate(g, checkpointAllSchedule(g)).peakBytes * 6 / 10;
    SolveResult r = solveHierarchical(g, opts);
    expectVerifiedPlan(g, opts, r, family);
    EXPECT_LT(r.seconds, 10) << family;
  }
}

} // namespace
