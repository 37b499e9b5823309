//===- BlocksTest.cpp - repeated blocks and the baseline policies ---------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Blocks found on generated transformers (with and without module paths),
// their hashes, the full-ac and selective policies verified by the
// simulator, and the property that `auto` never answers worse than a policy
// that fits the same budget.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Algorithms/Blocks.h"
#include "remat/Solver/Testing/Generators.h"
#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/SolverSupport.h"
#include "remat/Solver/Algorithms/Solvers.h"

#include "gtest/gtest.h"

using namespace remat;

namespace {

Graph withoutModules(Graph g) {
  for (Node &node : g.nodes)
    node.module.clear();
  return g;
}

int nodeNamed(const Graph &g, const std::string &name) {
  for (int id = 0; id < g.size(); ++id)
    if (g.nodes[id].name == name)
      return id;
  return -1;
}

TEST(BlocksTest, IdenticalLayersAreOneBlockEach) {
  Graph g = makeTransformer(5);
  for (bool modules : {true, false}) {
    std::vector<Block> blocks = findBlocks(g, modules);
    ASSERT_EQ(blocks.size(), 5u) << "modules " << modules;
    EXPECT_EQ(distinctBlocks(blocks), 1);
    for (int i = 0; i < 5; ++i) {
      std::string s = std::to_string(i);
      EXPECT_EQ(blocks[i].nodes.front(), nodeNamed(g, "ln1_" + s));
      EXPECT_EQ(blocks[i].nodes.back(), nodeNamed(g, "res2_" + s));
      EXPECT_EQ(blocks[i].input, i ? nodeNamed(g, "res2_" + std::to_string(
                                                          i - 1))
                                   : nodeNamed(g, "embed"));
    }
  }
  // Without the paths in the graph at all, the same blocks.
  std::vector<Block> a = findBlocks(g), b = findBlocks(withoutModules(g));
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(a[i].nodes, b[i].nodes);
}

TEST(BlocksTest, ADifferentLayerHashesApart) {
  Graph g = makeTransformer(4);
  g.nodes[nodeNamed(g, "gelu2")].cost *= 2;
  std::vector<Block> blocks = findBlocks(g);
  ASSERT_EQ(blocks.size(), 4u);
  EXPECT_EQ(distinctBlocks(blocks), 2);
  EXPECT_NE(blocks[2].hash, blocks[1].hash);
  EXPECT_EQ(blocks[3].hash, blocks[0].hash);
  // An edge changed inside a block changes its hash too.
  Graph h = makeTransformer(4);
  Node &probs = h.nodes[nodeNamed(h, "softmax1")];
  probs.deps.push_back(nodeNamed(h, "ln1_1"));
  EXPECT_EQ(distinctBlocks(findBlocks(h)), 2);
}

TEST(BlocksTest, NoRepeatsNoBlocks) {
  EXPECT_TRUE(findBlocks(makeChain(1)).empty());
  EXPECT_TRUE(findBlocks(makeUNet(3)).empty());
}

void expectVerified(const Graph &g, const SolveResult &r) {
  ASSERT_TRUE(r.feasible()) << r.solver << ": " << r.message;
  Simulation sim = simulate(g, r.schedule);
  ASSERT_TRUE(sim.valid()) << sim.error;
  EXPECT_EQ(sim.peakBytes, r.peakBytes);
  EXPECT_DOUBLE_EQ(sim.cost, r.cost);
}

TEST(BlocksTest, PoliciesAreVerifiedAndOrdered) {
  Graph g = makeTransformer(4);
  SolveResult none = solveCheckpointAll(g, SolveOptions());
  SolveResult full = solveFullAC(g, SolveOptions());
  SolveResult sel = solveSelective(g, SolveOptions());
  expectVerified(g, full);
  expectVerified(g, sel);
  // Full AC recomputes each block's forward once, minus its output, but the
  // last block's: the first backward run reuses its forward values.
  double blockCost = 0;
  std::vector<Block> blocks = findBlocks(g);
  for (int id : blocks[0].nodes)
    blockCost += g.nodes[id].cost;
  double last = g.nodes[nodeNamed(g, "res2_0")].cost;
  EXPECT_DOUBLE_EQ(full.cost - none.cost, 3 * (blockCost - last));
  EXPECT_LT(full.peakBytes, none.peakBytes);
  EXPECT_LT(sel.cost, full.cost);
  EXPECT_GT(sel.cost, none.cost);
  EXPECT_LE(sel.peakBytes, none.peakBytes);
  std::vector<char> keep = policyCheckpoints(g, blocks, 0);
  EXPECT_TRUE(keep[nodeNamed(g, "mlp_up1")]);
  EXPECT_TRUE(keep[nodeNamed(g, "scores1")]);
  EXPECT_FALSE(keep[nodeNamed(g, "gelu1")]);
}

TEST(BlocksTest, PoliciesSayWhatTheyLack) {
  Graph g = makeTransformer(3);
  for (Node &node : g.nodes)
    node.op.clear();
  SolveResult sel = solveSelective(g, SolveOptions());
  EXPECT_EQ(sel.status, SolveStatus::Unsupported);
  EXPECT_NE(sel.message.find("op kinds"), std::string::npos) << sel.message;
  EXPECT_TRUE(solveFullAC(g, SolveOptions()).feasible());
  EXPECT_EQ(solveFullAC(makeUNet(3), SolveOptions()).status,
            SolveStatus::Unsupported);
}

TEST(BlocksTest, MatmulOps) {
  for (const char *op : {"mm", "aten.bmm.default", "addmm", "matmul"})
    EXPECT_TRUE(isMatmulOp(op)) << op;
  for (const char *op : {"", "add", "mmx", "aten.gelu.default"})
    EXPECT_FALSE(isMatmulOp(op)) << op;
}

/// `solve` at `budget` is no worse than `policy` when the policy fits it.
void expectDominates(const SolverInfo &solve, const Graph &g,
                     const SolveResult &policy, int64_t budget) {
  SolveOptions opts;
  opts.budget = budget;
  opts.lastResort = false;
  opts.effort = 0.25;
  if (policy.peakBytes > budget)
    return;
  SolveResult a = solve.solve(g, opts);
  ASSERT_TRUE(a.feasible()) << solve.name << " on " << g.name << " at "
                            << budget;
  EXPECT_LE(a.cost, policy.cost) << solve.name << " on " << g.name << " at "
                                 << budget << ": " << policy.solver;
  EXPECT_LE(a.peakBytes, budget);
}

// Small LM-like graphs, identical and heterogeneous layers: over a sweep of
// budgets and at each policy's own peak, the portfolio (which runs the
// policies) and the hierarchical solver (whose plans include the policies
// and their mixes) are never dearer than a policy that fits.
TEST(BlocksTest, SolversDominateFittingPolicies) {
  for (const char *name : {"auto", "hierarchical"})
    for (uint64_t seed : {0, 1, 2}) {
      GeneratorOptions gen;
      gen.heterogeneous = seed > 0;
      gen.seed = seed;
      Graph g = makeTransformer(3, gen);
      std::vector<SolveResult> policies = {solveFullAC(g, SolveOptions()),
                                           solveSelective(g, SolveOptions())};
      int64_t top = solveCheckpointAll(g, SolveOptions()).peakBytes;
      int64_t bottom = peakLowerBound(g);
      const SolverInfo &solver = *findSolver(name);
      for (const SolveResult &policy : policies) {
        expectVerified(g, policy);
        expectDominates(solver, g, policy, policy.peakBytes);
        for (int step = 0; step <= 3; ++step)
          expectDominates(solver, g, policy,
                          bottom + (top - bottom) * step / 3);
      }
    }
}

// Mixing the policies (the last k blocks selective) moves from full-ac to
// selective: each block made selective before the last saves recompute
// (the last block's forward values are reused, not recomputed, either way).
TEST(BlocksTest, PolicyMixesAreOrdered) {
  Graph g = makeTransformer(4);
  std::vector<Block> blocks = findBlocks(g);
  ASSERT_EQ(blocks.size(), 4u);
  auto cost = [&](size_t first) {
    double best = -1;
    std::vector<char> keep = policyCheckpoints(g, blocks, first);
    for (const CheckpointOptions &variant : builderVariants()) {
      double c = evaluateCheckpoints(g, keep, variant).cost;
      best = best < 0 ? c : std::min(best, c);
    }
    return best;
  };
  EXPECT_DOUBLE_EQ(cost(4), solveFullAC(g, SolveOptions()).cost);
  EXPECT_DOUBLE_EQ(cost(0), solveSelective(g, SolveOptions()).cost);
  for (size_t first = 3; first-- > 0;)
    EXPECT_LT(cost(first), cost(first + 1)) << "from block " << first;
}

} // namespace
