//===- ArenaTest.cpp - offset assignment planners and verifier ------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Arena/Arena.h"

#include "remat/Solver/Search/ArenaFit.h"
#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/Simulator.h"

#include "TestGraphs.h"

#include "gtest/gtest.h"

#include <functional>
#include <random>

using namespace remat;

namespace {

ArenaProblem makeProblem(std::vector<ArenaBuffer> buffers,
                         int64_t alignment = 1) {
  ArenaProblem problem;
  problem.buffers = std::move(buffers);
  problem.alignment = alignment;
  return problem;
}

ArenaPlan planWith(const ArenaProblem &problem, std::vector<int64_t> offsets) {
  ArenaPlan plan;
  plan.planner = "hand";
  plan.offsets = std::move(offsets);
  return finishArenaPlan(problem, std::move(plan));
}

/// The smallest arena, by trying every offset of every buffer for arenas of
/// growing size (independent of the first-fit argument the exact planner
/// relies on). Alignment 1, small sizes only.
int64_t bruteForceArena(const ArenaProblem &problem) {
  int n = problem.size();
  std::vector<int64_t> offsets(n, 0);
  for (int64_t bytes = problem.lowerBound();; ++bytes) {
    std::function<bool(int)> assign = [&](int i) {
      if (i == n)
        return true;
      for (int64_t at = 0; at + problem.buffers[i].bytes <= bytes; ++at) {
        bool clash = false;
        for (int j = 0; j < i && !clash; ++j)
          clash = problem.conflict(i, j) && problem.buffers[i].bytes > 0 &&
                  problem.buffers[j].bytes > 0 &&
                  at < offsets[j] + problem.buffers[j].bytes &&
                  offsets[j] < at + problem.buffers[i].bytes;
        if (clash)
          continue;
        offsets[i] = at;
        if (assign(i + 1))
          return true;
      }
      return false;
    };
    if (assign(0))
      return bytes;
  }
}

ArenaProblem randomProblem(std::mt19937 &rng, int n, int steps, int maxBytes) {
  std::uniform_int_distribution<int> step(0, steps - 1);
  std::uniform_int_distribution<int> bytes(1, maxBytes);
  ArenaProblem problem;
  for (int i = 0; i < n; ++i) {
    int a = step(rng), b = step(rng);
    problem.buffers.push_back({bytes(rng), std::min(a, b), std::max(a, b)});
  }
  return problem;
}

TEST(ArenaTest, LowerBoundIsTheLargestLiveSum) {
  // a [0,2] 4 bytes, b [1,1] 3 bytes, c [2,3] 5 bytes: step 2 holds a and
  // c = 9, step 1 holds a and b = 7.
  ArenaProblem problem = makeProblem({{4, 0, 2}, {3, 1, 1}, {5, 2, 3}});
  EXPECT_EQ(problem.lowerBound(), 9);
  // With 4-byte alignment b and c take 4 and 8: steps 1 and 2 hold 8 and
  // 12.
  problem.alignment = 4;
  EXPECT_EQ(problem.lowerBound(), 12);
}

TEST(ArenaTest, VerifierCatchesEveryViolation) {
  ArenaProblem problem = makeProblem({{4, 0, 2}, {3, 1, 1}, {5, 3, 3}});
  // a at 0, b on top of it, c (not live with a or b) at 0: 7 bytes.
  ArenaPlan good = planWith(problem, {0, 4, 0});
  EXPECT_TRUE(good.valid()) << good.error;
  EXPECT_EQ(good.bytes, 7);

  ArenaPlan overlap = good;
  overlap.offsets = {0, 3, 0};
  EXPECT_NE(verifyArena(problem, overlap)
                .find("buffers 0 and 1 are live "
                      "together"),
            std::string::npos)
      << verifyArena(problem, overlap);
  ArenaPlan outside = good;
  outside.bytes = 6;
  EXPECT_NE(verifyArena(problem, outside).find("ends past the arena"),
            std::string::npos);
  ArenaPlan missing = good;
  missing.offsets.pop_back();
  EXPECT_NE(verifyArena(problem, missing).find("2 offsets for 3 buffers"),
            std::string::npos);
  ArenaPlan negative = good;
  negative.offsets[2] = -1;
  EXPECT_NE(verifyArena(problem, negative).find("not a non-negative"),
            std::string::npos);
  problem.alignment = 8;
  ArenaPlan misaligned = good;
  misaligned.bytes = 64;
  EXPECT_NE(verifyArena(problem, misaligned)
                .find("buffer 1 is at offset 4, "
                      "not a non-negative "
                      "multiple of the "
                      "alignment 8"),
            std::string::npos);
  problem.maxBytes = 6;
  problem.alignment = 1;
  EXPECT_NE(verifyArena(problem, good).find("exceeds the limit of 6"),
            std::string::npos);
}

TEST(ArenaTest, IllFormedProblemsAreRefused) {
  EXPECT_NE(makeProblem({{-1, 0, 0}}).check().find("negative size"),
            std::string::npos);
  EXPECT_NE(makeProblem({{1, 2, 1}}).check().find("ends (1) before"),
            std::string::npos);
  EXPECT_NE(makeProblem({{1, 0, 0}}, 3).check().find("not a power of two"),
            std::string::npos);
  ArenaPlan plan =
      planArenaGreedy(makeProblem({{1, 2, 1}}), ArenaOrder::BySize);
  EXPECT_FALSE(plan.valid());
}

TEST(ArenaTest, GreedyBySizeBestFit) {
  // Worked by hand, largest first: a (6, [0,1]) at 0; c (4, [1,3]) live
  // with a: at 6; b (2, [2,3]) live with c only: the gap [0,6) below c is
  // the only one and the smallest that fits: at 0. Arena 10 = a + c at
  // step 1, the lower bound.
  ArenaProblem problem = makeProblem({{6, 0, 1}, {2, 2, 3}, {4, 1, 3}});
  ArenaPlan plan = planArenaGreedy(problem, ArenaOrder::BySize);
  ASSERT_TRUE(plan.valid()) << plan.error;
  EXPECT_EQ(plan.offsets, (std::vector<int64_t>{0, 0, 6}));
  EXPECT_EQ(plan.bytes, 10);
  EXPECT_TRUE(plan.optimal);
}

/// The instance worked by hand below: greedy plans end at 9, the bound is 8.
static ArenaProblem makeWorkedProblem() {
  return makeProblem({{4, 0, 1}, {3, 1, 3}, {3, 2, 2}, {2, 2, 2}});
}

/// planArena without the exact search and with one iteration for each of
/// its four order searches, which then end at the greedy plans' 9.
static ArenaOptions getShortSearchOptions() {
  ArenaOptions options;
  options.exact = false;
  options.searchIterations = 4;
  return options;
}

TEST(ArenaTest, ExactBeatsGreedyWorkedByHand) {
  // a (4, [0,1]), b (3, [1,3]), c (3, [2,2]), d (2, [2,2]). Lower bound:
  // step 1 holds a + b = 7, step 2 b + c + d = 8.
  // Greedy by size: a at 0; b, live with a, at 4; c, live with b only,
  // fits the gap [0,4) below it: at 0; d, live with b and c, finds the gap
  // [3,4) too small: on top at 7. Arena 9. By start the same order and the
  // same 9.
  // Exact: d at 0, c at 2, b at 5 (above a's [0,4)): 8, the bound.
  ArenaProblem problem = makeWorkedProblem();
  EXPECT_EQ(problem.lowerBound(), 8);
  ArenaPlan bySize = planArenaGreedy(problem, ArenaOrder::BySize);
  ArenaPlan byStart = planArenaGreedy(problem, ArenaOrder::ByStart);
  EXPECT_EQ(bySize.offsets, (std::vector<int64_t>{0, 4, 0, 7}));
  EXPECT_EQ(bySize.bytes, 9);
  EXPECT_FALSE(bySize.optimal);
  EXPECT_EQ(byStart.bytes, 9);
  ArenaPlan exact = planArenaExact(problem, ArenaExactOptions(), &bySize);
  ASSERT_TRUE(exact.valid()) << exact.error;
  EXPECT_EQ(exact.bytes, 8);
  EXPECT_EQ(exact.planner, "exact");
  EXPECT_TRUE(exact.optimal);
  // planArena plans the canonical problem, its steps renumbered by the
  // starts (0, 1, 2): b ends at 2, so by size x steps too a (8) goes before
  // b (6) and every greedy order places 9 bytes. Its order search, from the
  // best greedy plan, finds the 8 without the exact search.
  ArenaOptions greedyOnly;
  greedyOnly.exact = false;
  ArenaPlan best = planArena(problem, greedyOnly);
  EXPECT_EQ(best.bytes, 8);
  EXPECT_EQ(best.planner, "order-search");
  EXPECT_TRUE(best.optimal);
}

TEST(ArenaTest, OnePlanForTheSameOverlaps) {
  // The instance above with its steps spread out and shifted (every overlap
  // kept, start order kept) and its buffers listed in another order:
  // planArena plans both as one canonical problem, so each buffer gets the
  // same offset.
  ArenaProblem problem = makeWorkedProblem();
  ArenaProblem spread =
      makeProblem({{2, 17, 17}, {3, 17, 18}, {4, 10, 14}, {3, 14, 25}});
  ArenaPlan plan = planArena(problem, ArenaOptions());
  ArenaPlan spreadPlan = planArena(spread, ArenaOptions());
  ASSERT_TRUE(plan.valid()) << plan.error;
  ASSERT_TRUE(spreadPlan.valid()) << spreadPlan.error;
  EXPECT_EQ(plan.bytes, spreadPlan.bytes);
  EXPECT_EQ(spreadPlan.offsets,
            (std::vector<int64_t>{plan.offsets[3], plan.offsets[2],
                                  plan.offsets[0], plan.offsets[1]}));
}

TEST(ArenaTest, OrderSearchImprovesOnTheGreedyOrder) {
  // The instance above, searched from the by-size order (a, b, c, d): some
  // order reaches the bound 8, and the search finds one.
  ArenaProblem problem = makeWorkedProblem();
  ArenaSearchOptions options;
  options.iterations = 100;
  ArenaPlan searched = searchArenaOrder(problem, {0, 1, 2, 3}, options, "s");
  ASSERT_TRUE(searched.valid()) << searched.error;
  EXPECT_EQ(searched.bytes, 8);
  EXPECT_TRUE(searched.optimal);
  // No iteration: the order as given.
  options.iterations = 0;
  EXPECT_EQ(searchArenaOrder(problem, {0, 1, 2, 3}, options, "s").bytes, 9);
}

TEST(ArenaTest, SearchesOnToMeetATarget) {
  // The instance above with one iteration for each of planArena's four
  // searches: they end at 9 (the greedy plans'). With a target of 8 (e.g.
  // the arena a rematerialization plan promised) they search on, longer
  // and with new seeds, and meet it; a target they already meet or one
  // below the bound changes nothing or stops at the work limit.
  ArenaProblem problem = makeWorkedProblem();
  ArenaOptions options = getShortSearchOptions();
  ArenaPlan plain = planArena(problem, options);
  ASSERT_TRUE(plain.valid()) << plain.error;
  EXPECT_EQ(plain.bytes, 9);
  options.targetBytes = 9;
  EXPECT_EQ(planArena(problem, options).bytes, 9);
  options.targetBytes = 8;
  ArenaPlan met = planArena(problem, options);
  ASSERT_TRUE(met.valid()) << met.error;
  EXPECT_EQ(met.bytes, 8);
  EXPECT_EQ(met.planner, "order-search");
  options.targetBytes = 7;
  options.targetWork = 0;
  EXPECT_EQ(planArena(problem, options).bytes, 9);
}

TEST(ArenaTest, ACloseShareSearchesBelowAGenerousTarget) {
  // The instance above: a target of 9 is met by the first searches, which
  // then stop at 9, 12.5 % above the bound 8. With a close share of 2 %
  // (a lowering's, kArenaCloseShare) they search on toward 8 and reach it;
  // a share that 9 already meets (12.5 %) stops at 9 as before, and
  // without a target the share asks for nothing.
  ArenaProblem problem = makeWorkedProblem();
  ArenaOptions options = getShortSearchOptions();
  options.targetBytes = 9;
  options.closeShare = kArenaCloseShare;
  ArenaPlan close = planArena(problem, options);
  ASSERT_TRUE(close.valid()) << close.error;
  EXPECT_EQ(close.bytes, 8);
  options.closeShare = 0.125;
  EXPECT_EQ(planArena(problem, options).bytes, 9);
  options.closeShare = kArenaCloseShare;
  options.targetBytes = -1;
  EXPECT_EQ(planArena(problem, options).bytes, 9);
}

TEST(ArenaTest, FirstFitTakesTheLowestGap) {
  // a (3, [0,3]), b (1, [1,3]), c (1, [2,3]), d (1, [1,2]), e (4, [0,0]),
  // f (2, [3,3]). By size (ties: earlier, then longer first): e, a, f, b,
  // d, c. e at 0; a, live with e, at 4; f, live with a, in [0,4): at 0; b,
  // live with a and f, in [2,4): at 2. d is live with a [4,7) and b [2,3):
  // gaps [0,2) and [3,4). First fit takes the lower: 0; best fit the
  // tighter: 3. Then c, live with a, b, d, f: first fit finds [3,4) free
  // (arena 7, the bound: a + b + c + f at step 3); best fit finds no gap
  // and goes on top at 7 (arena 8).
  ArenaProblem problem = makeProblem(
      {{3, 0, 3}, {1, 1, 3}, {1, 2, 3}, {1, 1, 2}, {4, 0, 0}, {2, 3, 3}});
  ArenaPlan first =
      planArenaGreedy(problem, ArenaOrder::BySize, ArenaPlacement::FirstFit);
  ArenaPlan best =
      planArenaGreedy(problem, ArenaOrder::BySize, ArenaPlacement::BestFit);
  EXPECT_EQ(first.offsets, (std::vector<int64_t>{4, 2, 3, 0, 0, 0}));
  EXPECT_EQ(first.bytes, 7);
  EXPECT_TRUE(first.optimal);
  EXPECT_EQ(first.planner, "first-fit-by-size");
  EXPECT_EQ(best.offsets, (std::vector<int64_t>{4, 2, 7, 3, 0, 0}));
  EXPECT_EQ(best.bytes, 8);
}

TEST(ArenaTest, AlignmentRoundsOffsetsAndSizes) {
  // 5 and 3 bytes live together at alignment 8: offsets 0 and 8, arena 16.
  ArenaProblem problem = makeProblem({{5, 0, 1}, {3, 1, 2}}, 8);
  ArenaPlan plan = planArena(problem, ArenaOptions());
  ASSERT_TRUE(plan.valid()) << plan.error;
  EXPECT_EQ(plan.bytes, 16);
  EXPECT_EQ(plan.offsets[0] % 8, 0);
  EXPECT_EQ(plan.offsets[1] % 8, 0);
}

TEST(ArenaTest, ArenaOverTheLimitIsAnErrorNotAWrap) {
  // Two buffers of 2^61 + 2^60 bytes live together: 3 * 2^61 > 2^62.
  int64_t big = (int64_t(1) << 61) + (int64_t(1) << 60);
  ArenaProblem problem = makeProblem({{big, 0, 1}, {big, 0, 1}});
  EXPECT_EQ(problem.lowerBound(), kMaxTotalBytes + 1);
  ArenaPlan plan = planArena(problem, ArenaOptions());
  EXPECT_FALSE(plan.valid());
  EXPECT_NE(plan.error.find("would exceed"), std::string::npos) << plan.error;
  // A smaller address space: 3 + 3 bytes in at most 5.
  ArenaProblem small = makeProblem({{3, 0, 1}, {3, 1, 2}});
  small.maxBytes = 5;
  EXPECT_FALSE(planArena(small, ArenaOptions()).valid());
  small.maxBytes = 6;
  EXPECT_TRUE(planArena(small, ArenaOptions()).valid());
  // One buffer larger than the limit once aligned.
  ArenaProblem huge = makeProblem({{kMaxTotalBytes, 0, 0}}, 16);
  EXPECT_NE(huge.check().find("does not fit"), std::string::npos);
}

TEST(ArenaTest, ExactMatchesBruteForceGreedyNeverBelow) {
  std::mt19937 rng(26);
  int greedyAbove = 0;
  for (int round = 0; round < 300; ++round) {
    ArenaProblem problem = randomProblem(rng, 2 + round % 5, 5, 5);
    int64_t best = bruteForceArena(problem);
    ArenaPlan greedy = planArenaGreedy(problem, ArenaOrder::BySize);
    ArenaPlan exact = planArenaExact(problem, ArenaExactOptions(), &greedy);
    ArenaPlan planned = planArena(problem, ArenaOptions());
    EXPECT_EQ(planned.bytes, best) << "round " << round;
    ASSERT_TRUE(greedy.valid()) << greedy.error;
    ASSERT_TRUE(exact.valid()) << exact.error;
    EXPECT_EQ(verifyArena(problem, exact), "");
    EXPECT_EQ(exact.bytes, best) << "round " << round;
    EXPECT_TRUE(exact.optimal);
    EXPECT_GE(greedy.bytes, best);
    greedyAbove += greedy.bytes > best;
  }
  // The instances are small enough for the greedy to be optimal on most,
  // but not all of them: the exact search had something to find.
  EXPECT_GT(greedyAbove, 0);
}

TEST(ArenaTest, BuffersOfAScheduleFollowLastReads) {
  // x (input, 10) -> a (100) -> b (1000) -> c (10000, output), and a view v
  // of a that c reads too. The schedule frees b and a late; arenaOfSchedule
  // frees every value after its last read, as the rematerialized IR does:
  // compute a (step 0), b (1), v (2), free a (3: its last reader is v, but
  // v keeps its storage), compute c (4), free b (5), free v (6: a's
  // storage drops its last reference).
  Graph g;
  test::addNode(g, "x", NodeKind::Input, 10, 0, {});
  int a = test::addNode(g, "a", NodeKind::Forward, 100, 1, {0});
  int b = test::addNode(g, "b", NodeKind::Forward, 1000, 1, {a});
  int v = test::addNode(g, "v", NodeKind::Forward, 0, 0, {});
  g.nodes[v].aliasOf = a;
  int c = test::addNode(g, "c", NodeKind::Backward, 10000, 1, {b, v});
  g.outputs = {c};
  Schedule schedule{{Step::compute(a), Step::compute(b), Step::compute(v),
                     Step::compute(c), Step::free(b), Step::free(v),
                     Step::free(a)}};
  std::string error;
  ArenaProblem problem = arenaOfSchedule(g, schedule, 1, &error);
  ASSERT_EQ(error, "");
  // a's storage [0, 5], b [1, 4], c [4, 6] (live at the end).
  ASSERT_EQ(problem.size(), 3);
  EXPECT_EQ(problem.buffers[0].bytes, 100);
  EXPECT_EQ(problem.buffers[0].begin, 0);
  EXPECT_EQ(problem.buffers[0].end, 5);
  EXPECT_EQ(problem.buffers[1].begin, 1);
  EXPECT_EQ(problem.buffers[1].end, 4);
  EXPECT_EQ(problem.buffers[2].begin, 4);
  EXPECT_EQ(problem.buffers[2].end, 6);
  // All three are live at step 4, as the simulator's peak counts them.
  EXPECT_EQ(problem.lowerBound(), 11100);
  EXPECT_EQ(simulate(g, schedule).peakBytes - g.residentBytes(), 11100);

  // A schedule that does not simulate is an error, not an empty arena.
  arenaOfSchedule(g, Schedule{{Step::compute(c)}}, 1, &error);
  EXPECT_NE(error.find("before one of its dependencies"), std::string::npos)
      << error;
}

} // namespace

namespace {

/// remat-pipeline-arena-errors.mlir's step in 16-byte units: x (input, 64),
/// then v0..v7 and the loss, each also reading the one before, so that its
/// order is the only one.
Graph fragmentingChain() {
  Graph g;
  int x = test::addNode(g, "x", NodeKind::Input, 64, 0, {});
  int v0 = test::addNode(g, "v0", NodeKind::Forward, 128, 1, {x});
  int v1 = test::addNode(g, "v1", NodeKind::Forward, 320, 1, {x, v0});
  int v2 = test::addNode(g, "v2", NodeKind::Forward, 128, 1, {v1});
  int v3 = test::addNode(g, "v3", NodeKind::Forward, 256, 1, {x, v2});
  int v4 = test::addNode(g, "v4", NodeKind::Forward, 256, 1, {v3});
  int v5 = test::addNode(g, "v5", NodeKind::Forward, 64, 1, {v2, v4});
  int v6 = test::addNode(g, "v6", NodeKind::Forward, 256, 1, {v0, v5});
  int v7 = test::addNode(g, "v7", NodeKind::Forward, 256, 1, {v6});
  int loss = test::addNode(g, "loss", NodeKind::Forward, 16, 1, {v4, v7});
  g.outputs = {loss};
  return g;
}

SolveResult resultOf(const Graph &g, const std::vector<int> &order) {
  SolveResult result;
  result.status = SolveStatus::Feasible;
  result.schedule = scheduleFromComputeOrder(g, order);
  Simulation sim = simulate(g, result.schedule);
  result.peakBytes = sim.peakBytes;
  result.cost = sim.cost;
  return result;
}

TEST(ArenaFitTest, ExactThenOrdersThenALowerTarget) {
  Graph g = fragmentingChain();
  // Computing everything once in the only order: 832 bytes of live bytes at
  // most (the budget), but an arena of 832 + 64 = 896 (the exact search
  // proves it).
  SolveResult once = resultOf(g, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  ASSERT_EQ(once.peakBytes, 832);
  // A solver that recomputes v0 for v6 when asked for less (v0 is then
  // not live while v3 and v4 are, and the ranges pack).
  SolveResult again = resultOf(g, {1, 2, 3, 4, 5, 6, 1, 7, 8, 9});
  SolverInfo solver;
  solver.name = "fake";
  solver.solve = [&](const Graph &, const SolveOptions &options) {
    return options.budget < 832 ? again : once;
  };
  SolveOptions options;
  options.budget = 832;
  ArenaFitOptions fitOptions;
  ArenaFit fit =
      fitArena(g, solver, Mode::MinCompute, options, once, fitOptions);
  ASSERT_EQ(fit.error, "");
  EXPECT_TRUE(fit.fits);
  EXPECT_LE(fit.totalBytes, 832);
  EXPECT_EQ(fit.result.schedule.steps, again.schedule.steps);
  ASSERT_EQ(fit.steps.size(), 4u);
  EXPECT_EQ(fit.steps[0], "the first arena of 896 bytes (best-fit-by-size) "
                          "over the budget of 832 bytes with a sum-of-live "
                          "peak of 832 bytes");
  EXPECT_EQ(fit.steps[1], "exact offsets: 896 bytes (optimal), no better");
  EXPECT_EQ(fit.steps[2],
            "other orders of the same computations: no smaller arena");
  EXPECT_EQ(fit.steps[3].rfind("solver target 768 bytes: arena ", 0), 0u)
      << fit.steps[3];
  // The lower target's optimality is not the budget's.
  EXPECT_EQ(fit.result.status, SolveStatus::Feasible);

  // A solver with nothing lower: the smallest arena found, not fitting.
  solver.solve = [&](const Graph &, const SolveOptions &o) {
    SolveResult none;
    none.status = SolveStatus::Infeasible;
    return o.budget < 832 ? none : once;
  };
  ArenaFit stuck =
      fitArena(g, solver, Mode::MinCompute, options, once, fitOptions);
  EXPECT_FALSE(stuck.fits);
  EXPECT_EQ(stuck.totalBytes, 896);
  EXPECT_EQ(stuck.steps.back(), "solver target 768 bytes: no plan");
}

TEST(ArenaTest, EachResultOfAScheduledNodeIsAligned) {
  // m has two results of 4 bytes (8 in all), which the lowering gives a
  // buffer each: at alignment 16 they take 32 bytes, not 16, in the
  // schedule's arena as in the IR's, so that the arena a plan records is
  // the one the IR's verifier finds. A one-result node of 8 bytes takes 16.
  Graph g;
  test::addNode(g, "x", NodeKind::Input, 16, 0, {});
  int m = test::addNode(g, "m", NodeKind::Forward, 8, 1, {0});
  g.nodes[m].partBytes = {4, 4};
  int n = test::addNode(g, "n", NodeKind::Forward, 8, 1, {m});
  g.outputs = {n};
  std::string error;
  ArenaProblem problem = arenaOfSchedule(
      g, Schedule{{Step::compute(m), Step::compute(n)}}, 16, &error);
  ASSERT_EQ(error, "");
  ASSERT_EQ(problem.size(), 2);
  EXPECT_EQ(problem.buffers[0].bytes, 32);
  EXPECT_EQ(problem.buffers[1].bytes, 8);
  EXPECT_EQ(problem.lowerBound(), 48);
  // Unaligned, the parts change nothing.
  EXPECT_EQ(arenaOfSchedule(g, Schedule{{Step::compute(m), Step::compute(n)}},
                            1, &error)
                .buffers[0]
                .bytes,
            8);
}

} // namespace
