//===- PlannerTest.cpp - the planning policy, without IR ------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// `plan` (Planner.h) is what `--remat-pipeline` and `remat-solve` both call:
// these tests pin its policy on plain graphs, against the exhaustive solver
// where the claim is optimality.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Search/Planner.h"

#include "remat/Solver/Core/Budget.h"
#include "remat/Solver/Testing/Generators.h"
#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/SolverSupport.h"

#include "TestGraphs.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace remat;
using remat::test::addNode;

namespace {

/// Graphs small enough for the exhaustive solver.
std::vector<Graph> tinyGraphs() {
  GeneratorOptions hetero;
  hetero.heterogeneous = true;
  return {makeFamily("chain", 8, hetero), makeRandomDag(6, 3, hetero),
          makeRandomDag(7, 11)};
}

PlanRequest request(const std::string &solver, const std::string &budget,
                    bool arena = false) {
  PlanRequest r;
  r.solver = solver;
  r.budget = budget;
  r.arena = arena;
  r.solve.effort = 0.05;
  return r;
}

/// The schedule replays within the budget the outcome records.
void expectFits(const Graph &g, const PlanOutcome &out,
                const std::string &what) {
  ASSERT_TRUE(out.succeeded()) << what << ": " << out.reason;
  Simulation sim = simulate(g, out.result.schedule);
  ASSERT_TRUE(sim.valid()) << what << ": " << sim.error;
  EXPECT_LE(sim.peakBytes, out.budget) << what;
  if (out.arena) {
    EXPECT_LE(out.arena->totalBytes, out.budget) << what;
  }
}

// budget=min with the exhaustive solver is the smallest budget of any
// schedule: it plans, and one byte less has no plan, the failure naming
// that same smallest budget.
TEST(PlannerTest, BudgetMinIsTheExactSmallest) {
  for (const Graph &g : tinyGraphs()) {
    PlanOutcome min = plan(g, request("brute-force", "min"));
    expectFits(g, min, g.name);
    BudgetSearch exact =
        findSmallestBudget(g, *findSolver("brute-force"), SolveOptions());
    EXPECT_EQ(min.budget, exact.smallestBudget) << g.name;

    PlanOutcome below =
        plan(g, request("brute-force", std::to_string(min.budget - 1)));
    EXPECT_EQ(below.failure, PlanFailure::NoSchedule) << g.name;
    EXPECT_EQ(below.smallestBudget, min.budget) << g.name;
  }
}

// With a heuristic and with the arena, the budget budget=min names plans
// when asked, its arena within it; and asked below it, the failure names a
// budget that plans.
TEST(PlannerTest, BudgetMinPlansWhenAsked) {
  GeneratorOptions hetero;
  hetero.heterogeneous = true;
  for (const Graph &g : {makeFamily("resnet", 30), makeFamily("unet", 30)}) {
    for (bool arena : {false, true}) {
      std::string what = g.name + (arena ? " arena" : "");
      PlanOutcome min = plan(g, request("local-search", "min", arena));
      expectFits(g, min, what);
      EXPECT_EQ(min.arena.has_value(), arena) << what;
      PlanOutcome at =
          plan(g, request("local-search", std::to_string(min.budget), arena));
      expectFits(g, at, what + " asked at min");

      PlanOutcome below = plan(
          g, request("local-search", std::to_string(min.budget / 2), arena));
      ASSERT_FALSE(below.succeeded()) << what;
      if (below.smallestBudget >= 0) {
        PlanOutcome named = plan(
            g, request("local-search", std::to_string(below.smallestBudget),
                       arena));
        expectFits(g, named, what + " at the budget named");
      }
    }
  }
}

// A percentage is of the reference peak: the checkpoint-all peak, or with
// the arena the larger of it and that order's arena; 100 % always plans.
TEST(PlannerTest, PercentOfReference) {
  Graph g = makeFamily("resnet", 20);
  for (bool arena : {false, true}) {
    PlanOutcome out = plan(g, request("chen-greedy", "80%", arena));
    std::string error;
    std::optional<int64_t> expected =
        parseBudget("80%", out.baseline.reference(), error);
    ASSERT_TRUE(expected);
    EXPECT_EQ(out.budget, *expected);
    EXPECT_GE(out.baseline.reference(), out.baseline.checkpointAll.peakBytes);
    expectFits(g, plan(g, request("chen-greedy", "100%", arena)),
               arena ? "100% arena" : "100%");
  }
}

// The exhaustive solver's plan at a budget is the optimum: the planner
// returns its cost, and the trivial bound on min-compute's objective.
TEST(PlannerTest, MatchesTheExhaustiveSolver) {
  for (const Graph &g : tinyGraphs()) {
    int64_t peak = simulate(g, checkpointAllSchedule(g)).peakBytes;
    PlanOutcome min = plan(g, request("brute-force", "min"));
    ASSERT_TRUE(min.succeeded());
    int64_t budget = (peak + min.budget) / 2;
    PlanOutcome out = plan(g, request("brute-force", std::to_string(budget)));
    expectFits(g, out, g.name);
    SolveOptions options;
    options.budget = budget;
    SolveResult exact = solveInMode(g, *findSolver("brute-force"),
                                    Mode::MinCompute, options);
    EXPECT_DOUBLE_EQ(out.result.cost, exact.cost) << g.name;
    PlanOutcome heuristic =
        plan(g, request("chen-greedy", std::to_string(budget)));
    if (heuristic.succeeded()) {
      EXPECT_GE(heuristic.result.cost, exact.cost) << g.name;
      EXPECT_GE(heuristic.result.lowerBound, checkpointAllCost(g)) << g.name;
    }
  }
}

// Requests the planner refuses, each with its kind.
TEST(PlannerTest, BadRequests) {
  Graph g = makeFamily("chain", 10);
  EXPECT_EQ(plan(g, request("chen-greedy", "lots")).failure,
            PlanFailure::BadRequest);
  EXPECT_EQ(plan(g, request("no-such-solver", "")).failure,
            PlanFailure::BadRequest);
  PlanRequest minPeak = request("chen-greedy", "min");
  minPeak.mode = Mode::MinPeak;
  EXPECT_EQ(plan(g, minPeak).failure, PlanFailure::BadRequest);
  PlanRequest batch = request("chen-greedy", "");
  batch.mode = Mode::MaxBatch;
  EXPECT_EQ(plan(g, batch).failure, PlanFailure::BadRequest);
  PlanRequest pareto = request("chen-greedy", "");
  pareto.mode = Mode::Pareto;
  EXPECT_EQ(plan(g, pareto).failure, PlanFailure::BadRequest);
}

/// A step with a sharded parameter: w (the shard) is gathered into g, which
/// the forward reads; the backward reads g again, so keeping it (memory)
/// and gathering it again (compute) compete. Ids: x 0, w 1, g 2, h 3,
/// loss 4, dh 5, dw 6.
Graph gatherGraph(double gatherCost) {
  Graph g;
  int x = addNode(g, "x", NodeKind::Input, 4, 0, {});
  int w = addNode(g, "w", NodeKind::Param, 2, 0, {});
  int gathered = addNode(g, "g", NodeKind::Forward, 8, gatherCost, {w});
  g.nodes[gathered].gather = GatherRole::Gather;
  int h = addNode(g, "h", NodeKind::Forward, 4, 10, {x, gathered});
  int loss = addNode(g, "loss", NodeKind::Forward, 1, 1, {h});
  int dh = addNode(g, "dh", NodeKind::Backward, 4, 10, {loss, gathered});
  int dw = addNode(g, "dw", NodeKind::Backward, 2, 10, {dh, x});
  g.outputs = {loss, dw};
  return g;
}

// With unpinned gathers the planner's answer is never dearer than either
// fixed policy's plan at the same budget.
TEST(PlannerTest, NeverDearerThanAFixedGatherPolicy) {
  for (double gatherCost : {1.0, 100.0}) {
    Graph g = gatherGraph(gatherCost);
    ASSERT_TRUE(hasUnpinnedGathers(g));
    int64_t peak = simulate(g, checkpointAllSchedule(g)).peakBytes;
    for (int64_t budget = peak; budget > 0; --budget) {
      PlanOutcome out = plan(g, request("chen-greedy", std::to_string(budget)));
      for (GatherPolicy policy : {GatherPolicy::Keep, GatherPolicy::Regather}) {
        Graph pinned = g;
        applyGatherPolicy(policy, pinned);
        SolveOptions options;
        options.budget = budget;
        SolveResult fixed = solveInMode(pinned, *findSolver("chen-greedy"),
                                        Mode::MinCompute, options);
        if (!fixed.feasible())
          continue;
        ASSERT_TRUE(out.succeeded()) << "budget " << budget;
        EXPECT_LE(out.result.cost, fixed.cost) << "budget " << budget;
      }
    }
  }
}

} // namespace
