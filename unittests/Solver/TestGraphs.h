//===- TestGraphs.h - small graphs the solver unit tests share --*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_UNITTESTS_SOLVER_TESTGRAPHS_H
#define REMAT_UNITTESTS_SOLVER_TESTGRAPHS_H

#include "remat/Solver/Core/Problem.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/Solver.h"
#include "remat/Solver/Testing/Generators.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

namespace remat {
namespace test {

/// Checks a feasible result as a user would: re-simulated, the same peak and
/// cost, within the budget, and no lower bound claimed (`model` solvers: the
/// model bounds nothing).
inline void expectVerifiedPlan(const Graph &g, const SolveOptions &opts,
                               const SolveResult &r, const std::string &what) {
  ASSERT_TRUE(r.feasible()) << what << ": " << r.message;
  Simulation sim = simulate(g, r.schedule);
  ASSERT_TRUE(sim.valid()) << what << ": " << sim.error;
  EXPECT_EQ(sim.peakBytes, r.peakBytes) << what;
  EXPECT_DOUBLE_EQ(sim.cost, r.cost) << what;
  EXPECT_LE(r.peakBytes, opts.budget) << what;
  EXPECT_EQ(r.lowerBound, -1) << what << ": the model bounds nothing";
}

/// Generator options for unit-size graphs without parameters.
inline GeneratorOptions unitOptions() {
  GeneratorOptions o;
  o.params = false;
  o.bytes = 1;
  return o;
}

/// Appends a node to a hand-built graph and returns its id.
inline int addNode(Graph &g, const std::string &name, NodeKind kind,
                   int64_t bytes, double cost, std::vector<int> deps) {
  Node node;
  node.name = name;
  node.kind = kind;
  node.bytes = bytes;
  node.cost = cost;
  node.deps = std::move(deps);
  g.nodes.push_back(node);
  return g.size() - 1;
}

/// The peak of aten resnet50's smallest plan in miniature: `big` (a
/// recomputed block output, 8 bytes) runs while the relu output `r` (2
/// bytes) waits for its threshold backward `tb`, which the given order runs
/// next. Ids: x 0, seed 1, r 2, loss 3, big 4, tb 5, out 6.
inline Graph thresholdAfterRecomputeGraph() {
  Graph g;
  int x = addNode(g, "x", NodeKind::Input, 1, 0, {});
  int seed = addNode(g, "seed", NodeKind::Input, 1, 0, {});
  int r = addNode(g, "r", NodeKind::Forward, 2, 1, {x});
  int loss = addNode(g, "loss", NodeKind::Forward, 1, 1, {r});
  int big = addNode(g, "big", NodeKind::Backward, 8, 1, {x});
  int tb = addNode(g, "tb", NodeKind::Backward, 1, 1, {r, seed});
  int out = addNode(g, "out", NodeKind::Backward, 1, 1, {big, tb});
  g.outputs = {loss, out};
  return g;
}

} // namespace test
} // namespace remat

#endif // REMAT_UNITTESTS_SOLVER_TESTGRAPHS_H
