//===- MinCutTest.cpp - saved sets by minimum cut -------------------------===//
//
// Part of the remat-opt project.
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

/// conv (expensive, 2 bytes) -> relu (cheap, 4 bytes) -> loss; the backward
/// reads relu. Saving conv and recomputing relu costs 2 bytes + lambda * 1;
/// saving relu costs 4 bytes.
struct ConvRelu {
  Graph g;
  int conv, relu;
  ConvRelu() {
    int x = addNode(g, "x", NodeKind::Input, 1, 0, {});
    conv = addNode(g, "conv", NodeKind::Forward, 2, 100, {x});
    relu = addNode(g, "relu", NodeKind::Forward, 4, 1, {conv});
    int loss = addNode(g, "loss", NodeKind::Forward, 1, 1, {relu});
    int seed = addNode(g, "seed", NodeKind::Input, 1, 0, {});
    int drelu = addNode(g, "drelu", NodeKind::Backward, 4, 1, {seed, relu});
    int dx = addNode(g, "dx", NodeKind::Backward, 1, 100, {drelu});
    g.outputs = {loss, dx};
  }
};

} // namespace

TEST(MinCutTest, PriceDecidesWhatIsSaved) {
  ConvRelu c;
  std::vector<char> cheap = minCutKeep(c.g, 0.5);
  EXPECT_TRUE(cheap[c.conv]);
  EXPECT_FALSE(cheap[c.relu]);
  std::vector<char> dear = minCutKeep(c.g, 10);
  EXPECT_FALSE(dear[c.conv]);
  EXPECT_TRUE(dear[c.relu]);
  // Almost free recompute: conv too is recomputed (from the resident x).
  std::vector<char> free = minCutKeep(c.g, 0.001);
  EXPECT_FALSE(free[c.conv]);
  EXPECT_FALSE(free[c.relu]);
}

TEST(MinCutTest, PinsAreObeyed) {
  ConvRelu c;
  c.g.nodes[c.relu].keep = KeepPolicy::Always;
  EXPECT_TRUE(minCutKeep(c.g, 0.5)[c.relu]);
  c.g.nodes[c.relu].keep = KeepPolicy::Never;
  EXPECT_FALSE(minCutKeep(c.g, 1000)[c.relu]);
}

TEST(MinCutTest, SweepSchedulesAreValidAndRecomputeLittle) {
  // On generated networks every set of the sweep builds a valid schedule,
  // and the cheapest-to-recompute set of the sweep recomputes nothing.
  GeneratorOptions opts;
  opts.heterogeneous = true;
  for (const char *family : {"chain", "resnet", "unet", "transformer"}) {
    Graph g = makeFamily(family, 150, opts);
    std::vector<std::vector<char>> sets = minCutKeepSets(g);
    ASSERT_FALSE(sets.empty()) << family;
    double least = 1e300;
    for (const std::vector<char> &keep : sets)
      for (const CheckpointOptions &variant : builderVariants()) {
        Simulation sim = simulate(g, scheduleFromCheckpoints(g, keep, variant));
        ASSERT_TRUE(sim.valid()) << family << ": " << sim.error;
        least = std::min(least, sim.cost);
      }
    EXPECT_DOUBLE_EQ(least, checkpointAllCost(g)) << family;
  }
}

// Out of work, the sweep keeps what it found (at least the set of the
// cheapest price, tried first), and every set it returns is one of the
// full sweep's.
TEST(MinCutTest, SweepCutShortSpansTheRange) {
  GeneratorOptions opts;
  opts.heterogeneous = true;
  Graph g = makeFamily("resnet", 150, opts);
  std::vector<std::vector<char>> all = minCutKeepSets(g);
  WorkMeter none(0), some(g.size() * 64);
  std::vector<std::vector<char>> hurried = minCutKeepSets(g, &none);
  ASSERT_EQ(hurried.size(), 1u);
  EXPECT_EQ(hurried[0], all.front());
  std::vector<std::vector<char>> part = minCutKeepSets(g, &some);
  EXPECT_LT(part.size(), all.size());
  for (const std::vector<char> &keep : part)
    EXPECT_NE(std::find(all.begin(), all.end(), keep), all.end());
}

TEST(MinCutTest, SolverNeverBeatsTheExhaustiveOptimum) {
  GeneratorOptions opts;
  opts.params = false;
  int compared = 0;
  for (uint64_t seed = 1; seed < 160; ++seed) {
    Graph g = makeRandomDag(5, seed, opts);
    SolveOptions options;
    int64_t top = simulate(g, checkpointAllSchedule(g)).peakBytes;
    options.budget = seed % 2
                         ? top * 9 / 10
                         : peakLowerBound(g) + (top - peakLowerBound(g)) / 2;
    SolveResult exact = solveBruteForce(g, options);
    SolveResult ours = solveMinCut(g, options);
    if (!ours.feasible())
      continue;
    ++compared;
    ASSERT_TRUE(exact.feasible()) << g.name;
    Simulation sim = simulate(g, ours.schedule);
    ASSERT_TRUE(sim.valid()) << g.name << ": " << sim.error;
    EXPECT_LE(ours.peakBytes, options.budget) << g.name;
    EXPECT_GE(ours.cost, exact.cost - 1e-9) << g.name;
  }
  EXPECT_GE(compared, 10);
}
