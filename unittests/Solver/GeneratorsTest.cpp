//===- GeneratorsTest.cpp - synthetic training graphs ---------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Testing/Generators.h"
#include "remat/Solver/Core/SolverSupport.h"

#include "gtest/gtest.h"

using namespace remat;

namespace {

TEST(GeneratorsTest, ChainBackwardFollowsCheckmate) {
  GeneratorOptions o;
  o.params = false;
  o.bytes = 1;
  Graph g = makeChain(3, o);
  // 0 x, 1 f1, 2 f2, 3 f3 (loss), 4 d_f2, 5 d_f1, 6 d_x.
  ASSERT_EQ(g.size(), 7);
  EXPECT_EQ(g.nodes[4].name, "d_f2");
  // d_f2 reads what the loss read (f2); the loss's gradient is constant.
  EXPECT_EQ(g.nodes[4].deps, std::vector<int>{2});
  // d_f1 reads d_f2 and f2's operand f1.
  EXPECT_EQ(g.nodes[5].deps, (std::vector<int>{1, 4}));
  EXPECT_EQ(g.nodes[6].deps, (std::vector<int>{0, 5}));
  // Outputs: the loss and the input's gradient (no parameters).
  EXPECT_EQ(g.outputs, (std::vector<int>{3, 6}));
}

TEST(GeneratorsTest, ParameterGradientsAreOutputs) {
  Graph g = makeChain(2); // x, w_f1, f1, w_f2, f2 (loss)
  std::vector<std::string> outs;
  for (int out : g.outputs)
    outs.push_back(g.nodes[out].name);
  EXPECT_EQ(outs, (std::vector<std::string>{"f2", "d_w_f2", "d_w_f1"}));
}

TEST(GeneratorsTest, FamiliesAreWellFormedAndSized) {
  for (const std::string &family : familyNames()) {
    for (int target : {60, 1000}) {
      Graph g = makeFamily(family, target);
      EXPECT_EQ(g.check(), "") << family;
      EXPECT_GT(g.size(), target * 7 / 10) << family << " " << g.size();
      EXPECT_LT(g.size(), target * 13 / 10) << family << " " << g.size();
      // Every backward node is needed (the derivation leaves no dead code).
      std::vector<char> needed = neededNodes(g);
      for (int id = 0; id < g.size(); ++id)
        if (g.nodes[id].kind == NodeKind::Backward) {
          EXPECT_TRUE(needed[id]) << family << " " << g.nodes[id].name;
        }
    }
  }
  EXPECT_TRUE(makeFamily("nope", 10).nodes.empty());
}

TEST(GeneratorsTest, DeterministicAndHeterogeneous) {
  GeneratorOptions o;
  o.heterogeneous = true;
  o.seed = 42;
  Graph a = makeResNet(3, o), b = makeResNet(3, o);
  ASSERT_EQ(a.size(), b.size());
  bool varied = false;
  for (int id = 0; id < a.size(); ++id) {
    EXPECT_EQ(a.nodes[id].bytes, b.nodes[id].bytes);
    EXPECT_EQ(a.nodes[id].cost, b.nodes[id].cost);
    varied |= a.nodes[id].bytes != a.nodes[1].bytes;
  }
  EXPECT_TRUE(varied);
  Graph r1 = makeRandomDag(20, 5), r2 = makeRandomDag(20, 5),
        r3 = makeRandomDag(20, 6);
  EXPECT_EQ(r1.nodes.size(), r2.nodes.size());
  for (size_t i = 0; i < r1.nodes.size(); ++i)
    EXPECT_EQ(r1.nodes[i].deps, r2.nodes[i].deps);
  bool differs = r1.nodes.size() != r3.nodes.size();
  for (size_t i = 0; !differs && i < r1.nodes.size(); ++i)
    differs = r1.nodes[i].deps != r3.nodes[i].deps;
  EXPECT_TRUE(differs);
}

} // namespace
