//===- RotorTest.cpp - multi-level re-forwarding over block options -------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// `rotor` is also one of the registered solvers SolversTest runs on hundreds
// of random DAGs against the exhaustive solver (and the campaign checks its
// properties); these tests add what its DP is for: budgets below what a
// single level of recomputation reaches, on chains (against revolve, optimal
// there in forward steps) and on ResNets (against the single-level
// hierarchical solver on the same block options).
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Algorithms/Solvers.h"
#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/SolverSupport.h"
#include "remat/Solver/Search/Modes.h"
#include "remat/Solver/Testing/Generators.h"

#include "TestGraphs.h"

#include "gtest/gtest.h"

#include <map>

using namespace remat;
using namespace remat::test;

namespace {

/// The smallest budget `name` meets (remat-solve --mode=min-budget).
int64_t smallestBudget(const Graph &g, const std::string &name) {
  SolveResult r = solveInMode(g, *findSolver(name), Mode::MinBudget, {});
  return r.feasible() ? r.peakBytes : -1;
}

/// The most times the schedule computes one node.
int maxComputes(const Schedule &s) {
  std::map<int, int> count;
  int most = 0;
  for (const Step &step : s.steps)
    if (step.kind == Step::Kind::Compute)
      most = std::max(most, ++count[step.node]);
  return most;
}

} // namespace

// On a uniform chain every block is one node and the DP's space holds
// revolve's schedules (binomial checkpointing, optimal in forward steps on
// such chains): at the peak of revolve's plan with 2 to 4 slots, rotor fits
// and recomputes no more, and its smallest budget is within 5 % of
// revolve's (at the memory floor the model, not the simulator, decides what
// fits: 74 against 71 bytes on 16 layers), re-forwarding some value on three
// levels or more there.
TEST(RotorTest, MatchesRevolveOnChains) {
  for (int n : {16, 32}) {
    Graph g = makeChain(n);
    for (int c = 2; c <= 4; ++c) {
      Schedule revolve =
          scheduleFromComputeOrder(g, bestOrder(g, revolveComputeOrder(g, c)));
      Simulation base = simulate(g, revolve);
      ASSERT_TRUE(base.valid()) << base.error;
      SolveOptions opts;
      opts.budget = base.peakBytes;
      SolveResult r = solveRotor(g, opts);
      std::string what = "n=" + std::to_string(n) + " c=" + std::to_string(c);
      expectVerifiedPlan(g, opts, r, what);
      EXPECT_LE(r.cost, base.cost + 1e-9) << what;
    }
    int64_t least = smallestBudget(g, "revolve");
    SolveOptions opts;
    opts.budget = smallestBudget(g, "rotor");
    EXPECT_LE(opts.budget, least * 1.05) << n;
    SolveResult r = solveRotor(g, opts);
    expectVerifiedPlan(g, opts, r, "n=" + std::to_string(n));
    EXPECT_GE(maxComputes(r.schedule), 3) << n;
  }
}

// On ResNets the blocks are the residual blocks, each with its options; the
// multi-level DP reaches budgets the single-level DP over the same options
// (the hierarchical solver) does not.
TEST(RotorTest, ReachesBelowOneLevelOnResNets) {
  for (int blocks : {4, 8}) {
    Graph g = makeResNet(blocks);
    int64_t rotor = smallestBudget(g, "rotor");
    ASSERT_GT(rotor, 0);
    EXPECT_LT(rotor, smallestBudget(g, "hierarchical")) << blocks;
    EXPECT_GE(rotor, peakLowerBound(g));
  }
}

// Every budget from the checkpoint-all peak down to the smallest it meets:
// verified plans, and less memory never recomputes less.
TEST(RotorTest, BudgetSweepIsVerifiedAndMonotone) {
  Graph g = makeTransformer(4);
  int64_t top = simulate(g, checkpointAllSchedule(g)).peakBytes;
  int64_t low = smallestBudget(g, "rotor");
  ASSERT_GT(low, 0);
  double previous = 0;
  for (int i = 0; i <= 8; ++i) {
    SolveOptions opts;
    opts.budget = top - (top - low) * i / 8;
    SolveResult r = solveRotor(g, opts);
    expectVerifiedPlan(g, opts, r, "budget " + std::to_string(opts.budget));
    EXPECT_GE(r.cost, previous - 1e-9) << opts.budget;
    previous = r.cost;
  }
}
