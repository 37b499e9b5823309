//===- OrderingTest.cpp - memory-aware orders and hoisted backward nodes --===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Core/Ordering.h"
#include "remat/Solver/Testing/Generators.h"
#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/SolverSupport.h"

#include "TestGraphs.h"

#include "gtest/gtest.h"

using namespace remat;
using namespace remat::test;

namespace {

/// x -> a -> b (loss, an output); seed is the backward's cotangent. The
/// tracer emitted the big tangent-independent backward node `early` (reads
/// a) first, then g1 (big) and g2, then `late`, which reads early and g2.
Graph earlyBackwardGraph() {
  Graph g;
  int x = addNode(g, "x", NodeKind::Input, 1, 0, {});
  int a = addNode(g, "a", NodeKind::Forward, 1, 1, {x});
  int b = addNode(g, "b", NodeKind::Forward, 1, 1, {a});
  int seed = addNode(g, "seed", NodeKind::Input, 1, 0, {});
  int early = addNode(g, "early", NodeKind::Backward, 8, 1, {a});
  int g1 = addNode(g, "g1", NodeKind::Backward, 8, 1, {seed, b});
  int g2 = addNode(g, "g2", NodeKind::Backward, 1, 1, {g1});
  int late = addNode(g, "late", NodeKind::Backward, 1, 1, {early, g2});
  g.outputs = {b, late};
  return g;
}

std::vector<int> allOnce(const Graph &g) {
  std::vector<char> needed = neededNodes(g);
  std::vector<int> order;
  for (int id = 0; id < g.size(); ++id)
    if (needed[id])
      order.push_back(id);
  return order;
}

} // namespace

TEST(OrderingTest, EveryPolicyAndTheRepairKeepTheNodesAndCost) {
  GeneratorOptions opts;
  opts.heterogeneous = true;
  for (const char *family : {"resnet", "unet", "densenet", "transformer"}) {
    Graph g = makeFamily(family, 120, opts);
    std::vector<char> keep(g.size(), 0);
    std::vector<int> fwd = forwardOrder(g);
    for (size_t i = 0; i < fwd.size(); i += 3)
      keep[fwd[i]] = 1;
    for (const CheckpointOptions &variant : builderVariants()) {
      std::vector<int> order = computeOrderFromCheckpoints(g, keep, variant);
      Simulation given = simulate(g, scheduleFromComputeOrder(g, order));
      ASSERT_TRUE(given.valid()) << given.error;
      for (OrderPolicy policy :
           {OrderPolicy::OnDemand, OrderPolicy::OnDemandLatestFirst,
            OrderPolicy::OnDemandLargestLast, OrderPolicy::OnDemandWorkingSet,
            OrderPolicy::MemoryGreedy, OrderPolicy::Best}) {
        std::vector<int> moved = reorder(g, order, policy);
        std::vector<int> a = order, b = moved;
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        EXPECT_EQ(a, b) << family;
        Simulation sim = simulate(g, scheduleFromComputeOrder(g, moved));
        ASSERT_TRUE(sim.valid()) << family << ": " << sim.error;
        EXPECT_DOUBLE_EQ(sim.cost, given.cost) << family;
        if (policy == OrderPolicy::Best) {
          EXPECT_LE(sim.peakBytes, given.peakBytes) << family;
        }
        // The repair of any of them: the same work, never a higher peak.
        std::vector<int> repaired = repairPeak(g, moved);
        std::vector<int> c = repaired;
        std::sort(c.begin(), c.end());
        EXPECT_EQ(c, b) << family;
        Simulation after = simulate(g, scheduleFromComputeOrder(g, repaired));
        ASSERT_TRUE(after.valid()) << family << ": " << after.error;
        EXPECT_DOUBLE_EQ(after.cost, given.cost) << family;
        EXPECT_LE(after.peakBytes, sim.peakBytes) << family;
      }
    }
  }
}

TEST(OrderingTest, InstanceDagOrdersRecomputations) {
  // f1 is computed, read by f2, then recomputed for d_f1: the second copy
  // waits for every reader of the first.
  GeneratorOptions opts;
  opts.params = false;
  Graph g = makeChain(3, opts);
  std::vector<int> order = {1, 2, 3, 1, 4};
  std::vector<std::vector<int>> preds = instancePredecessors(g, order);
  // Position 3 (the copy of f1) follows position 1 (f2 read the first copy).
  EXPECT_NE(std::find(preds[3].begin(), preds[3].end(), 1), preds[3].end());
  EXPECT_NE(std::find(preds[3].begin(), preds[3].end(), 0), preds[3].end());
}

TEST(OrderingTest, OnDemandDefersEarlyBackwardWork) {
  Graph g = earlyBackwardGraph();
  std::vector<int> order = allOnce(g);
  Simulation given = simulate(g, scheduleFromComputeOrder(g, order));
  ASSERT_TRUE(given.valid()) << given.error;
  // Given: at g2, x seed b early g1 g2 are live: 1 + 1 + 1 + 8 + 8 + 1.
  EXPECT_EQ(given.peakBytes, 20);
  // Latest first: a b g1 g2 early late; at early: x seed a b g2 early.
  std::vector<int> lazy = reorder(g, order, OrderPolicy::OnDemandLatestFirst);
  Simulation sim = simulate(g, scheduleFromComputeOrder(g, lazy));
  ASSERT_TRUE(sim.valid()) << sim.error;
  EXPECT_EQ(sim.peakBytes, 13);
  EXPECT_DOUBLE_EQ(sim.cost, given.cost);
  Simulation best =
      simulate(g, scheduleFromComputeOrder(g, bestOrder(g, order)));
  EXPECT_EQ(best.peakBytes, 13);
}

TEST(OrderingTest, LargestLastHoldsTheBigOperandShortest) {
  // `out` reads two small gradient chains (each through a 4-byte temporary)
  // and `big` (8 bytes, a value recomputed from the forward's `a`), which
  // the tracer placed between them. Running `big` last holds it only while
  // `out` runs.
  Graph g;
  int x = addNode(g, "x", NodeKind::Input, 1, 0, {});
  int a = addNode(g, "a", NodeKind::Forward, 1, 1, {x});
  int loss = addNode(g, "loss", NodeKind::Forward, 1, 1, {a});
  int seed = addNode(g, "seed", NodeKind::Input, 1, 0, {});
  int p1 = addNode(g, "p1", NodeKind::Backward, 4, 1, {seed, loss});
  int s1 = addNode(g, "s1", NodeKind::Backward, 1, 1, {p1});
  int big = addNode(g, "big", NodeKind::Backward, 8, 1, {a});
  int p2 = addNode(g, "p2", NodeKind::Backward, 4, 1, {seed, loss});
  int s2 = addNode(g, "s2", NodeKind::Backward, 1, 1, {p2});
  int out = addNode(g, "out", NodeKind::Backward, 1, 1, {s1, big, s2});
  g.outputs = {loss, out};
  std::vector<int> order = allOnce(g);
  auto peak = [&](OrderPolicy policy) {
    Simulation sim =
        simulate(g, scheduleFromComputeOrder(g, reorder(g, order, policy)));
    EXPECT_TRUE(sim.valid()) << sim.error;
    return sim.peakBytes;
  };
  // Given and on demand: big is held while p2 and s2 run: x seed loss s1
  // big p2 s2 = 1 + 1 + 1 + 1 + 8 + 4 + 1 (a is freed after big).
  EXPECT_EQ(peak(OrderPolicy::Given), 17);
  EXPECT_EQ(peak(OrderPolicy::OnDemand), 17);
  // Latest first runs the second chain first, then big, then the first.
  EXPECT_EQ(peak(OrderPolicy::OnDemandLatestFirst), 17);
  // Largest last: both chains, then big: x seed a loss s1 s2 big = 14 (a
  // is freed once big has read it).
  EXPECT_EQ(peak(OrderPolicy::OnDemandLargestLast), 14);
  EXPECT_EQ(peak(OrderPolicy::Best), 14);
}

TEST(OrderingTest, WorkingSetRunsTheGradientChainFirst) {
  // Two backward nodes each read a gradient (q1, q2: 8 bytes, through a
  // 4-byte temporary) and a value recomputed from the forward's `a` (c1,
  // c2: 8 bytes), as a normalization's backward reads the incoming gradient
  // and its recomputed input. c1 comes before its gradient chain in the
  // given order, c2 after. Only the working-set order runs both chains
  // before the value, whatever the given order.
  Graph g;
  int x = addNode(g, "x", NodeKind::Input, 1, 0, {});
  int a = addNode(g, "a", NodeKind::Forward, 1, 1, {x});
  int loss = addNode(g, "loss", NodeKind::Forward, 1, 1, {a});
  int seed = addNode(g, "seed", NodeKind::Input, 1, 0, {});
  int c1 = addNode(g, "c1", NodeKind::Backward, 8, 1, {a});
  int p1 = addNode(g, "p1", NodeKind::Backward, 4, 1, {seed, loss});
  int q1 = addNode(g, "q1", NodeKind::Backward, 8, 1, {p1});
  int out1 = addNode(g, "out1", NodeKind::Backward, 1, 1, {c1, q1});
  int p2 = addNode(g, "p2", NodeKind::Backward, 4, 1, {seed, loss});
  int q2 = addNode(g, "q2", NodeKind::Backward, 8, 1, {p2});
  int c2 = addNode(g, "c2", NodeKind::Backward, 8, 1, {a});
  int out2 = addNode(g, "out2", NodeKind::Backward, 1, 1, {q2, c2});
  g.outputs = {loss, out1, out2};
  std::vector<int> order = allOnce(g);
  auto peak = [&](OrderPolicy policy) {
    Simulation sim =
        simulate(g, scheduleFromComputeOrder(g, reorder(g, order, policy)));
    EXPECT_TRUE(sim.valid()) << sim.error;
    return sim.peakBytes;
  };
  // x seed a loss = 4 live throughout the first half. Given: c1 p1 q1 =
  // 4 + 8 + 4 + 8 when q1 runs (p1 is freed after it).
  EXPECT_EQ(peak(OrderPolicy::Given), 24);
  EXPECT_EQ(peak(OrderPolicy::OnDemand), 24);
  // c1 and q1 allocate the same: largest last keeps the given order.
  EXPECT_EQ(peak(OrderPolicy::OnDemandLargestLast), 24);
  // Latest first mends out1 but runs c2 before q2's chain: x seed loss
  // out1 c2 p2 q2 = 24 (a is freed after c2).
  EXPECT_EQ(peak(OrderPolicy::OnDemandLatestFirst), 24);
  // Working sets: q1 needs 12 bytes beyond what is live (p1 and q1), c1
  // needs 9 (a and c1): q1's chain runs first, then c1: 4 + q1 + c1 + out1
  // = 21; then out2 the same way (a is freed after c2): 21.
  EXPECT_EQ(peak(OrderPolicy::OnDemandWorkingSet), 21);
  EXPECT_LE(peak(OrderPolicy::Best), 21);
}

TEST(OrderingTest, HoistedBackwardNodeRunsInTheForwardPass) {
  // a (4 bytes) is read by the backward only through mask (1 byte), which
  // does not depend on the cotangent: keeping mask instead of a saves 3.
  Graph g;
  int x = addNode(g, "x", NodeKind::Input, 1, 0, {});
  int a = addNode(g, "a", NodeKind::Forward, 4, 1, {x});
  int loss = addNode(g, "loss", NodeKind::Forward, 1, 1, {a});
  int seed = addNode(g, "seed", NodeKind::Input, 1, 0, {});
  int big = addNode(g, "big", NodeKind::Backward, 4, 1, {seed, loss});
  int mask = addNode(g, "mask", NodeKind::Backward, 1, 1, {a});
  int dx = addNode(g, "dx", NodeKind::Backward, 1, 1, {big, mask});
  g.outputs = {loss, dx};
  std::vector<char> recomputable = recomputableNodes(g);
  EXPECT_TRUE(recomputable[mask]);
  EXPECT_FALSE(recomputable[big]); // reads the cotangent
  EXPECT_FALSE(recomputable[dx]);  // an output of the backward

  std::vector<char> keepA(g.size(), 0), keepMask(g.size(), 0);
  keepA[a] = 1;
  keepMask[mask] = 1;
  CheckpointOptions given;
  given.order = OrderPolicy::Given;
  std::vector<int> order = computeOrderFromCheckpoints(g, keepMask, given);
  // mask runs in the forward pass, before the first cotangent work.
  EXPECT_EQ(order, (std::vector<int>{a, loss, mask, big, dx}));
  Simulation hoisted = simulate(g, scheduleFromCheckpoints(g, keepMask, given));
  Simulation kept = simulate(g, scheduleFromCheckpoints(g, keepA, given));
  ASSERT_TRUE(hoisted.valid()) << hoisted.error;
  ASSERT_TRUE(kept.valid()) << kept.error;
  // Hoisted, the peak is at dx: x seed loss big mask dx = 9. Keeping a,
  // it is at mask: x seed a loss big mask = 12.
  EXPECT_EQ(hoisted.peakBytes, 9);
  EXPECT_EQ(kept.peakBytes, 12);
  EXPECT_DOUBLE_EQ(hoisted.cost, kept.cost);
}

namespace {

/// A random DAG of at most 16 computed nodes: two resident inputs, forward
/// and backward nodes of 1-8 bytes reading one to three earlier nodes,
/// some of them views; the outputs are the nodes nothing reads.
Graph randomSmallGraph(uint64_t seed, int computed) {
  auto next = [&] {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
  };
  Graph g;
  addNode(g, "x", NodeKind::Input, 1, 0, {});
  addNode(g, "seed", NodeKind::Input, 1, 0, {});
  for (int i = 0; i < computed; ++i) {
    std::vector<int> deps;
    for (int k = 0, reads = 1 + next() % 3; k < reads; ++k)
      deps.push_back(next() % g.size());
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    int id = addNode(g, "n" + std::to_string(i),
                     i < computed / 2 ? NodeKind::Forward : NodeKind::Backward,
                     1 + next() % 8, 1, deps);
    // One node in five a view of its last operand when that owns storage.
    const Node &base = g.nodes[deps.back()];
    if (next() % 5 == 0 && !base.isResident() && !base.isView()) {
      g.nodes[id].aliasOf = deps.back();
      g.nodes[id].bytes = 0;
      g.nodes[id].deps.pop_back();
    }
  }
  std::vector<char> read(g.size(), 0);
  for (const Node &node : g.nodes)
    forEachRead(node, [&](int dep) { read[dep] = 1; });
  for (int id = 2; id < g.size(); ++id)
    if (!read[id])
      g.outputs.push_back(id);
  return g;
}

/// The lowest peak of any order of the needed nodes of a graph (at most 16,
/// views of non-views only), each computed once: a DP over the sets of
/// nodes already run, since what is live after a set ran depends on the set
/// alone (a storage while its owner or a view of it is an output or has a
/// reader yet to run).
int64_t exhaustiveOrderPeak(const Graph &g) {
  std::vector<int> nodes = allOnce(g);
  const int n = nodes.size();
  std::vector<int> index(g.size(), -1);
  for (int i = 0; i < n; ++i)
    index[nodes[i]] = i;
  std::vector<uint32_t> readers(n, 0), needs(n, 0), family(n, 0);
  std::vector<char> output(n, 0);
  for (int i = 0; i < n; ++i) {
    const Node &node = g.nodes[nodes[i]];
    forEachRead(node, [&](int dep) {
      if (index[dep] >= 0) {
        readers[index[dep]] |= 1u << i;
        needs[i] |= 1u << index[dep];
      }
    });
    family[index[g.storageOf(nodes[i])]] |= 1u << i;
  }
  for (int out : g.outputs)
    output[index[out]] = 1;
  auto liveAfter = [&](uint32_t set) {
    int64_t bytes = g.residentBytes();
    for (int i = 0; i < n; ++i)
      for (int m = 0; m < n; ++m)
        if ((family[i] >> m & 1) && (set >> m & 1) &&
            (output[m] || (readers[m] & ~set))) {
          bytes += g.nodes[nodes[i]].bytes;
          break;
        }
    return bytes;
  };
  const int64_t never = std::numeric_limits<int64_t>::max();
  std::vector<int64_t> best(size_t(1) << n, never);
  best[0] = g.residentBytes();
  for (uint32_t set = 0; set + 1 < (1u << n); ++set) {
    if (best[set] == never)
      continue;
    const int64_t live = liveAfter(set);
    for (int i = 0; i < n; ++i)
      if (!(set >> i & 1) && (needs[i] & ~set) == 0) {
        int64_t peak = std::max(best[set], live + g.nodes[nodes[i]].bytes);
        int64_t &to = best[set | 1u << i];
        to = std::min(to, peak);
      }
  }
  return best.back();
}

int64_t peakOf(const Graph &g, const std::vector<int> &order) {
  Simulation sim = simulate(g, scheduleFromComputeOrder(g, order));
  EXPECT_TRUE(sim.valid()) << sim.error;
  return sim.valid() ? sim.peakBytes : -1;
}

} // namespace

TEST(OrderingTest, RepairHoistsTheLastReaderAcrossThePeak) {
  Graph g = thresholdAfterRecomputeGraph();
  std::vector<int> order = allOnce(g);
  // Given: at tb, x seed r loss big tb = 1 + 1 + 2 + 1 + 8 + 1 = 14.
  EXPECT_EQ(peakOf(g, order), 14);
  // tb hoisted before big frees r first: at out, x seed loss big tb out =
  // 13, the least any order reaches.
  std::vector<int> repaired = repairPeak(g, order);
  EXPECT_EQ(repaired, (std::vector<int>{2, 3, 5, 4, 6}));
  EXPECT_EQ(peakOf(g, repaired), 13);
  EXPECT_EQ(exhaustiveOrderPeak(g), 13);
}

TEST(OrderingTest, RepairStartsNoRoundWithoutWork) {
  // The graph of RepairHoistsTheLastReaderAcrossThePeak: one round lowers
  // the peak, but with no work left none starts; the rounds are counted.
  Graph g = thresholdAfterRecomputeGraph();
  std::vector<int> order = allOnce(g);
  WorkMeter none(0), plenty(1000000);
  EXPECT_EQ(repairPeak(g, order, &none), order);
  EXPECT_EQ(peakOf(g, repairPeak(g, order, &plenty)), 13);
  EXPECT_GT(plenty.used(), 0);
}

TEST(OrderingTest, RepairSinksAnEarlyAllocationPastThePeak) {
  // `early` (8 bytes) is computed first but read only at the end; the
  // gradient chain p (4) -> q (8) in between peaks with it live.
  Graph g = earlyBackwardGraph();
  std::vector<int> order = allOnce(g);
  EXPECT_EQ(peakOf(g, order), 20);
  // early sunk past g1 and g2: at early, x seed a b g2 early = 13, as the
  // latest-first order (OnDemandDefersEarlyBackwardWork).
  EXPECT_EQ(peakOf(g, repairPeak(g, order)), 13);
  EXPECT_EQ(exhaustiveOrderPeak(g), 13);
}

TEST(OrderingTest, RepairNeverRaisesThePeakAndKeepsTheWork) {
  // Random small DAGs against the exhaustive order: the repair of the given
  // order and of the best policy's order stays between the best any order
  // reaches and where it started and computes the same nodes; repairing the
  // best policy's order reaches the exhaustive peak on most graphs, more
  // often than the policies alone (measured: 46 and 16 of 60).
  int atOptimum = 0, lowered = 0, bestAt = 0;
  const int graphs = 60;
  for (int i = 0; i < graphs; ++i) {
    Graph g = randomSmallGraph(0x9E3779B97F4A7C15ull + i, 12);
    const int64_t least = exhaustiveOrderPeak(g);
    std::vector<int> given = allOnce(g);
    std::vector<int> best = bestOrder(g, given);
    for (const std::vector<int> *order : {&given, &best}) {
      std::vector<int> repaired = repairPeak(g, *order);
      std::vector<int> a = *order, b = repaired;
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      EXPECT_EQ(a, b) << "graph " << i;
      const int64_t before = peakOf(g, *order), after = peakOf(g, repaired);
      EXPECT_LE(after, before) << "graph " << i;
      EXPECT_GE(after, least) << "graph " << i;
      lowered += after < before;
      atOptimum += order == &best && after == least;
      bestAt += order == &best && before == least;
    }
  }
  EXPECT_GT(lowered, 0);
  EXPECT_GT(atOptimum, bestAt);
  EXPECT_GE(atOptimum, graphs / 2);
}
