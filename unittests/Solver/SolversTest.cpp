//===- SolversTest.cpp - every solver against brute force and known answers
//-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Algorithms/Solvers.h"
#include "remat/Solver/Testing/Generators.h"
#include "remat/Solver/Search/Modes.h"
#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/SolverSupport.h"

#include "TestGraphs.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

using namespace remat;
using namespace remat::test;

namespace {

int forwardComputes(const Graph &g, const Schedule &s) {
  int count = 0;
  for (const Step &step : s.steps)
    count += step.kind == Step::Kind::Compute &&
             g.nodes[step.node].kind == NodeKind::Forward;
  return count;
}

/// The solvers these tests run on hundreds of graphs: every registered one
/// but the Checkmate MILPs (too slow here; CheckmateTest covers them) and,
/// unless `withBruteForce`, the exhaustive reference itself.
std::vector<const SolverInfo *> solversUnderTest(bool withBruteForce) {
  std::vector<const SolverInfo *> solvers;
  for (const SolverInfo &info : allSolvers())
    if (info.name.rfind("checkmate", 0) != 0 &&
        (withBruteForce || info.name != "brute-force"))
      solvers.push_back(&info);
  return solvers;
}

/// Checks a result the way a user would: re-simulates it.
void expectVerified(const Graph &g, const SolveOptions &opts,
                    const SolveResult &r, const std::string &what) {
  Simulation sim = simulate(g, r.schedule);
  ASSERT_TRUE(sim.valid()) << what << ": " << sim.error;
  EXPECT_EQ(sim.peakBytes, r.peakBytes) << what;
  EXPECT_DOUBLE_EQ(sim.cost, r.cost) << what;
  EXPECT_LE(r.peakBytes, opts.budget) << what;
}

// Hundreds of random small DAGs: every solver's feasible answer is verified
// and never cheaper than the exact optimum, which is feasible whenever any
// solver is.
TEST(SolversTest, RandomDagsAgainstBruteForce) {
  int compared = 0;
  for (uint64_t seed = 1; seed <= 240; ++seed) {
    GeneratorOptions o = unitOptions();
    o.params = seed % 3 == 0;
    o.heterogeneous = seed % 2 == 0;
    Graph g = makeRandomDag(3 + static_cast<int>(seed % 3), seed, o);
    ASSERT_EQ(g.check(), "") << g.name;
    int64_t top = simulate(g, checkpointAllSchedule(g)).peakBytes;
    int64_t lo = peakLowerBound(g);
    ASSERT_LE(lo, top);
    for (int64_t budget : {top, lo + (top - lo) / 2, lo + 1, lo}) {
      SolveOptions opts;
      opts.budget = budget;
      SolveResult exact = solveBruteForce(g, opts);
      ASSERT_NE(exact.status, SolveStatus::Unsupported) << exact.message;
      if (exact.feasible()) {
        EXPECT_EQ(exact.status, SolveStatus::Optimal);
        expectVerified(g, opts, exact, g.name + " brute-force");
        EXPECT_GE(exact.cost, checkpointAllCost(g) - 1e-9);
      }
      for (const SolverInfo *info : solversUnderTest(false)) {
        SolveResult r = info->solve(g, opts);
        std::string what =
            g.name + " budget " + std::to_string(budget) + " " + info->name;
        if (!r.feasible())
          continue;
        expectVerified(g, opts, r, what);
        ASSERT_TRUE(exact.feasible()) << what << " beat the exact solver";
        EXPECT_GE(r.cost, exact.cost - 1e-9) << what;
        // The portfolio runs the exhaustive solver on graphs this small.
        if (info->name == "auto") {
          EXPECT_EQ(r.status, SolveStatus::Optimal) << what;
          EXPECT_DOUBLE_EQ(r.cost, exact.cost) << what;
        }
        ++compared;
      }
      // Checkpoint-all fits whenever its own peak does.
      if (budget == top) {
        EXPECT_TRUE(solveCheckpointAll(g, opts).feasible()) << g.name;
      }
    }
  }
  EXPECT_GT(compared, 2000);
}

// Under MinPeakUnderOverhead no solver finds a smaller peak than the exact
// one, and every answer respects the cost limit.
TEST(SolversTest, MinPeakAgainstBruteForce) {
  for (uint64_t seed = 300; seed < 360; ++seed) {
    Graph g = makeRandomDag(4, seed, unitOptions());
    SolveOptions opts;
    opts.objective = Objective::MinPeakUnderOverhead;
    SolveResult exact = solveBruteForce(g, opts);
    ASSERT_TRUE(exact.feasible()) << g.name << ": " << exact.message;
    double limit = costLimit(g, opts);
    for (const SolverInfo *info : solversUnderTest(true)) {
      SolveResult r = info->solve(g, opts);
      if (!r.feasible())
        continue;
      expectVerified(g, opts, r, g.name + " " + info->name);
      EXPECT_LE(r.cost, limit + 1e-9) << g.name << " " << info->name;
      EXPECT_GE(r.peakBytes, exact.peakBytes) << g.name << " " << info->name;
    }
  }
}

TEST(ScheduleBuilderTest, CheckpointAllOnAChain) {
  // x -> f1 -> f2 -> f3 -> f4 (loss); d_f3, d_f2, d_f1, d_x; unit sizes.
  Graph g = makeChain(4, unitOptions());
  Simulation sim = simulate(g, checkpointAllSchedule(g));
  ASSERT_TRUE(sim.valid()) << sim.error;
  // 4 forward + 4 backward computations, once each.
  EXPECT_EQ(sim.cost, 8);
  // Peak at d_f3 / d_f2: f1..f4 live, plus d_f3 = 5, plus resident x = 6.
  EXPECT_EQ(sim.peakBytes, 6);
}

TEST(ScheduleBuilderTest, CheckpointSetOnAChain) {
  Graph g = makeChain(4, unitOptions());
  std::vector<char> keep(g.size(), 0);
  keep[2] = 1; // f2
  Schedule s = scheduleFromCheckpoints(g, keep);
  Simulation sim = simulate(g, s);
  ASSERT_TRUE(sim.valid()) << sim.error;
  // Order: f1 f2 f3 f4 d_f3 d_f2 f1 d_f1 d_x: f3 is reused from the forward
  // (last segment), f1 is recomputed once: cost 4 + 1 + 4 = 9.
  EXPECT_EQ(sim.cost, 9);
  // Largest live set: {f2, f3, f4, d_f3} or {f2, f4, d_f3, d_f2} = 4, + x.
  EXPECT_EQ(sim.peakBytes, 5);
  EXPECT_EQ(forwardComputes(g, s), 5);
}

TEST(ScheduleBuilderTest, NoReuseOfTheLastSegment) {
  Graph g = makeChain(4, unitOptions());
  CheckpointOptions options;
  options.reuseLastSegment = false;
  std::vector<char> none(g.size(), 0);
  Simulation sim = simulate(g, scheduleFromCheckpoints(g, none, options));
  ASSERT_TRUE(sim.valid()) << sim.error;
  // Only the loss (an output) is kept; d_f3 recomputes f1 f2 f3, which the
  // rest of the run reuses: 4 + 3 + 4 = 11.
  EXPECT_EQ(sim.cost, 11);
}

TEST(ScheduleBuilderTest, ComputeOrderErrors) {
  Graph g = makeChain(2, unitOptions());
  std::string error;
  EXPECT_TRUE(scheduleFromComputeOrder(g, {2}, &error).steps.empty());
  EXPECT_NE(error.find("before one of its dependencies"), std::string::npos);
  EXPECT_TRUE(scheduleFromComputeOrder(g, {0}, &error).steps.empty());
  EXPECT_NE(error.find("cannot be computed"), std::string::npos);
}

TEST(ScheduleBuilderTest, ArticulationPoints) {
  // ResNet-like: the block outputs (adds) and the stem are articulation
  // points, the convolutions inside a block are jumped over by the skip.
  Graph g = makeResNet(2, unitOptions());
  std::vector<std::string> names;
  for (int id : articulationPoints(g))
    names.push_back(g.nodes[id].name);
  EXPECT_EQ(names, (std::vector<std::string>{"stem", "add0", "add1", "loss"}));
  EXPECT_FALSE(isForwardChain(g));
  EXPECT_TRUE(isForwardChain(makeChain(5, unitOptions())));
}

// Chen et al.: O(sqrt(n)) memory for one extra forward pass. With unit
// sizes, sqrt(n) segments of sqrt(n) nodes: about 2 sqrt(n) live values,
// plus the input, the loss and two gradients.
TEST(KnownAnswersTest, ChenSqrtOnUnitChains) {
  for (int n : {16, 64, 144, 400}) {
    Graph g = makeChain(n, unitOptions());
    SolveOptions opts;
    SolveResult r =
        solveChen(g, opts, ChenRule::Sqrt, ChenCandidates::ArticulationPoints);
    ASSERT_TRUE(r.feasible()) << r.message;
    double root = std::sqrt(static_cast<double>(n));
    EXPECT_LE(r.peakBytes, 2 * root + 4) << n;
    EXPECT_GE(r.peakBytes, root) << n;
    // At most one extra forward pass (n unit forward nodes).
    EXPECT_LE(r.cost, checkpointAllCost(g) + n) << n;
  }
}

static int64_t binomial(int c, int t) {
  int64_t value = 1;
  for (int i = 1; i <= c; ++i)
    value = value * (t + i) / i;
  return value;
}

// Griewank & Walther: with c checkpoints, L steps and t the least integer
// with C(c + t, c) >= L, revolve needs t L - C(c + t, t - 1) forward steps
// (C(c + 1 + t - 1, c + 1) = beta(c + 1, t - 1)). Our count is one more:
// Griewank's adjoint of the last step recomputes x_L itself, while here the
// loss x_L is a graph node the schedule computes. Without checkpoints every
// step is re-advanced from the input: L (L + 1) / 2.
TEST(KnownAnswersTest, RevolveClosedForm) {
  for (int n : {8, 20, 35, 60}) {
    Graph g = makeChain(n, unitOptions());
    Schedule zero = scheduleFromComputeOrder(g, revolveComputeOrder(g, 0));
    ASSERT_TRUE(simulate(g, zero).valid());
    EXPECT_EQ(forwardComputes(g, zero), n * (n + 1) / 2) << n;
    for (int c = 1; c <= 4; ++c) {
      int t = 1;
      while (binomial(c, t) < n)
        ++t;
      int64_t expected = int64_t(t) * n - binomial(c + 1, t - 1) + 1;
      Schedule s = scheduleFromComputeOrder(g, revolveComputeOrder(g, c));
      Simulation sim = simulate(g, s);
      ASSERT_TRUE(sim.valid()) << sim.error;
      EXPECT_EQ(forwardComputes(g, s), expected) << "n=" << n << " c=" << c;
    }
  }
  std::string error;
  EXPECT_TRUE(revolveComputeOrder(makeResNet(2), 2, &error).empty());
  EXPECT_EQ(error, "the forward graph is not a chain");
}

// Feng & Huang's chain algorithm by hand. Vertices s, v1..v5 = t with
// l = 0, 2, 1, 3, 1, 2. Model memory = sum(l(checkpoints), t included) + m:
//   m = 0: all checkpoints, 9.     m = 1: s v1 v3 t, 2+3+2+1 = 8.
//   m = 2: s v2 v3 t, 1+3+2+2 = 8. m = 3: s v2 v4 t, 1+1+2+3 = 7.
//   m = 4: s v2 t, 1+2+4 = 7.      m = 5: 8; m = 6: 9; m = 7 (no interior
//   checkpoint): 2+7 = 9.
// The first minimum is m = 3 with checkpoints {v2, v4}: 7.
TEST(KnownAnswersTest, FengHuangChainByHand) {
  std::vector<int> checkpoints;
  EXPECT_EQ(fengHuangChain({0, 2, 1, 3, 1, 2}, checkpoints), 7);
  EXPECT_EQ(checkpoints, (std::vector<int>{2, 4}));
}

TEST(KnownAnswersTest, CheckpointAllIsOptimalWhenItFits) {
  Graph g = makeTransformer(2);
  SolveResult r = solveCheckpointAll(g, SolveOptions());
  EXPECT_EQ(r.status, SolveStatus::Optimal);
  EXPECT_DOUBLE_EQ(r.cost, checkpointAllCost(g));
  SolveOptions tight;
  tight.budget = r.peakBytes - 1;
  EXPECT_EQ(solveCheckpointAll(g, tight).status, SolveStatus::Infeasible);
}

// Random DAGs with long-range edges have few splitting vertices; the
// complicate division still finds independent segments in them, so Feng &
// Huang's sets save memory on most of these graphs.
TEST(SolversTest, FengHuangDividesRandomDags) {
  int saved = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    Graph g = makeRandomDag(60, seed);
    SolveOptions opts;
    opts.objective = Objective::MinPeakUnderOverhead;
    SolveResult r = solveFengHuang(g, opts);
    ASSERT_TRUE(r.feasible()) << g.name << ": " << r.message;
    expectVerified(g, opts, r, g.name);
    saved += r.peakBytes < simulate(g, checkpointAllSchedule(g)).peakBytes;
  }
  EXPECT_GE(saved, 5);
}

TEST(SolversTest, UnsupportedAndRegistry) {
  Graph g = makeUNet(3);
  EXPECT_EQ(solveRevolve(g, {}).status, SolveStatus::Unsupported);
  EXPECT_EQ(solveFengHuangLinear(g, {}).status, SolveStatus::Unsupported);
  EXPECT_EQ(solveBruteForce(g, {}).status, SolveStatus::Unsupported);
  ASSERT_NE(findSolver("local-search"), nullptr);
  EXPECT_EQ(findSolver("no-such-solver"), nullptr);
  EXPECT_STREQ(toString(SolveStatus::Timeout), "timeout");
}

// A meter counts the work charged against the allowance of the options
// (effort times kWorkPerEffort, or the allowance a parent passed) and takes
// back what a nested solve used, with its stop by the time limit.
TEST(WorkMeterTest, CountsWorkAgainstTheAllowance) {
  SolveOptions opts;
  opts.effort = 0.5;
  WorkMeter meter(opts);
  EXPECT_EQ(meter.total(), kWorkPerEffort / 2);
  EXPECT_EQ(meter.part(0.1), kWorkPerEffort / 20);
  meter.charge(meter.total() - 10);
  EXPECT_EQ(meter.left(), 10);
  EXPECT_FALSE(meter.exhausted());
  SolveResult nested;
  nested.work = 25;
  meter.charge(nested);
  EXPECT_EQ(meter.left(), 0);
  EXPECT_TRUE(meter.spent());
  EXPECT_FALSE(meter.stoppedByTimeLimit());
  // A nested solve gets units and the same deadline.
  SolveOptions member = meter.nested(opts, 7);
  EXPECT_EQ(member.allowance.work, 7);
  EXPECT_EQ(WorkMeter(member).total(), 7);
  nested.stoppedByTimeLimit = true;
  meter.charge(nested);
  EXPECT_TRUE(meter.stoppedByTimeLimit());
}

// The deadline is a safety cap: a meter past it is exhausted whatever work
// is left, and says the time limit stopped it.
TEST(WorkMeterTest, DeadlineStopsAndSaysSo) {
  SolveOptions opts;
  opts.allowance.deadline =
      SolveAllowance::Clock::now() - std::chrono::seconds(1);
  WorkMeter meter(opts);
  EXPECT_FALSE(meter.spent());
  EXPECT_TRUE(meter.exhausted());
  EXPECT_TRUE(meter.stoppedByTimeLimit());
  WorkMeter roomy(SolveOptions{});
  EXPECT_FALSE(roomy.exhausted());
  EXPECT_FALSE(roomy.stoppedByTimeLimit());
}

// Without work left, revolve keeps the first slot count it evaluated (as
// many slots as chain steps: nothing recomputed) and returns it verified;
// with work it finds a plan under half the peak.
TEST(SolversTest, RevolveOutOfWorkKeepsItsFirstCandidate) {
  Graph g = makeChain(300, unitOptions());
  SolveOptions opts;
  const int64_t all = simulate(g, checkpointAllSchedule(g)).peakBytes;
  opts.budget = all;
  opts.allowance.work = 0;
  SolveResult hurried = solveRevolve(g, opts);
  ASSERT_TRUE(hurried.feasible()) << hurried.message;
  EXPECT_EQ(hurried.message, "checkpoint slots: 300");
  EXPECT_DOUBLE_EQ(hurried.cost, checkpointAllCost(g));
  EXPECT_FALSE(hurried.stoppedByTimeLimit);
  opts.budget = all / 2;
  EXPECT_EQ(solveRevolve(g, opts).status, SolveStatus::Infeasible);
  opts.allowance.work = -1;
  SolveResult roomy = solveRevolve(g, opts);
  ASSERT_TRUE(roomy.feasible()) << roomy.message;
  EXPECT_LE(roomy.peakBytes, opts.budget);
}

/// Seconds a solve may run past its time limit in a build with
/// AddressSanitizer (scripts/sanitize.sh): the deadline is checked between
/// steps, and the steps before the first check (the local search's starting
/// sets on a 6,000-node chain) take 0.8 s there on a loaded 2-core machine
/// where the plain build takes 0.1 s.
#if defined(__SANITIZE_ADDRESS__)
constexpr double kInstrumentedGrace = 1.0;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr double kInstrumentedGrace = 1.0;
#else
constexpr double kInstrumentedGrace = 0;
#endif
#else
constexpr double kInstrumentedGrace = 0;
#endif

// The time limit is a cap: with more work than they can do in it, the
// searching solvers return within it on a long chain, and say so when it
// stopped them (the hierarchical solver's probes may all end before it).
TEST(SolversTest, TimeLimitCapsTheWork) {
  Graph g = makeFamily("chain", 6000);
  SolveOptions opts;
  opts.budget = simulate(g, checkpointAllSchedule(g)).peakBytes / 2;
  opts.timeLimitSeconds = 1.5;
  opts.effort = 1000;
  for (auto solve : {solveLocalSearch, solveHierarchical}) {
    SolveResult r = solve(g, opts);
    // Loaded test machines: a quarter of slack over the 10 % target.
    EXPECT_LE(r.seconds, opts.timeLimitSeconds * 1.35 + kInstrumentedGrace)
        << r.solver << ": " << r.message;
    EXPECT_TRUE(r.stoppedByTimeLimit || r.solver == "hierarchical") << r.solver;
  }
}

// The same options and effort give the same plan, and the work the solve
// reports: it counts work, not time.
TEST(SolversTest, SameEffortSamePlan) {
  Graph g = makeFamily("resnet", 200);
  SolveOptions opts;
  opts.budget = simulate(g, checkpointAllSchedule(g)).peakBytes * 6 / 10;
  opts.effort = 0.02;
  for (auto solve : {solveLocalSearch, solvePortfolio, solveHierarchical}) {
    SolveResult a = solve(g, opts), b = solve(g, opts);
    ASSERT_TRUE(a.feasible()) << a.message;
    EXPECT_EQ(a.schedule.steps, b.schedule.steps) << a.solver;
    EXPECT_EQ(a.work, b.work) << a.solver;
    EXPECT_GT(a.work, 0) << a.solver;
    EXPECT_FALSE(a.stoppedByTimeLimit) << a.solver;
  }
}

// A remembered evaluation is the evaluation, less its schedule, which
// buildCheckpointSchedule builds as evaluateCheckpoints would.
TEST(ScheduleBuilderTest, RememberedEvaluations) {
  Graph g = makeFamily("transformer", 120);
  std::vector<char> keep = recomputableNodes(g);
  for (size_t i = 0; i < keep.size(); i += 3)
    keep[i] = 0;
  CheckpointOptions variant;
  variant.order = OrderPolicy::OnDemand;
  CheckpointEvals known(g);
  CheckpointEval first = evaluateCheckpoints(g, keep, variant, &known);
  CheckpointEval again = evaluateCheckpoints(g, keep, variant, &known);
  CheckpointEval fresh = evaluateCheckpoints(g, keep, variant);
  EXPECT_TRUE(first.built);
  EXPECT_EQ(first.schedule.steps, fresh.schedule.steps);
  EXPECT_FALSE(again.built);
  EXPECT_TRUE(again.schedule.steps.empty());
  EXPECT_EQ(again.peakBytes, fresh.peakBytes);
  EXPECT_EQ(again.cost, fresh.cost);
  EXPECT_EQ(again.work, fresh.work);
  buildCheckpointSchedule(g, keep, variant, again);
  EXPECT_TRUE(again.built);
  EXPECT_EQ(again.schedule.steps, fresh.schedule.steps);
  // The builder's options are part of what is remembered.
  variant.order = OrderPolicy::MemoryGreedy;
  EXPECT_TRUE(evaluateCheckpoints(g, keep, variant, &known).built);
  variant.recomputeOnce = true;
  EXPECT_TRUE(evaluateCheckpoints(g, keep, variant, &known).built);
  // So is the set.
  keep[1] ^= 1;
  EXPECT_TRUE(evaluateCheckpoints(g, keep, variant, &known).built);
}

// A memo names graphs by content: a copy shares the original's table, a
// graph with one cost changed has its own.
TEST(ScheduleBuilderTest, MemoTablesFollowTheGraphsContent) {
  Graph g = makeFamily("resnet", 60);
  CheckpointMemo memo;
  std::shared_ptr<CheckpointEvals> table = memo.of(g);
  Graph copy = g;
  EXPECT_EQ(memo.of(copy), table);
  copy.nodes.back().cost += 1;
  EXPECT_NE(memo.of(copy), table);
  copy = g;
  copy.nodes.back().deps.push_back(0);
  EXPECT_NE(memo.of(copy), table);
}

// The local search finds the same plan, with the same work, whether its
// evaluations are its own or shared with earlier solves at other budgets,
// on copies of the graph (as the smallest-budget search's probes are).
TEST(SolversTest, SharedEvaluationsLeaveThePlanAlone) {
  for (const char *family : {"resnet", "transformer", "unet"}) {
    Graph g = makeFamily(family, 150);
    SolveOptions opts;
    const int64_t peak = simulate(g, checkpointAllSchedule(g)).peakBytes;
    opts.effort = 0.02;
    opts.budget = peak * 6 / 10;
    SolveResult alone = solveLocalSearch(g, opts);
    ASSERT_TRUE(alone.feasible()) << family << ": " << alone.message;
    SolveOptions sharing = opts;
    sharing.checkpointMemo = std::make_shared<CheckpointMemo>();
    sharing.budget = peak * 8 / 10;
    ASSERT_TRUE(solveLocalSearch(Graph(g), sharing).feasible()) << family;
    sharing.budget = opts.budget;
    SolveResult shared = solveLocalSearch(Graph(g), sharing);
    ASSERT_TRUE(shared.feasible()) << family << ": " << shared.message;
    EXPECT_EQ(shared.schedule.steps, alone.schedule.steps) << family;
    EXPECT_EQ(shared.work, alone.work) << family;
  }
}

// Without work left, Feng & Huang stops its candidate bounds but keeps the
// first set it found: a plan even with work for no candidate (it used to
// walk all 4,096 bounds whatever the limit: 24 s at 0.1 s on a 20,005-op
// step).
TEST(SolversTest, FengHuangOutOfWorkKeepsItsFirstSet) {
  Graph g = makeFamily("resnet", 40);
  SolveOptions opts;
  opts.budget = simulate(g, checkpointAllSchedule(g)).peakBytes;
  SolveResult roomy = solveFengHuang(g, opts);
  ASSERT_TRUE(roomy.feasible()) << roomy.message;
  opts.allowance.work = 0;
  SolveResult hurried = solveFengHuang(g, opts);
  ASSERT_TRUE(hurried.feasible()) << hurried.message;
  EXPECT_LE(hurried.peakBytes, opts.budget);
}

// The local search's Feng & Huang start keeps the first bound's set
// without work, and the whole search's best set with enough.
TEST(SolversTest, FengHuangKeepOutOfWork) {
  Graph g = makeFamily("resnet", 40);
  WorkMeter none(0), plenty(int64_t(1) << 40);
  std::vector<char> hurried = fengHuangKeep(g, &none);
  EXPECT_GT(std::count(hurried.begin(), hurried.end(), 1), 0);
  EXPECT_TRUE(simulate(g, scheduleFromCheckpoints(g, hurried, {})).valid());
  EXPECT_EQ(fengHuangKeep(g), fengHuangKeep(g, &plenty));
}

// Our local search never does worse than the heuristics it starts from.
TEST(SolversTest, LocalSearchAtLeastAsGoodAsItsStarts) {
  for (const std::string &family : familyNames()) {
    Graph g = makeFamily(family, 150);
    SolveOptions opts;
    opts.objective = Objective::MinPeakUnderOverhead;
    opts.effort = 0.1;
    SolveResult ours = solveLocalSearch(g, opts);
    ASSERT_TRUE(ours.feasible()) << family << ": " << ours.message;
    for (auto solve :
         {solveChen<ChenRule::Greedy, ChenCandidates::ArticulationPoints>,
          solveChen<ChenRule::Greedy, ChenCandidates::TopologicalOrder>,
          solveFengHuang}) {
      SolveResult r = solve(g, opts);
      if (r.feasible()) {
        EXPECT_LE(ours.peakBytes, r.peakBytes) << family << " " << r.solver;
      }
    }
  }
}

TEST(ModesTest, SmallestBudget) {
  Graph g = makeRandomDag(4, 7, unitOptions());
  const SolverInfo *exact = findSolver("brute-force");
  ASSERT_NE(exact, nullptr);
  BudgetSearch search = findSmallestBudget(g, *exact, SolveOptions());
  ASSERT_TRUE(search.best.feasible());
  // The exact solver is infeasible one byte below what it found.
  SolveOptions below;
  below.budget = search.smallestBudget - 1;
  EXPECT_FALSE(solveBruteForce(g, below).feasible());
  EXPECT_LE(search.lowerBound, search.smallestBudget);
}

} // namespace

namespace {

// A `keep = always` pin: no solver's accepted answer recomputes the node,
// and a schedule that does is rejected.
TEST(SolversTest, AlwaysPinsAreHonoured) {
  Graph g = makeChain(12, unitOptions());
  const int pinned = 1; // f1
  g.nodes[pinned].keep = KeepPolicy::Always;
  SolveOptions opts;
  opts.budget = simulate(g, checkpointAllSchedule(g)).peakBytes * 3 / 4;
  for (const SolverInfo *info : solversUnderTest(true)) {
    SolveResult r = info->solve(g, opts);
    if (!r.feasible())
      continue;
    EXPECT_EQ(recomputedPin(g, r.schedule), -1) << info->name;
  }
  // Three quarters of the checkpoint-all peak is reachable with f1 kept.
  SolveResult ours = solveLocalSearch(g, opts);
  ASSERT_TRUE(ours.feasible()) << ours.message;
  EXPECT_EQ(recomputedPin(g, ours.schedule), -1);
  // A hand-made schedule that recomputes f1 is rejected.
  Schedule bad = checkpointAllSchedule(g);
  bad.steps.insert(bad.steps.begin() + 1, Step::free(pinned));
  bad.steps.insert(bad.steps.begin() + 2, Step::compute(pinned));
  ASSERT_TRUE(simulate(g, bad).valid());
  WorkMeter meter(SolveOptions{});
  SolveResult r =
      finishSolve(g, SolveOptions(), "test", bad, SolveStatus::Feasible, meter);
  EXPECT_EQ(r.status, SolveStatus::Infeasible);
  EXPECT_NE(r.message.find("pinned keep = always"), std::string::npos);
  EXPECT_EQ(solveBruteForce(g, opts).status, SolveStatus::Unsupported);
}

/// A re-gathered weight in miniature: the gather `g` and its transposed
/// copy `t` (both pinned `never`, as gather-policy=regather pins them) feed
/// the forward `h` and the input gradient `gh`. Ids: w 0, x 1, g 2, t 3,
/// h 4, loss 5, gh 6, gw 7.
static Graph regatherGraph() {
  Graph g;
  int w = addNode(g, "w", NodeKind::Param, 4, 0, {});
  int x = addNode(g, "x", NodeKind::Input, 1, 0, {});
  int gather = addNode(g, "g", NodeKind::Forward, 4, 2, {w});
  int t = addNode(g, "t", NodeKind::Forward, 4, 0, {gather});
  int h = addNode(g, "h", NodeKind::Forward, 2, 1, {x, t});
  int loss = addNode(g, "loss", NodeKind::Forward, 1, 1, {h});
  int gh = addNode(g, "gh", NodeKind::Backward, 2, 1, {loss, t});
  int gw = addNode(g, "gw", NodeKind::Backward, 4, 1, {gh, x});
  g.nodes[gather].keep = KeepPolicy::Never;
  g.nodes[t].keep = KeepPolicy::Never;
  g.outputs = {loss, gw};
  return g;
}

static int countComputes(const Schedule &schedule, int id) {
  std::vector<int> order = computeOrderOf(schedule);
  return std::count(order.begin(), order.end(), id);
}

// A `keep = never` pin: the backward reads a copy computed again for it.
// Checkpoint-all's order shares the forward's copy; finishSolve mends it
// (the gather and the copy run again before gh) and no longer calls it
// optimal; every solver's answer honors the pins.
TEST(SolversTest, NeverPinsAreHonoured) {
  Graph g = regatherGraph();
  ASSERT_EQ(g.check(), "");
  Schedule all = checkpointAllSchedule(g);
  EXPECT_EQ(sharedNeverPin(g, all), 3);
  EXPECT_EQ(honorNeverPins(g, computeOrderOf(all)),
            (std::vector<int>{2, 3, 4, 5, 2, 3, 6, 7}));
  // Gathering again peaks higher than checkpoint-all (13 bytes): g's and
  // t's new copies are live together with what the backward holds.
  SolveOptions opts;
  opts.budget = 16;
  WorkMeter meter(opts);
  SolveResult mended =
      finishSolve(g, opts, "test", all, SolveStatus::Optimal, meter);
  ASSERT_TRUE(mended.feasible()) << mended.message;
  EXPECT_EQ(mended.status, SolveStatus::Feasible);
  EXPECT_EQ(simulate(g, all).peakBytes, 13);
  EXPECT_EQ(mended.peakBytes, 14);
  EXPECT_EQ(countComputes(mended.schedule, 2), 2);
  EXPECT_EQ(sharedNeverPin(g, mended.schedule), -1);
  for (const SolverInfo *info : solversUnderTest(true)) {
    SolveResult r = info->solve(g, opts);
    if (!r.feasible())
      continue;
    EXPECT_EQ(sharedNeverPin(g, r.schedule), -1) << info->name;
    EXPECT_EQ(countComputes(r.schedule, 2), 2) << info->name;
  }
}

// A backward node pinned `always` (a collective of a step without backward
// seeds, so recomputable) is not hoisted into the forward pass: the
// backward node it reads would read the forward's copy of a `never` value.
// Ids: x 0, f 1, h 2, b 3, c 4, out 5.
TEST(ScheduleBuilderTest, AlwaysPinnedBackwardNodeIsNotHoisted) {
  Graph g;
  int x = addNode(g, "x", NodeKind::Input, 1, 0, {});
  int f = addNode(g, "f", NodeKind::Forward, 4, 1, {x});
  int h = addNode(g, "h", NodeKind::Forward, 1, 1, {f});
  int b = addNode(g, "b", NodeKind::Backward, 1, 1, {f, h});
  int c = addNode(g, "c", NodeKind::Backward, 1, 1, {b});
  int out = addNode(g, "out", NodeKind::Backward, 1, 1, {c});
  g.nodes[f].keep = KeepPolicy::Never;
  g.nodes[c].keep = KeepPolicy::Always;
  g.outputs = {out};
  ASSERT_TRUE(recomputableNodes(g)[c]);
  std::vector<char> keep(g.size(), 0);
  EXPECT_EQ(computeOrderFromCheckpoints(g, keep),
            (std::vector<int>{f, h, f, b, c, out}));
}

TEST(SolversTest, FinishSolveRepairsTheOrderWhenThePeakMatters) {
  // Checkpoint-all's order peaks at 14 (OrderingTest: the threshold
  // backward after the recomputation); hoisting it gives 13, the least any
  // order reaches.
  Graph g = thresholdAfterRecomputeGraph();
  SolveOptions opts;
  opts.budget = 13;
  SolveResult fits = solveCheckpointAll(g, opts);
  ASSERT_TRUE(fits.feasible()) << fits.message;
  EXPECT_EQ(fits.peakBytes, 13);
  EXPECT_DOUBLE_EQ(fits.cost, checkpointAllCost(g));
  opts.budget = 12;
  EXPECT_EQ(solveCheckpointAll(g, opts).status, SolveStatus::Infeasible);
  // Within the budget the order is not the objective: left as it is.
  opts.budget = 14;
  EXPECT_EQ(solveCheckpointAll(g, opts).peakBytes, 14);
  // The peak objective repairs it.
  opts = SolveOptions();
  opts.objective = Objective::MinPeakUnderOverhead;
  EXPECT_EQ(solveCheckpointAll(g, opts).peakBytes, 13);
}

} // namespace

namespace {

/// `blocks` activation blocks as a traced training step has them: a
/// convolution's output `c` (8 bytes), its activation `r` (8 bytes, read by
/// the next block), and in the backward the activation's mask (1 byte, read
/// from `c` only, so it may be hoisted into the forward), the input
/// gradient `gr` (8 bytes) and a weight gradient (an output).
Graph maskBlocks(int blocks) {
  Graph g;
  int prev = addNode(g, "x", NodeKind::Input, 1, 0, {});
  std::vector<int> c, r;
  for (int b = 0; b < blocks; ++b) {
    c.push_back(
        addNode(g, "c" + std::to_string(b), NodeKind::Forward, 8, 4, {prev}));
    r.push_back(addNode(g, "r" + std::to_string(b), NodeKind::Forward, 8, 1,
                        {c.back()}));
    prev = r.back();
  }
  int loss = addNode(g, "loss", NodeKind::Forward, 1, 1, {prev});
  int seed = addNode(g, "seed", NodeKind::Input, 1, 0, {});
  int grad = addNode(g, "gloss", NodeKind::Backward, 8, 1, {seed, loss, prev});
  g.outputs = {loss};
  for (int b = blocks - 1; b >= 0; --b) {
    std::string s = std::to_string(b);
    int mask = addNode(g, "mask" + s, NodeKind::Backward, 1, 1, {c[b]});
    int gc = addNode(g, "gc" + s, NodeKind::Backward, 8, 1, {grad, mask});
    int in = b == 0 ? 0 : r[b - 1];
    g.outputs.push_back(
        addNode(g, "gw" + s, NodeKind::Backward, 1, 1, {gc, in}));
    grad = addNode(g, "gr" + s, NodeKind::Backward, 8, 1, {gc});
  }
  return g;
}

// The nodes around the peak: the values live at the first step at the
// peak, what they read and what reads them, among the candidates, largest
// first.
TEST(LocalSearchTest, NodesAroundThePeak) {
  Graph g = maskBlocks(1);
  ASSERT_EQ(g.check(), "");
  Schedule all = checkpointAllSchedule(g);
  Simulation sim = simulate(g, all);
  ASSERT_TRUE(sim.valid()) << sim.error;
  // x seed c0 r0 loss gloss = 1 + 1 + 8 + 8 + 1 + 8, when gloss is
  // computed (r0 is freed after it, the last reader).
  EXPECT_EQ(sim.peakBytes, 27);
  std::vector<char> candidates = recomputableNodes(g);
  auto id = [&](const std::string &name) {
    for (int i = 0; i < g.size(); ++i)
      if (g.nodes[i].name == name)
        return i;
    return -1;
  };
  // Live there: c0, r0, loss and gloss itself; mask0 reads c0. gloss is
  // backward work that reads the seed: no candidate.
  EXPECT_EQ(nodesAroundPeak(g, all, candidates, 10),
            (std::vector<int>{id("c0"), id("r0"), id("loss"), id("mask0")}));
  EXPECT_EQ(nodesAroundPeak(g, all, candidates, 2),
            (std::vector<int>{id("c0"), id("r0")}));
  EXPECT_TRUE(nodesAroundPeak(g, Schedule(), candidates, 10).empty());
}

// On an activation block whose least peak needs the mask kept instead of
// the convolution output, the local search reaches the exhaustive solver's
// least peak within one extra forward pass, and its least compute at every
// budget between that peak and checkpoint-all's. On two blocks the optimum
// (27 bytes) recomputes c0 twice in the backward, freeing it in between,
// which no checkpoint set expresses (the builder holds it across the run):
// there the local search is only never better than the exact answer.
TEST(LocalSearchTest, MaskBlocksAgainstBruteForce) {
  for (int blocks : {1, 2}) {
    Graph g = maskBlocks(blocks);
    ASSERT_EQ(g.check(), "");
    SolveOptions peak;
    peak.objective = Objective::MinPeakUnderOverhead;
    SolveResult exact = solveBruteForce(g, peak);
    ASSERT_TRUE(exact.feasible()) << exact.message;
    SolveResult ours = solveLocalSearch(g, peak);
    ASSERT_TRUE(ours.feasible()) << ours.message;
    expectVerified(g, peak, ours, g.name + " min-peak");
    EXPECT_LE(ours.cost, costLimit(g, peak) + 1e-9);
    int64_t top = simulate(g, checkpointAllSchedule(g)).peakBytes;
    EXPECT_LT(ours.peakBytes, top);
    if (blocks == 2) {
      EXPECT_EQ(exact.peakBytes, 27);
      EXPECT_GE(ours.peakBytes, exact.peakBytes);
      continue;
    }
    EXPECT_EQ(ours.peakBytes, exact.peakBytes);
    for (int64_t budget = exact.peakBytes; budget <= top; ++budget) {
      SolveOptions opts;
      opts.budget = budget;
      SolveResult best = solveBruteForce(g, opts);
      SolveResult r = solveLocalSearch(g, opts);
      ASSERT_TRUE(best.feasible()) << best.message;
      ASSERT_TRUE(r.feasible()) << "budget " << budget << ": " << r.message;
      expectVerified(g, opts, r, "budget " + std::to_string(budget));
      EXPECT_DOUBLE_EQ(r.cost, best.cost) << "budget " << budget;
    }
  }
}

} // namespace
