//===- DeferralTest.cpp - outputs recomputed at the end of the step -------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Algorithms/Deferral.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/SolverSupport.h"
#include "remat/Solver/Algorithms/Solvers.h"

#include "TestGraphs.h"

#include "gtest/gtest.h"

#include <algorithm>

using namespace remat;
using namespace remat::test;

namespace {

/// A late layer's backward as the IR has it: `grad` is one op producing the
/// weight gradient (an output) and the input gradient that the rest of the
/// backward (b1 -> b2 -> dx) reads, 10 bytes in all, from the 1-byte
/// activation `act`. `pad` forward nodes before `act` make the graph too
/// large for the exhaustive solver.
///
/// Without recomputation `grad` is live from b1 to the end, so b1, b2 and
/// grad are live at once: 3 resident + 1 loss + 30 = 34 bytes (33 with the
/// loss computed last). Deferred: grad is freed after b1 and computed again
/// at the end from `act` (held, 1 byte): the peak is 3 + 1 + 1 + 20 = 25 at
/// b1 or b2, and the cost is the checkpoint-all cost plus grad's 10.
struct LateLayer {
  Graph g;
  int act, grad, dx;
  explicit LateLayer(int pad = 0) {
    int x = addNode(g, "x", NodeKind::Input, 1, 0, {});
    int w = addNode(g, "w", NodeKind::Param, 1, 0, {});
    int seed = addNode(g, "seed", NodeKind::Input, 1, 0, {});
    int prev = x;
    for (int i = 0; i < pad; ++i)
      prev =
          addNode(g, "f" + std::to_string(i), NodeKind::Forward, 1, 1, {prev});
    act = addNode(g, "act", NodeKind::Forward, 1, 1, {prev, w});
    int loss = addNode(g, "loss", NodeKind::Forward, 1, 1, {act});
    grad = addNode(g, "grad", NodeKind::Backward, 10, 10, {seed, act, w});
    int b1 = addNode(g, "b1", NodeKind::Backward, 10, 1, {grad});
    int b2 = addNode(g, "b2", NodeKind::Backward, 10, 1, {b1});
    dx = addNode(g, "dx", NodeKind::Backward, 1, 1, {b2});
    g.outputs = {loss, grad, dx};
  }
};

SolveOptions budgetOf(int64_t budget) {
  SolveOptions options;
  options.budget = budget;
  options.timeLimitSeconds = 5;
  options.lastResort = false;
  return options;
}

} // namespace

TEST(DeferralTest, CandidatesWeighSavedAgainstHeldBytes) {
  LateLayer late;
  std::vector<DeferralCandidate> candidates = deferralCandidates(late.g);
  // loss (1 byte, holds act: 1 byte), grad (10, holds act) and dx (1 byte,
  // holds b2: 10 bytes).
  ASSERT_EQ(candidates.size(), 3u);
  const DeferralCandidate &grad = candidates[1];
  EXPECT_EQ(grad.output, late.grad);
  EXPECT_EQ(grad.tail, std::vector<int>{late.grad});
  EXPECT_EQ(grad.savedBytes, 10);
  EXPECT_EQ(grad.heldBytes, 1);
  // Only grad saves more than it holds.
  DeferredGraph deferred = deferOutputs(late.g);
  EXPECT_EQ(deferred.deferred, std::vector<int>{late.grad});
  EXPECT_TRUE(deferred.graph.check().empty());
  ASSERT_EQ(deferred.graph.size(), late.g.size() + 1);
  EXPECT_EQ(deferred.original.back(), late.grad);
  EXPECT_EQ(deferred.graph.outputs[1], late.g.size());
}

TEST(DeferralTest, MeetsABudgetOnlyTheExhaustiveSolverMetBefore) {
  LateLayer late;
  SolveOptions options = budgetOf(30);
  EXPECT_FALSE(solveCheckpointAll(late.g, options).feasible());
  EXPECT_FALSE(solveLocalSearch(late.g, options).feasible());
  SolveResult exact = solveBruteForce(late.g, options);
  ASSERT_TRUE(exact.feasible());
  EXPECT_EQ(exact.cost, checkpointAllCost(late.g) + 10);

  DeferredGraph deferred = deferOutputs(late.g);
  SolveResult onDeferred = solveLocalSearch(deferred.graph, options);
  ASSERT_TRUE(onDeferred.feasible()) << onDeferred.message;
  Simulation sim = simulate(late.g, deferred.mapBack(onDeferred.schedule));
  ASSERT_TRUE(sim.valid()) << sim.error;
  EXPECT_LE(sim.peakBytes, 25);
  EXPECT_EQ(sim.cost, exact.cost);
}

TEST(DeferralTest, PortfolioDefersWhereNoMemberFits) {
  LateLayer late(/*pad=*/24); // too large for the exhaustive solver
  SolveOptions options = budgetOf(30);
  EXPECT_EQ(solveBruteForce(late.g, options).status, SolveStatus::Unsupported);
  SolveResult result = solvePortfolio(late.g, options);
  ASSERT_TRUE(result.feasible()) << result.message;
  EXPECT_NE(result.message.find("1 outputs deferred"), std::string::npos)
      << result.message;
  EXPECT_LE(result.peakBytes, 25);
  EXPECT_EQ(result.cost, checkpointAllCost(late.g) + 10);
  EXPECT_TRUE(simulate(late.g, result.schedule).valid());

  options.deferOutputs = false;
  SolveResult without = solvePortfolio(late.g, options);
  EXPECT_EQ(without.message.find("deferred"), std::string::npos);
}

TEST(DeferralTest, TupleProducersAreRecomputedNotHeld) {
  // A traced graph's form: `tuple` (no bytes) computes both gradients, which
  // its two getitem-like readers own.
  Graph g;
  int x = addNode(g, "x", NodeKind::Input, 1, 0, {});
  int act = addNode(g, "act", NodeKind::Forward, 2, 1, {x});
  int tuple = addNode(g, "tuple", NodeKind::Backward, 0, 10, {act});
  int gi = addNode(g, "gi", NodeKind::Backward, 4, 0, {tuple});
  int gw = addNode(g, "gw", NodeKind::Backward, 8, 0, {tuple});
  int dx = addNode(g, "dx", NodeKind::Backward, 1, 1, {gi});
  g.outputs = {gw, dx};
  DeferredGraph deferred = deferOutputs(g);
  ASSERT_EQ(deferred.deferred, std::vector<int>{gw});
  // Copies of tuple and gw; the copy of gw reads the copy of tuple.
  ASSERT_EQ(deferred.graph.size(), g.size() + 2);
  EXPECT_EQ(deferred.original[g.size()], tuple);
  EXPECT_EQ(deferred.original[g.size() + 1], gw);
  EXPECT_EQ(deferred.graph.nodes.back().deps, std::vector<int>{g.size()});
  // The early gw is dead code; tuple runs twice, gw once, at the end.
  SolveResult all = solveCheckpointAll(deferred.graph, SolveOptions());
  ASSERT_TRUE(all.feasible());
  Schedule mapped = deferred.mapBack(all.schedule);
  Simulation sim = simulate(g, mapped);
  ASSERT_TRUE(sim.valid()) << sim.error;
  EXPECT_EQ(sim.cost, 22); // act 1, tuple 10 twice, dx 1
  std::vector<int> computes;
  for (const Step &step : mapped.steps)
    if (step.kind == Step::Kind::Compute)
      computes.push_back(step.node);
  EXPECT_EQ(std::count(computes.begin(), computes.end(), gw), 1);
  EXPECT_EQ(std::count(computes.begin(), computes.end(), tuple), 2);
  EXPECT_EQ(computes.back(), gw);
}

TEST(DeferralTest, PinnedOutputsStay) {
  LateLayer late;
  late.g.nodes[late.grad].keep = KeepPolicy::Always;
  EXPECT_TRUE(deferOutputs(late.g).deferred.empty());
}

TEST(DeferralTest, ViewOutputsRecomputeTheirBase) {
  // A transposed weight gradient: the output views `prod`, which owns 8
  // bytes computed from a 1-byte activation.
  Graph g;
  int x = addNode(g, "x", NodeKind::Input, 1, 0, {});
  int act = addNode(g, "act", NodeKind::Forward, 1, 1, {x});
  int prod = addNode(g, "prod", NodeKind::Backward, 8, 5, {act});
  int view = addNode(g, "view", NodeKind::Backward, 0, 0, {});
  g.nodes[view].aliasOf = prod;
  g.outputs = {view};
  std::vector<DeferralCandidate> candidates = deferralCandidates(g);
  ASSERT_EQ(candidates.size(), 1u);
  EXPECT_EQ(candidates[0].tail, (std::vector<int>{prod, view}));
  EXPECT_EQ(candidates[0].savedBytes, 8);
  EXPECT_EQ(candidates[0].heldBytes, 1);
  DeferredGraph deferred = deferOutputs(g);
  ASSERT_EQ(deferred.graph.size(), g.size() + 2);
  EXPECT_EQ(deferred.graph.nodes.back().aliasOf, g.size());
  SolveResult all = solveCheckpointAll(deferred.graph, SolveOptions());
  ASSERT_TRUE(all.feasible());
  Simulation sim = simulate(g, deferred.mapBack(all.schedule));
  ASSERT_TRUE(sim.valid()) << sim.error;
  EXPECT_EQ(sim.cost, 6); // the early copies are dead code
}
