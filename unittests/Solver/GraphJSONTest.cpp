//===- GraphJSONTest.cpp - graph fingerprints and saved results -----------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "TestGraphs.h"

#include "remat/Solver/IO/GraphJSON.h"
#include "remat/Solver/Core/Simulator.h"

#include "gtest/gtest.h"

using namespace remat;
using namespace remat::test;

namespace {

/// x(input) -> a -> b(backward, reads a); output b.
Graph small() {
  Graph g;
  g.name = "small";
  addNode(g, "x", NodeKind::Input, 4, 0, {});
  addNode(g, "a", NodeKind::Forward, 8, 1.5, {0});
  addNode(g, "b", NodeKind::Backward, 8, 2, {0, 1});
  g.outputs = {2};
  return g;
}

SolveResult solved(const Graph &g) {
  SolveResult result;
  result.status = SolveStatus::Optimal;
  result.schedule.steps = {Step::compute(1), Step::compute(2), Step::free(1)};
  Simulation simulation = simulate(g, result.schedule);
  result.peakBytes = simulation.peakBytes;
  result.cost = simulation.cost;
  result.lowerBound = 3.5;
  result.solver = "brute-force";
  return result;
}

std::string resultText(const Graph &g) {
  ResultReport report;
  report.mode = "min-compute";
  report.budget = 20;
  report.graph = fingerprintGraph(g);
  return printResultJSON(solved(g), report);
}

TEST(GraphJSONTest, FingerprintSurvivesTheJSONRoundTrip) {
  Graph g = small();
  g.nodes[1].cost = 0.1; // not exact in binary: printed with all digits
  Graph parsed;
  std::string error;
  ASSERT_TRUE(parseGraphJSON(printGraphJSON(g), parsed, error)) << error;
  EXPECT_EQ(describeMismatch(fingerprintGraph(g), fingerprintGraph(parsed)),
            "");
}

TEST(GraphJSONTest, MismatchSaysWhatDiffers) {
  GraphFingerprint base = fingerprintGraph(small());
  Graph renamed = small();
  renamed.name = "other";
  renamed.nodes[1].name = "z";
  EXPECT_EQ(describeMismatch(base, fingerprintGraph(renamed)), "");

  Graph bigger = small();
  addNode(bigger, "c", NodeKind::Backward, 8, 1, {2});
  EXPECT_EQ(describeMismatch(base, fingerprintGraph(bigger)),
            "the node count (3 vs 4)");
  Graph rewired = small();
  rewired.nodes[2].deps = {1};
  EXPECT_EQ(describeMismatch(base, fingerprintGraph(rewired)),
            "the structure (node kinds, dependencies, ordering edges, views, "
            "pins or outputs)");
  Graph wider = small();
  wider.nodes[1].bytes = 16;
  EXPECT_EQ(describeMismatch(base, fingerprintGraph(wider)),
            "the node sizes (bytes)");
  Graph slower = small();
  slower.nodes[2].cost = 3;
  EXPECT_EQ(describeMismatch(base, fingerprintGraph(slower)),
            "the compute costs");
}

TEST(GraphJSONTest, ResultRoundTrip) {
  Graph g = small();
  SavedResult saved;
  std::string error;
  ASSERT_TRUE(parseResultJSON(resultText(g), saved, error)) << error;
  SolveResult expected = solved(g);
  EXPECT_EQ(saved.result.status, SolveStatus::Optimal);
  ASSERT_EQ(saved.result.schedule.steps.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(saved.result.schedule.steps[i].kind,
              expected.schedule.steps[i].kind);
    EXPECT_EQ(saved.result.schedule.steps[i].node,
              expected.schedule.steps[i].node);
  }
  EXPECT_EQ(saved.result.peakBytes, expected.peakBytes);
  EXPECT_EQ(saved.result.cost, expected.cost);
  EXPECT_EQ(saved.result.lowerBound, 3.5);
  EXPECT_EQ(saved.result.solver, "brute-force");
  EXPECT_EQ(saved.mode, "min-compute");
  EXPECT_EQ(saved.budget, 20);
  EXPECT_EQ(saved.graph.name, "small");
  EXPECT_EQ(describeMismatch(saved.graph, fingerprintGraph(g)), "");
}

TEST(GraphJSONTest, ResultErrorsNameTheJSONPath) {
  std::string text = resultText(small());
  auto errorOf = [](const std::string &text) {
    SavedResult saved;
    std::string error;
    EXPECT_FALSE(parseResultJSON(text, saved, error));
    return error;
  };
  std::string badNode = text;
  badNode.replace(badNode.find("\"node\": 2"), 9, "\"node\": 7");
  EXPECT_EQ(errorOf(badNode),
            "steps[1].node: node 7 does not exist (the graph has 3 nodes)");
  std::string noGraph = text.substr(0, text.find(",\n  \"graph\"")) + "\n}\n";
  EXPECT_EQ(errorOf(noGraph), "$: missing \"graph\"");
  std::string badStatus = text;
  badStatus.replace(badStatus.find("\"optimal\""), 9, "\"done\"");
  EXPECT_EQ(errorOf(badStatus), "status: unknown status 'done' (expected "
                                "optimal, feasible, infeasible or timeout)");
  EXPECT_NE(errorOf("[1, 2").find("invalid JSON [1:"), std::string::npos);
}

TEST(GraphJSONTest, GraphErrorsNameTheJSONPath) {
  auto errorOf = [](const std::string &text) {
    Graph graph;
    std::string error;
    EXPECT_FALSE(parseGraphJSON(text, graph, error));
    return error;
  };
  EXPECT_EQ(errorOf(R"({"outputs": []})"), "$: missing \"nodes\"");
  EXPECT_EQ(errorOf(R"({"nodes": {}, "outputs": []})"),
            "nodes: expected an array");
  EXPECT_EQ(errorOf(R"({"nodes": [{"bytes": 1, "name": 3}], "outputs": []})"),
            "nodes[0].name: expected string");
  EXPECT_EQ(errorOf(R"({"nodes": [{"bytes": 1}, {"bytes": 1, "deps": [0, "x"]}],
                        "outputs": []})"),
            "nodes[1].deps[1]: expected an integer");
  EXPECT_EQ(errorOf(R"({"nodes": [{"bytes": 1}, {"bytes": 1, "deps": [0, 1]}],
                        "outputs": []})"),
            "nodes[1].deps[1]: dependency on node 1, which is not earlier: "
            "the graph has a cycle or is not in topological order");
  EXPECT_EQ(errorOf(R"({"nodes": [{"bytes": 1, "cost": 1e400}], "outputs": []})"),
            "nodes[0].cost: number out of range (beyond 1.8e308)");
  EXPECT_EQ(errorOf(R"({"nodes": [{"bytes": 1, "keep": "sometimes"}],
                        "outputs": []})"),
            "nodes[0].keep: unknown keep policy 'sometimes' (expected always, "
            "never or default)");
}

// Nesting deeper than the readers accept is refused before LLVM's
// recursive parser sees it; brackets inside strings (escaped quotes
// included) do not count.
TEST(GraphJSONTest, DeepNestingIsRefusedBeforeParsing) {
  Graph graph;
  std::string error;
  std::string deep = std::string(101, '[') + std::string(101, ']');
  EXPECT_FALSE(parseGraphJSON(deep, graph, error));
  EXPECT_EQ(error, "JSON nested 101 levels deep (from 1:101); at most 100 "
                   "levels are accepted");
  std::string quoted = R"({"name": "\"[[[", "nodes": [{"bytes": 1, "name": ")" +
                       std::string(200, '{') + R"("}], "outputs": [0]})";
  EXPECT_TRUE(parseGraphJSON(quoted, graph, error)) << error;
  EXPECT_EQ(graph.name, "\"[[[");
}

} // namespace
