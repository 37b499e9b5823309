//===- EffectOrderTest.cpp - ordering edges of ops with memory effects ----===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "TestGraphs.h"

#include "remat/Solver/IO/GraphJSON.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/Solver.h"

#include "gtest/gtest.h"

using namespace remat;
using namespace remat::test;

namespace {

/// Two opaque calls (pinned, computed once) in program order k1, k2: k1's
/// big result `a` is read only at the end, so computing it after k2's small
/// one and the 32 KiB temporary it feeds would lower the peak from 65,552
/// to 49,168 bytes. The ordering edge k2 -> k1 forbids that.
/// Ids: x 0, a 1, b 2, big 3, loss 4, g 5.
Graph twoCallsGraph() {
  Graph g;
  g.name = "two-calls";
  int x = addNode(g, "x", NodeKind::Input, 16384, 0, {});
  int a = addNode(g, "k1", NodeKind::Forward, 16384, 1000, {x});
  int b = addNode(g, "k2", NodeKind::Forward, 16, 1000, {x});
  int big = addNode(g, "big", NodeKind::Forward, 32768, 8192, {b});
  int loss = addNode(g, "loss", NodeKind::Forward, 4, 8192, {big});
  int out = addNode(g, "g", NodeKind::Forward, 16384, 4096, {a, x});
  g.nodes[a].keep = KeepPolicy::Always;
  g.nodes[b].keep = KeepPolicy::Always;
  g.nodes[b].after = {a};
  g.outputs = {loss, out};
  return g;
}

constexpr int64_t kOrderedPeak = 16384 + 16384 + 16 + 32768;
constexpr int64_t kReorderedPeak = 16384 + 16 + 32768;

/// The first compute step of `node` in `schedule`, or -1.
int firstCompute(const Schedule &schedule, int node) {
  for (size_t i = 0; i < schedule.steps.size(); ++i)
    if (schedule.steps[i] == Step::compute(node))
      return static_cast<int>(i);
  return -1;
}

TEST(EffectOrderTest, CheckRejectsAnEdgeThatDoesNotPointBack) {
  Graph forwardEdge = twoCallsGraph();
  forwardEdge.nodes[1].after = {2};
  EXPECT_EQ(forwardEdge.check(),
            "node 1 ('k1') comes after node 2, which is not an earlier node: "
            "ordering edges point backwards");
  Graph fromInput = twoCallsGraph();
  fromInput.nodes[2].after = {0};
  EXPECT_EQ(fromInput.check(),
            "node 2 ('k2') comes after node 0 ('x'): ordering edges join "
            "computed nodes, not inputs or params");
}

TEST(EffectOrderTest, SimulatorRejectsAScheduleThatBreaksTheOrder) {
  Graph g = twoCallsGraph();
  ASSERT_EQ(g.check(), "");
  Schedule reordered = scheduleFromComputeOrder(g, {2, 3, 4, 1, 5});
  Simulation sim = simulate(g, reordered);
  EXPECT_EQ(sim.error, "step 0 (compute 2 'k2'): breaks the effect order: "
                       "node 1 'k1' must be computed first");
  // Without the edge the same schedule is valid, and lower.
  g.nodes[2].after.clear();
  sim = simulate(g, reordered);
  ASSERT_TRUE(sim.valid()) << sim.error;
  EXPECT_EQ(sim.peakBytes, kReorderedPeak);
}

TEST(EffectOrderTest, OrderingEdgeKeepsNothingLive) {
  Graph g = twoCallsGraph();
  // k1 is freed before k2 runs: only the order matters, not liveness.
  g.outputs = {4};
  g.nodes[5].deps = {0};
  Schedule schedule{{Step::compute(1), Step::free(1), Step::compute(2),
                     Step::compute(3), Step::free(2), Step::compute(4),
                     Step::free(3)}};
  Simulation sim = simulate(g, schedule);
  EXPECT_TRUE(sim.valid()) << sim.error;
}

TEST(EffectOrderTest, GraphJSONCarriesTheEdges) {
  Graph g = twoCallsGraph();
  std::string text = printGraphJSON(g);
  Graph parsed;
  std::string error;
  ASSERT_TRUE(parseGraphJSON(text, parsed, error)) << error;
  EXPECT_EQ(parsed.nodes[2].after, std::vector<int>{1});
  EXPECT_EQ(describeMismatch(fingerprintGraph(g), fingerprintGraph(parsed)),
            "");
  Graph unordered = g;
  unordered.nodes[2].after.clear();
  EXPECT_EQ(describeMismatch(fingerprintGraph(g), fingerprintGraph(unordered)),
            "the structure (node kinds, dependencies, ordering edges, views, "
            "pins or outputs)");

  Graph later = g;
  later.nodes[2].after = {4};
  EXPECT_FALSE(parseGraphJSON(printGraphJSON(later), parsed, error));
  EXPECT_NE(error.find("nodes[2].after[0]"), std::string::npos) << error;
  EXPECT_NE(error.find("ordering edge on node 4, which is not earlier"),
            std::string::npos)
      << error;
}

// Every registered solver, at the ordered peak and below it: each feasible
// answer keeps k1 before k2 (the simulator checks it), so none is below the
// ordered peak, and the budget only a reordering meets is not met. Without
// the edge the graph does allow the lower peak, so the edge is what holds
// the solvers back.
TEST(EffectOrderTest, EverySolverKeepsTheOrder) {
  Graph g = twoCallsGraph();
  ASSERT_EQ(g.check(), "");
  int feasible = 0;
  for (const SolverInfo &info : allSolvers()) {
    for (int64_t budget : {kOrderedPeak, kReorderedPeak}) {
      SolveOptions options;
      options.budget = budget;
      options.timeLimitSeconds = 20;
      SolveResult result = info.solve(g, options);
      std::string what = info.name + " at " + std::to_string(budget);
      if (!result.feasible())
        continue;
      ++feasible;
      Simulation sim = simulate(g, result.schedule);
      ASSERT_TRUE(sim.valid()) << what << ": " << sim.error;
      EXPECT_EQ(sim.peakBytes, kOrderedPeak) << what;
      EXPECT_LT(firstCompute(result.schedule, 1),
                firstCompute(result.schedule, 2))
          << what;
    }
  }
  // Checkpoint-all, the portfolio and most heuristics meet the ordered peak.
  EXPECT_GE(feasible, 8);
  Graph unordered = g;
  unordered.nodes[2].after.clear();
  SolveOptions options;
  options.budget = kReorderedPeak;
  SolveResult result = findSolver("auto")->solve(unordered, options);
  ASSERT_TRUE(result.feasible()) << result.message;
  EXPECT_EQ(simulate(unordered, result.schedule).peakBytes, kReorderedPeak);
}

} // namespace
