//===- SimulatorTest.cpp - the schedule simulator -------------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Core/Simulator.h"

#include "gtest/gtest.h"

using namespace remat;

namespace {

Node makeNode(const char *name, int64_t bytes, double cost,
              std::vector<int> deps, NodeKind kind = NodeKind::Forward,
              int aliasOf = -1) {
  Node node;
  node.name = name;
  node.bytes = bytes;
  node.cost = cost;
  node.deps = std::move(deps);
  node.kind = kind;
  node.aliasOf = aliasOf;
  return node;
}

/// x(input, 10) -> a(100) -> b(1000) -> c(10000), fixed 1; output c.
Graph chain4() {
  Graph g;
  g.fixedBytes = 1;
  g.nodes = {makeNode("x", 10, 0, {}, NodeKind::Input),
             makeNode("a", 100, 1, {0}), makeNode("b", 1000, 2, {1}),
             makeNode("c", 10000, 4, {2}, NodeKind::Backward)};
  g.outputs = {3};
  return g;
}

Schedule steps(std::initializer_list<Step> list) { return Schedule{list}; }

TEST(SimulatorTest, PeakCountsResidentAndOperands) {
  Graph g = chain4();
  // Resident: fixed 1 + x 10 = 11.
  Simulation sim =
      simulate(g, steps({Step::compute(1), Step::compute(2), Step::free(1),
                         Step::compute(3), Step::free(2)}));
  ASSERT_TRUE(sim.valid()) << sim.error;
  // After c: 11 + b 1000 + c 10000 = 11011 (a was freed before).
  EXPECT_EQ(sim.peakBytes, 11011);
  EXPECT_EQ(sim.cost, 7);
  // Live after each step: 111, 1111, 1011, 11011, 10011.
  EXPECT_EQ(sim.liveAfterStep,
            (std::vector<int64_t>{111, 1111, 1011, 11011, 10011}));
}

TEST(SimulatorTest, RecomputationCostsAgain) {
  Graph g = chain4();
  Simulation sim =
      simulate(g, steps({Step::compute(1), Step::free(1), Step::compute(1),
                         Step::compute(2), Step::free(1), Step::compute(3)}));
  ASSERT_TRUE(sim.valid()) << sim.error;
  EXPECT_EQ(sim.cost, 1 + 1 + 2 + 4);
  // 11 + b + c = 11011; a is freed before c.
  EXPECT_EQ(sim.peakBytes, 11011);
}

TEST(SimulatorTest, RejectsMissingDependency) {
  Simulation sim = simulate(chain4(), steps({Step::compute(2)}));
  EXPECT_FALSE(sim.valid());
  EXPECT_NE(sim.error.find("step 0"), std::string::npos) << sim.error;
  EXPECT_NE(sim.error.find("dependency 1 'a' is not live"), std::string::npos)
      << sim.error;
}

TEST(SimulatorTest, RejectsUseAfterFree) {
  Simulation sim = simulate(
      chain4(), steps({Step::compute(1), Step::free(1), Step::compute(2)}));
  EXPECT_FALSE(sim.valid());
  EXPECT_NE(sim.error.find("step 2"), std::string::npos) << sim.error;
}

TEST(SimulatorTest, RejectsDoubleCompute) {
  Simulation sim =
      simulate(chain4(), steps({Step::compute(1), Step::compute(1)}));
  EXPECT_NE(sim.error.find("already live"), std::string::npos) << sim.error;
}

TEST(SimulatorTest, RejectsFreeOfDeadValue) {
  Simulation sim = simulate(chain4(), steps({Step::free(1)}));
  EXPECT_NE(sim.error.find("not live"), std::string::npos) << sim.error;
}

TEST(SimulatorTest, RejectsComputingResidentNodes) {
  Simulation sim = simulate(chain4(), steps({Step::compute(0)}));
  EXPECT_NE(sim.error.find("resident"), std::string::npos) << sim.error;
  sim = simulate(chain4(), steps({Step::free(0)}));
  EXPECT_NE(sim.error.find("resident"), std::string::npos) << sim.error;
}

TEST(SimulatorTest, RejectsUnknownNode) {
  Simulation sim = simulate(chain4(), steps({Step::compute(7)}));
  EXPECT_NE(sim.error.find("no such node"), std::string::npos) << sim.error;
}

TEST(SimulatorTest, RejectsMissingOutput) {
  Graph g = chain4();
  Simulation sim = simulate(g, steps({Step::compute(1), Step::compute(2),
                                      Step::compute(3), Step::free(3)}));
  EXPECT_NE(sim.error.find("output 3 'c' is not live"), std::string::npos)
      << sim.error;
}

TEST(SimulatorTest, EmptyScheduleOfResidentOutputIsValid) {
  Graph g = chain4();
  g.outputs = {0};
  Simulation sim = simulate(g, Schedule());
  ASSERT_TRUE(sim.valid()) << sim.error;
  EXPECT_EQ(sim.peakBytes, 11);
}

TEST(SimulatorTest, ViewKeepsBaseStorageAlive) {
  // x(input 0) -> a(100) -> v = view of a (0 bytes) -> c(1, reads v).
  Graph g;
  g.nodes = {
      makeNode("x", 0, 0, {}, NodeKind::Input), makeNode("a", 100, 1, {0}),
      makeNode("v", 0, 0, {1}, NodeKind::Forward, 1), makeNode("c", 1, 1, {2})};
  g.outputs = {3};
  Simulation sim =
      simulate(g, steps({Step::compute(1), Step::compute(2), Step::free(1),
                         Step::compute(3), Step::free(2)}));
  ASSERT_TRUE(sim.valid()) << sim.error;
  // a's 100 bytes stay while v is live: 100, 100, 100, 101, then 1.
  EXPECT_EQ(sim.liveAfterStep, (std::vector<int64_t>{100, 100, 100, 101, 1}));
  EXPECT_EQ(sim.peakBytes, 101);
}

TEST(SimulatorTest, RecomputedBaseUnderLiveViewIsASecondCopy) {
  Graph g;
  g.nodes = {makeNode("x", 0, 0, {}, NodeKind::Input),
             makeNode("a", 100, 1, {0}),
             makeNode("v", 0, 0, {1}, NodeKind::Forward, 1)};
  g.outputs = {2};
  Simulation sim = simulate(g, steps({Step::compute(1), Step::compute(2),
                                      Step::free(1), Step::compute(1)}));
  ASSERT_TRUE(sim.valid()) << sim.error;
  // The view holds the first copy; the recomputed a is a second one.
  EXPECT_EQ(sim.peakBytes, 200);
}

TEST(SimulatorTest, ViewOfDeadBaseRejected) {
  Graph g;
  g.nodes = {makeNode("x", 0, 0, {}, NodeKind::Input),
             makeNode("a", 100, 1, {0}),
             makeNode("v", 0, 0, {}, NodeKind::Forward, 1)};
  g.outputs = {2};
  Simulation sim = simulate(g, steps({Step::compute(2)}));
  EXPECT_NE(sim.error.find("view of node 1"), std::string::npos) << sim.error;
}

TEST(GraphTest, CheckNamesTheProblem) {
  Graph g = chain4();
  EXPECT_EQ(g.check(), "");
  g.nodes[2].bytes = -5;
  EXPECT_NE(g.check().find("node 2 ('b') has negative size -5"),
            std::string::npos);
  g = chain4();
  g.nodes[1].deps = {3};
  EXPECT_NE(g.check().find("depends on later node 3"), std::string::npos);
  g = chain4();
  g.nodes[1].deps = {9};
  EXPECT_NE(g.check().find("node 9, which does not exist"), std::string::npos);
  g = chain4();
  g.outputs = {4};
  EXPECT_NE(g.check().find("output 4 does not exist"), std::string::npos);
  g = chain4();
  g.nodes.push_back(makeNode("d", 1, 1, {3}));
  EXPECT_NE(g.check().find("node 4 ('d') is a forward node but reads node 3 "
                           "('c'), a backward node"),
            std::string::npos);
}

TEST(GraphTest, UsersStorageResident) {
  Graph g = chain4();
  auto users = g.users();
  EXPECT_EQ(users[0], std::vector<int>{1});
  EXPECT_EQ(users[3], std::vector<int>{});
  EXPECT_EQ(g.residentBytes(), 11);
  g.nodes.push_back(makeNode("v", 0, 0, {3}, NodeKind::Backward, 3));
  g.nodes.push_back(makeNode("w", 0, 0, {4}, NodeKind::Backward, 4));
  EXPECT_EQ(g.storageOf(5), 3);
}

} // namespace

namespace {
/// A link on which a copy of b bytes takes b / 100 cost units.
HostLink slowLink() {
  HostLink link;
  link.name = "test";
  link.bytesPerSecond = 100;
  link.latencySeconds = 0;
  link.costPerSecond = 1;
  return link;
}

/// x(input) -> a(100); x -> b(1000) -> c(10); d(backward) reads a and c.
/// Every compute costs 10.
Graph offloadGraph() {
  Graph g;
  g.nodes = {makeNode("x", 1, 0, {}, NodeKind::Input),
             makeNode("a", 100, 10, {0}), makeNode("b", 1000, 10, {0}),
             makeNode("c", 10, 10, {2}),
             makeNode("d", 1, 10, {1, 3}, NodeKind::Backward)};
  g.outputs = {4};
  return g;
}
} // namespace

TEST(SimulatorTest, OffloadFreesWhenTheCopyIsDone) {
  Graph g = offloadGraph();
  HostLink link = slowLink();
  // a computed [0, 10); its offload copies [10, 11); b starts at 10, so a
  // still counts then; c starts at 20, after the copy: a is gone. The
  // prefetch at 30 takes to 31: d waits 1.
  std::vector<StorageLifetime> lifetimes;
  Simulation sim =
      simulate(g,
               steps({Step::compute(1), Step::offload(1), Step::compute(2),
                      Step::compute(3), Step::free(2), Step::prefetch(1),
                      Step::compute(4), Step::free(1), Step::free(3)}),
               &lifetimes, &link);
  ASSERT_TRUE(sim.valid()) << sim.error;
  EXPECT_EQ(sim.liveAfterStep,
            (std::vector<int64_t>{101, 101, 1101, 1011, 11, 111, 112, 12, 2}));
  EXPECT_EQ(sim.peakBytes, 1101);
  EXPECT_EQ(sim.cost, 40);
  EXPECT_EQ(sim.stall, 1);
  EXPECT_EQ(sim.time, 41);
  EXPECT_EQ(sim.startOfStep[6], 31);
  EXPECT_EQ(sim.hostPeakBytes, 100);
  EXPECT_EQ(sim.copies, 2);
  EXPECT_EQ(sim.bytesMoved, 200);
  // a's first storage ends where c retired the copy (step 3); the prefetch
  // allocated a second one (steps 5 to 7).
  ASSERT_EQ(lifetimes.size(), 5u);
  EXPECT_EQ(lifetimes[0].node, 1);
  EXPECT_EQ(lifetimes[0].end, 3u);
  EXPECT_EQ(lifetimes[3].node, 1);
  EXPECT_EQ(lifetimes[3].begin, 5u);
  EXPECT_EQ(lifetimes[3].end, 7u);
}

// Where the link carries the parameter gathers, a gather waits for the
// copy in flight and the copy back waits for the gather; on a link of its
// own, each runs on its own line.
TEST(SimulatorTest, GathersShareTheLinkWithCopies) {
  Graph g = offloadGraph();
  g.nodes[2].gather = GatherRole::Gather; // b: 1000 bytes, cost 10
  HostLink link = slowLink();
  link.bytesPerSecond = 10; // a's copies take 10 each
  Schedule schedule =
      steps({Step::compute(1), Step::offload(1), Step::compute(2),
             Step::compute(3), Step::free(2), Step::prefetch(1),
             Step::compute(4), Step::free(1), Step::free(3)});
  Simulation apart = simulate(g, schedule, nullptr, &link);
  ASSERT_TRUE(apart.valid()) << apart.error;
  // a's offload runs [10, 20) beside b [10, 20); c [20, 30); the prefetch
  // [30, 40): d waits 10.
  EXPECT_EQ(apart.startOfStep[2], 10);
  EXPECT_EQ(apart.stall, 10);
  EXPECT_EQ(apart.time, 50);

  link.carriesGathers = true;
  Simulation shared = simulate(g, schedule, nullptr, &link);
  ASSERT_TRUE(shared.valid()) << shared.error;
  // b waits for the offload: [20, 30); c [30, 40); the prefetch [40, 50);
  // d waits 10 more.
  EXPECT_EQ(shared.startOfStep[2], 20);
  EXPECT_EQ(shared.stall, 20);
  EXPECT_EQ(shared.time, 60);
  EXPECT_EQ(shared.cost, apart.cost);

  // Not a gather: the link's sharing changes nothing.
  g.nodes[2].gather = GatherRole::None;
  Simulation plain = simulate(g, schedule, nullptr, &link);
  EXPECT_EQ(plain.time, apart.time);
}

TEST(SimulatorTest, WithoutCopiesTimeIsCost) {
  Graph g = chain4();
  HostLink link = slowLink();
  Simulation sim =
      simulate(g, steps({Step::compute(1), Step::compute(2), Step::compute(3)}),
               nullptr, &link);
  ASSERT_TRUE(sim.valid()) << sim.error;
  EXPECT_EQ(sim.time, sim.cost);
  EXPECT_EQ(sim.stall, 0);
  EXPECT_EQ(sim.copies, 0);
}

TEST(SimulatorTest, OffloadViolations) {
  Graph g = offloadGraph();
  HostLink link = slowLink();
  auto error = [&](std::initializer_list<Step> list, bool withLink = true) {
    return simulate(g, steps(list), nullptr, withLink ? &link : nullptr).error;
  };
  EXPECT_NE(error({Step::compute(1), Step::offload(1)}, false)
                .find("offloading needs a host link"),
            std::string::npos);
  // Offloaded, then computed again instead of prefetched.
  EXPECT_NE(error({Step::compute(1), Step::offload(1), Step::compute(1)})
                .find("prefetched, not computed again"),
            std::string::npos);
  EXPECT_NE(error({Step::compute(1), Step::offload(1), Step::compute(2),
                   Step::compute(3), Step::compute(4)})
                .find("dependency 1 'a' is on the host"),
            std::string::npos);
  EXPECT_NE(error({Step::compute(1), Step::offload(1), Step::free(1)})
                .find("on the host"),
            std::string::npos);
  EXPECT_NE(error({Step::prefetch(1)}).find("not on the host"),
            std::string::npos);
  EXPECT_NE(error({Step::compute(1), Step::offload(1)})
                .find("node 1 'a' is offloaded and never prefetched"),
            std::string::npos);
  EXPECT_NE(error({Step::offload(0)}).find("resident"), std::string::npos);
}

TEST(SimulatorTest, OffloadNeedsTheStorageAlone) {
  // v is a view of a: offloading a while v is live would leave v pointing
  // at freed memory.
  Graph g;
  g.nodes = {makeNode("x", 1, 0, {}, NodeKind::Input),
             makeNode("a", 100, 1, {0}),
             makeNode("v", 0, 0, {1}, NodeKind::Forward, 1),
             makeNode("d", 1, 1, {2}, NodeKind::Backward)};
  g.outputs = {3};
  HostLink link = slowLink();
  Simulation shared =
      simulate(g, steps({Step::compute(1), Step::compute(2), Step::offload(1)}),
               nullptr, &link);
  EXPECT_NE(shared.error.find("no other live value may share it"),
            std::string::npos)
      << shared.error;
  // The view alone on it may go: its whole storage moves and comes back.
  Simulation alone =
      simulate(g,
               steps({Step::compute(1), Step::compute(2), Step::free(1),
                      Step::offload(2), Step::prefetch(2), Step::compute(3)}),
               nullptr, &link);
  ASSERT_TRUE(alone.valid()) << alone.error;
  EXPECT_EQ(alone.bytesMoved, 200);
}

TEST(SimulatorTest, WaitHoldsTheBytesUntilItAndTheCopy) {
  Graph g = offloadGraph();
  HostLink link = slowLink();
  // As in OffloadFreesWhenTheCopyIsDone, a's copy is done at 11. A wait
  // right after the offload (clock 10) changes nothing: a still counts at b
  // and goes at c, where the copy is done.
  Simulation early =
      simulate(g,
               steps({Step::compute(1), Step::offload(1), Step::wait(1),
                      Step::compute(2), Step::compute(3), Step::free(2),
                      Step::prefetch(1), Step::compute(4), Step::free(1),
                      Step::free(3)}),
               nullptr, &link);
  ASSERT_TRUE(early.valid()) << early.error;
  EXPECT_EQ(early.peakBytes, 1101);
  EXPECT_EQ(early.offloadEnds, (std::vector<size_t>{4}));
  EXPECT_EQ(early.time, 41);
  // A wait after c holds a's bytes through c, though the copy is done: they
  // go at the wait, and the compute stream does not wait.
  std::vector<StorageLifetime> lifetimes;
  Simulation late = simulate(
      g,
      steps({Step::compute(1), Step::offload(1), Step::compute(2),
             Step::compute(3), Step::wait(1), Step::free(2), Step::prefetch(1),
             Step::compute(4), Step::free(1), Step::free(3)}),
      &lifetimes, &link);
  ASSERT_TRUE(late.valid()) << late.error;
  EXPECT_EQ(
      late.liveAfterStep,
      (std::vector<int64_t>{101, 101, 1101, 1111, 1011, 11, 111, 112, 12, 2}));
  EXPECT_EQ(late.offloadEnds, (std::vector<size_t>{4}));
  EXPECT_EQ(lifetimes[0].end, 4u);
  EXPECT_EQ(late.time, 41);
  EXPECT_EQ(late.stall, 1);
}

TEST(SimulatorTest, WaitViolations) {
  Graph g = offloadGraph();
  HostLink link = slowLink();
  auto error = [&](std::initializer_list<Step> list) {
    return simulate(g, steps(list), nullptr, &link).error;
  };
  EXPECT_NE(error({Step::compute(1), Step::wait(1)})
                .find("step 1 (wait 1 'a'): no offload of the value is "
                      "waiting for it"),
            std::string::npos);
  // Two waits for one offload.
  EXPECT_NE(
      error({Step::compute(1), Step::offload(1), Step::wait(1), Step::wait(1)})
          .find("no offload of the value is waiting for it"),
      std::string::npos);
}

TEST(SimulatorTest, LastUseScheduleKeepsTheWaits) {
  Graph g = offloadGraph();
  std::string error;
  Schedule lastUse = scheduleAtLastUse(
      g,
      {Step::compute(1), Step::offload(1), Step::compute(2), Step::compute(3),
       Step::wait(1), Step::prefetch(1), Step::compute(4)},
      &error);
  ASSERT_TRUE(error.empty()) << error;
  HostLink link = slowLink();
  EXPECT_EQ(
      lastUse.steps,
      (std::vector<Step>{Step::compute(1), Step::offload(1), Step::compute(2),
                         Step::compute(3), Step::free(2), Step::wait(1),
                         Step::prefetch(1), Step::compute(4), Step::free(3),
                         Step::free(1)}));
  EXPECT_TRUE(simulate(g, lastUse, nullptr, &link).valid());
}
