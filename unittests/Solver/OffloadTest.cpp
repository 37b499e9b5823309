//===- OffloadTest.cpp - keep, recompute or offload -----------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The offload planner (Offload.h) and its place in the planner: every plan
// replays on the simulator with the link within the device budget; the
// joint plan is never slower than recomputing only or offloading only.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Search/Offload.h"

#include "remat/Solver/Algorithms/Solvers.h"
#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/SolverSupport.h"
#include "remat/Solver/Search/Modes.h"
#include "remat/Solver/Search/Planner.h"
#include "remat/Solver/Testing/Generators.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <limits>

using namespace remat;

namespace {

Graph transformer(int layers = 4) {
  GeneratorOptions options;
  options.heterogeneous = true;
  return makeTransformer(layers, options);
}

/// A link on which a value of 32 bytes takes one cost unit to copy.
HostLink testLink(double bytesPerUnit = 32) {
  HostLink link;
  link.name = "test";
  link.bytesPerSecond = bytesPerUnit;
  link.costPerSecond = 1;
  return link;
}

int64_t keepAllPeak(const Graph &g) {
  return simulate(g, checkpointAllSchedule(g)).peakBytes;
}

/// `plan` replays on `link` as it says, within `budget`.
void expectReplays(const Graph &g, const OffloadedPlan &plan,
                   const HostLink &link, int64_t budget,
                   const std::string &what) {
  ASSERT_TRUE(plan.result.feasible()) << what << ": " << plan.result.message;
  Simulation sim = simulate(g, plan.result.schedule, nullptr, &link);
  ASSERT_TRUE(sim.valid()) << what << ": " << sim.error;
  EXPECT_LE(sim.peakBytes, budget) << what;
  EXPECT_EQ(sim.peakBytes, plan.result.peakBytes) << what;
  EXPECT_DOUBLE_EQ(sim.time, plan.sim.time) << what;
  EXPECT_LE(sim.hostPeakBytes, link.hostBudget) << what;
}

OffloadedPlan planAt(const Graph &g, OffloadChoice choice, int64_t budget,
                     const HostLink &link) {
  SolveOptions options;
  options.budget = budget;
  options.effort = 0.02;
  return planWithOffloads(g, *findSolver("auto"), options,
                          OffloadRequest{link, choice});
}

TEST(OffloadTest, OffloadOnlyComputesEachNodeOnce) {
  Graph g = transformer();
  HostLink link = testLink();
  int64_t top = keepAllPeak(g);
  int feasible = 0;
  for (int percent = 90; percent >= 40; percent -= 10) {
    int64_t budget = top * percent / 100;
    OffloadedPlan plan = addOffloads(g, checkpointAllSchedule(g), link, budget);
    if (!plan.result.feasible())
      continue;
    ++feasible;
    std::string what = std::to_string(percent) + "%";
    expectReplays(g, plan, link, budget, what);
    EXPECT_DOUBLE_EQ(plan.sim.cost, checkpointAllCost(g)) << what;
    EXPECT_GT(plan.sim.copies, 0) << what;
    EXPECT_EQ(plan.sim.copies % 2, 0) << what;
  }
  EXPECT_GE(feasible, 2);
}

TEST(OffloadTest, JointIsNeverSlowerThanEitherAlone) {
  Graph g = transformer();
  HostLink link = testLink();
  int64_t top = keepAllPeak(g);
  int compared = 0;
  for (int percent : {70, 45}) {
    int64_t budget = top * percent / 100;
    std::string what = std::to_string(percent) + "%";
    OffloadedPlan joint = planAt(g, OffloadChoice::Joint, budget, link);
    for (OffloadChoice alone :
         {OffloadChoice::RecomputeOnly, OffloadChoice::OffloadOnly}) {
      OffloadedPlan other = planAt(g, alone, budget, link);
      if (!other.result.feasible())
        continue;
      ++compared;
      expectReplays(g, other, link, budget, what + " " + toString(alone));
      expectReplays(g, joint, link, budget, what + " joint");
      EXPECT_LE(joint.sim.time, other.sim.time)
          << what << " " << toString(alone);
    }
  }
  // Both alone plan at 70 %, recomputation at 45 % too.
  EXPECT_GE(compared, 3);
}

TEST(OffloadTest, AFastLinkReplacesRecomputation) {
  Graph g = transformer();
  HostLink fast = testLink(getenv("LS") ? atof(getenv("LS")) : 1e9);
  int64_t budget = keepAllPeak(g) * 6 / 10;
  OffloadedPlan recompute =
      planAt(g, OffloadChoice::RecomputeOnly, budget, fast);
  OffloadedPlan joint = planAt(g, OffloadChoice::Joint, budget, fast);
  ASSERT_TRUE(recompute.result.feasible());
  ASSERT_GT(recompute.sim.cost, checkpointAllCost(g));
  expectReplays(g, joint, fast, budget, "joint");
  EXPECT_LT(joint.sim.time, recompute.sim.time);
  EXPECT_GT(joint.sim.copies, 0);
}

PlanRequest offloadRequest(const std::string &budget, int64_t hostBudget) {
  PlanRequest request;
  request.budget = budget;
  request.solve.effort = 0.05;
  HostLink link = testLink();
  link.hostBudget = hostBudget;
  request.offload = OffloadRequest{link, OffloadChoice::OffloadOnly};
  return request;
}

TEST(OffloadTest, ASmallHostBudgetNamesOneThatPlans) {
  Graph g = transformer();
  std::string budget = std::to_string(keepAllPeak(g) * 8 / 10);
  PlanOutcome tight = plan(g, offloadRequest(budget, 1));
  ASSERT_EQ(tight.failure, PlanFailure::HostOverBudget) << tight.reason;
  ASSERT_GT(tight.hostNeeded, 1);
  EXPECT_NE(tight.reason.find(std::to_string(tight.hostNeeded)),
            std::string::npos)
      << tight.reason;
  PlanOutcome asked = plan(g, offloadRequest(budget, tight.hostNeeded));
  ASSERT_TRUE(asked.succeeded()) << asked.reason;
  ASSERT_TRUE(asked.onLink);
  EXPECT_LE(asked.onLink->hostPeakBytes, tight.hostNeeded);
  EXPECT_LE(asked.result.peakBytes, std::stoll(budget));
}

TEST(OffloadTest, PlannerRefusesWhatItCannotOffload) {
  Graph g = transformer();
  PlanOutcome out = plan(g, offloadRequest("", kMaxTotalBytes));
  EXPECT_EQ(out.failure, PlanFailure::BadRequest);
  EXPECT_NE(out.reason.find("offloading in mode min-compute needs a budget"),
            std::string::npos)
      << out.reason;
}

/// Max-batch offloading: each batch gets the joint plan, so the largest
/// batch is at least recomputing's, and its plan, at that batch, replays on
/// the link within the budget.
TEST(OffloadTest, MaxBatchOffloading) {
  Graph g = transformer(2);
  // Traced at one sample; every value scales with the batch, the
  // parameters do not.
  g.batch = 1;
  for (Node &node : g.nodes)
    if (!node.isResident()) {
      node.bytesPerSample = node.bytes;
      node.costPerSample = node.cost;
    }
  ASSERT_EQ(g.check(), "");
  int64_t budget = keepAllPeak(*scaleBatch(g, 4));
  PlanRequest recompute;
  recompute.mode = Mode::MaxBatch;
  recompute.budget = std::to_string(budget);
  recompute.solve.effort = 0.02;
  PlanOutcome alone = plan(g, recompute);
  ASSERT_TRUE(alone.succeeded()) << alone.reason;
  PlanRequest joint = recompute;
  joint.offload = OffloadRequest{testLink(1e4), OffloadChoice::Joint};
  PlanOutcome both = plan(g, joint);
  ASSERT_TRUE(both.succeeded()) << both.reason;
  EXPECT_GE(both.batch, alone.batch);
  ASSERT_TRUE(both.onLink);
  std::optional<Graph> at = scaleBatch(g, both.batch);
  ASSERT_TRUE(at);
  Simulation sim = simulate(*at, both.result.schedule, nullptr,
                            &joint.offload->link);
  ASSERT_TRUE(sim.valid()) << sim.error;
  EXPECT_LE(sim.peakBytes, budget);
  EXPECT_DOUBLE_EQ(sim.time, both.onLink->time);
  // One sample over the budget: refused, naming the smallest budget at
  // batch 1 offloading.
  joint.budget = "1";
  PlanOutcome none = plan(g, joint);
  EXPECT_EQ(none.failure, PlanFailure::BelowOneSample);
  EXPECT_NE(none.reason.find("even offloading over test"), std::string::npos)
      << none.reason;
  EXPECT_NE(none.reason.find("the smallest feasible budget at batch 1 is"),
            std::string::npos)
      << none.reason;
}

/// With the arena: the budget covers the resident bytes and one arena of
/// the offloaded plan's device buffers (the host copies outside it); a
/// budget too small names one at which the arena fits.
TEST(OffloadTest, ArenaWithOffloadsFitsTheBudget) {
  Graph g = transformer();
  int64_t top = keepAllPeak(g);
  for (int percent : {80, 60}) {
    int64_t budget = top * percent / 100;
    PlanRequest request =
        offloadRequest(std::to_string(budget), kMaxTotalBytes);
    request.arena = true;
    PlanOutcome out = plan(g, request);
    ASSERT_TRUE(out.succeeded()) << percent << ": " << out.reason;
    ASSERT_TRUE(out.arena);
    EXPECT_TRUE(out.arena->fits) << percent;
    EXPECT_LE(out.arena->totalBytes, budget) << percent;
    EXPECT_GE(out.arena->totalBytes, g.residentBytes() + 1) << percent;
    ASSERT_TRUE(out.onLink);
    EXPECT_GT(out.onLink->copies, 0) << percent;
    Simulation sim =
        simulate(g, out.result.schedule, nullptr, &request.offload->link);
    ASSERT_TRUE(sim.valid()) << sim.error;
    EXPECT_LE(sim.peakBytes, budget) << percent;
  }
  PlanRequest low = offloadRequest("1", kMaxTotalBytes);
  low.arena = true;
  PlanOutcome none = plan(g, low);
  ASSERT_EQ(none.failure, PlanFailure::NoSchedule) << none.reason;
  ASSERT_GT(none.smallestBudget, 0) << none.reason;
  PlanRequest asked =
      offloadRequest(std::to_string(none.smallestBudget), kMaxTotalBytes);
  asked.arena = true;
  PlanOutcome there = plan(g, asked);
  ASSERT_TRUE(there.succeeded()) << there.reason;
  EXPECT_LE(there.arena->totalBytes, none.smallestBudget);
  // budget=min with the arena: that budget, its plan there.
  PlanRequest min = offloadRequest("min", kMaxTotalBytes);
  min.arena = true;
  PlanOutcome least = plan(g, min);
  ASSERT_TRUE(least.succeeded()) << least.reason;
  ASSERT_TRUE(least.arena);
  EXPECT_TRUE(least.arena->fits);
  EXPECT_EQ(least.budget, none.smallestBudget);
  EXPECT_LE(least.arena->totalBytes, least.budget);
}

/// budget=min offloading: a budget below recomputation's smallest, at
/// which the planner, asked again, plans.
TEST(OffloadTest, BudgetMinOffloadingPlansWhenAsked) {
  Graph g = transformer();
  PlanRequest request = offloadRequest("min", kMaxTotalBytes);
  request.solve.effort = 0.01;
  request.offload->link = *findHostLink("ideal", g);
  request.offload->choice = OffloadChoice::Joint;
  PlanOutcome min = plan(g, request);
  ASSERT_TRUE(min.succeeded()) << min.reason;
  ASSERT_TRUE(min.onLink);
  EXPECT_LE(min.result.peakBytes, min.budget);
  EXPECT_GE(min.budget, peakLowerBound(g));
  SolveOptions options;
  options.effort = request.solve.effort;
  BudgetSearch recompute = findSmallestBudget(g, *findSolver("auto"), options);
  ASSERT_GE(recompute.smallestBudget, 0);
  EXPECT_LT(min.budget, recompute.smallestBudget);
  request.budget = std::to_string(min.budget);
  PlanOutcome asked = plan(g, request);
  ASSERT_TRUE(asked.succeeded()) << asked.reason;
  EXPECT_LE(asked.result.peakBytes, min.budget);
}

/// Min-peak offloading: the least device peak whose predicted time is
/// within the overhead, never above recomputation's; a free link lowers it
/// at no extra time, and a budget below it names it.
TEST(OffloadTest, MinPeakBoundsThePredictedTime) {
  Graph g = transformer(2);
  double base = checkpointAllCost(g);
  int64_t previous = kMaxTotalBytes;
  SolveOptions options;
  options.effort = 0.01;
  options.maxOverhead = 0;
  SolveResult recompute =
      solveInMode(g, *findSolver("auto"), Mode::MinPeak, options);
  ASSERT_TRUE(recompute.feasible());
  for (double bytesPerUnit : {32.0, 1e9}) {
    PlanRequest request = offloadRequest("", kMaxTotalBytes);
    request.mode = Mode::MinPeak;
    request.solve.effort = options.effort;
    request.solve.maxOverhead = 0;
    request.offload->link = testLink(bytesPerUnit);
    request.offload->choice = OffloadChoice::Joint;
    PlanOutcome out = plan(g, request);
    ASSERT_TRUE(out.succeeded()) << out.reason;
    ASSERT_TRUE(out.onLink);
    EXPECT_LE(out.onLink->time, base) << bytesPerUnit;
    EXPECT_LE(out.result.peakBytes, previous) << bytesPerUnit;
    EXPECT_LE(out.result.peakBytes, recompute.peakBytes) << bytesPerUnit;
    previous = out.result.peakBytes;
  }
  PlanRequest below =
      offloadRequest(std::to_string(previous - 1), kMaxTotalBytes);
  below.mode = Mode::MinPeak;
  below.solve.effort = options.effort;
  below.solve.maxOverhead = 0;
  below.offload->link = testLink(1e9);
  below.offload->choice = OffloadChoice::Joint;
  EXPECT_EQ(plan(g, below).failure, PlanFailure::PeakOverBudget);
  // With copies free, offloading alone lowers the peak at no time.
  EXPECT_LT(previous, keepAllPeak(g));
}

/// Min-peak with the arena: the least device peak is the arena of a plan
/// within the time limit (resident bytes in it), no more than recomputing
/// only reaches with the arena; a budget below it names it, and at it the
/// planner plans.
TEST(OffloadTest, MinPeakWithTheArena) {
  Graph g = transformer(2);
  auto request = [&](const std::string &budget, bool offload) {
    PlanRequest r = offloadRequest(budget, kMaxTotalBytes);
    r.mode = Mode::MinPeak;
    r.arena = true;
    r.solve.effort = 0.01;
    r.solve.maxOverhead = 0;
    r.offload->link = testLink(1e9);
    r.offload->choice = OffloadChoice::Joint;
    if (!offload)
      r.offload.reset();
    return r;
  };
  PlanOutcome out = plan(g, request("", true));
  ASSERT_TRUE(out.succeeded()) << out.reason;
  ASSERT_TRUE(out.arena && out.onLink);
  // The arena frees an offloaded value at its copy (the lowering's
  // buffers), the simulator when the copy is done: either may be larger.
  EXPECT_TRUE(out.arena->fits);
  EXPECT_GT(out.arena->totalBytes, g.residentBytes());
  EXPECT_LE(out.onLink->time, checkpointAllCost(g));
  HostLink link = testLink(1e9);
  Simulation sim = simulate(g, out.result.schedule, nullptr, &link);
  ASSERT_TRUE(sim.valid()) << sim.error;
  EXPECT_GT(sim.copies, 0);
  PlanRequest recomputeOnly = request("", false);
  PlanOutcome recompute = plan(g, recomputeOnly);
  ASSERT_TRUE(recompute.succeeded()) << recompute.reason;
  ArenaFit recomputeArena =
      planRecordedArena(g, recompute.result, -1, recomputeOnly.arenaAlignment);
  EXPECT_LE(out.arena->totalBytes, recomputeArena.totalBytes);
  int64_t least = std::max(out.arena->totalBytes, out.result.peakBytes);
  PlanOutcome below = plan(g, request(std::to_string(least - 1), true));
  EXPECT_EQ(below.failure, PlanFailure::PeakOverBudget) << below.reason;
  EXPECT_NE(below.reason.find(std::to_string(least)), std::string::npos)
      << below.reason;
  PlanOutcome at = plan(g, request(std::to_string(least), true));
  ASSERT_TRUE(at.succeeded()) << at.reason;
  EXPECT_LE(at.arena->totalBytes, least);
  EXPECT_LE(at.result.peakBytes, least);
}

/// `g` with a view (as `detach` or `t` are) of each forward value the
/// backward reads, which the backward reads instead.
Graph withViews(const Graph &g) {
  Graph out = g;
  out.nodes.clear();
  std::vector<int> id(g.size()), viewOf(g.size(), -1);
  std::vector<std::vector<int>> users = g.users();
  for (int n = 0; n < g.size(); ++n) {
    Node node = g.nodes[n];
    for (int &dep : node.deps)
      dep = node.kind == NodeKind::Backward && viewOf[dep] >= 0 ? viewOf[dep]
                                                                : id[dep];
    for (int &dep : node.after)
      dep = id[dep];
    id[n] = static_cast<int>(out.nodes.size());
    out.nodes.push_back(node);
    bool backwardReads =
        std::any_of(users[n].begin(), users[n].end(), [&](int user) {
          return g.nodes[user].kind == NodeKind::Backward;
        });
    if (node.kind != NodeKind::Forward || node.isView() || !backwardReads)
      continue;
    Node view;
    view.name = node.name + ".view";
    view.deps = {id[n]};
    view.aliasOf = id[n];
    viewOf[n] = static_cast<int>(out.nodes.size());
    out.nodes.push_back(view);
  }
  for (int &output : out.outputs)
    output = id[output];
  return out;
}

/// Where the link keeps up with the compute, offloading alone stalls
/// nothing: each copy back is issued early enough, behind the copies queued
/// before it, and a view of an offloaded value is computed again at its
/// read, not where the copy is still under way.
TEST(OffloadTest, PrefetchesHideWhereTheLinkKeepsUp) {
  Graph g = withViews(transformer());
  ASSERT_EQ(g.check(), "");
  HostLink link = testLink(1e4);
  int checked = 0;
  for (int percent = 90; percent >= 50; percent -= 10) {
    int64_t budget = keepAllPeak(g) * percent / 100;
    OffloadedPlan plan = addOffloads(g, checkpointAllSchedule(g), link, budget);
    if (!plan.result.feasible())
      continue;
    ++checked;
    expectReplays(g, plan, link, budget, std::to_string(percent) + "%");
    EXPECT_GT(plan.sim.copies, 0) << percent;
    EXPECT_EQ(plan.sim.stall, 0) << percent;
  }
  EXPECT_GE(checked, 2);
}

/// Every offload of a plan is waited for where its copy is done on the
/// link (placeOffloadWaits), so the lowered program's lifetimes, which copy
/// on an ideal link (arenaOfSchedule), end there too: no buffer is placed
/// on an offloaded value's bytes while its copy may still read them.
TEST(OffloadTest, PlansWaitWhereTheCopiesAreDone) {
  Graph g = transformer();
  HostLink link = testLink(8); // slow: copies span several computes
  HostLink ideal = link;
  ideal.bytesPerSecond = std::numeric_limits<double>::infinity();
  int slow = 0;
  for (int percent : {90, 70, 50}) {
    int64_t budget = keepAllPeak(g) * percent / 100;
    OffloadedPlan plan = addOffloads(g, checkpointAllSchedule(g), link, budget);
    if (!plan.result.feasible() || plan.sim.copies == 0)
      continue;
    expectReplays(g, plan, link, budget, std::to_string(percent) + "%");
    const std::vector<Step> &steps = plan.result.schedule.steps;
    auto count = [&](Step::Kind kind) {
      return std::count_if(steps.begin(), steps.end(),
                           [&](const Step &s) { return s.kind == kind; });
    };
    ASSERT_EQ(count(Step::Kind::Wait), count(Step::Kind::Offload)) << percent;
    Simulation onLink = simulate(g, plan.result.schedule, nullptr, &link);
    Simulation asLowered = simulate(g, plan.result.schedule, nullptr, &ideal);
    ASSERT_TRUE(asLowered.valid()) << asLowered.error;
    ASSERT_EQ(asLowered.offloadEnds.size(), onLink.offloadEnds.size());
    for (size_t k = 0; k < onLink.offloadEnds.size(); ++k) {
      size_t lowered = asLowered.offloadEnds[k], real = onLink.offloadEnds[k];
      // The lowered buffer ends at the wait: at the link's end, or before
      // the prefetches issued right before it (and the wait is then
      // after the offload's copy in its slot).
      EXPECT_LE(lowered, real) << percent << "% offload " << k;
      for (size_t i = lowered; i < real; ++i)
        EXPECT_TRUE(steps[i].kind == Step::Kind::Prefetch ||
                    steps[i].kind == Step::Kind::Wait)
            << percent << "% offload " << k << " step " << i;
      size_t offloadAt = 0;
      for (size_t i = 0, seen = 0; i < steps.size(); ++i)
        if (steps[i].kind == Step::Kind::Offload && seen++ == k)
          offloadAt = i;
      if (lowered > offloadAt + 2)
        ++slow;
    }
  }
  // Some copies outlast the next compute step: the waits matter.
  EXPECT_GT(slow, 0);
}

/// Offloading alone is not bounded by what recomputing reaches: the
/// smallest budget it names is its own, and it plans there.
TEST(OffloadTest, OffloadOnlyNamesItsOwnSmallestBudget) {
  Graph g = transformer();
  PlanOutcome low = plan(g, offloadRequest("1", kMaxTotalBytes));
  ASSERT_EQ(low.failure, PlanFailure::NoSchedule) << low.reason;
  ASSERT_GT(low.smallestBudget, 0) << low.reason;
  EXPECT_LT(low.smallestBudget, keepAllPeak(g));
  PlanOutcome asked = plan(
      g, offloadRequest(std::to_string(low.smallestBudget), kMaxTotalBytes));
  ASSERT_TRUE(asked.succeeded()) << asked.reason;
  EXPECT_LE(asked.result.peakBytes, low.smallestBudget);
}

/// The options of the offloading searches' tests: `budget`, a small
/// effort.
SolveOptions searchOptions(int64_t budget) {
  SolveOptions options;
  options.budget = budget;
  options.effort = 0.05;
  return options;
}

/// What the planner's judge says of `plan` (Offload.cpp, `keepingBest`).
OffloadVerdict verdictOf(const OffloadedPlan &plan) {
  return OffloadVerdict{plan.sim.valid() ? plan.sim.peakBytes : kMaxTotalBytes,
                        plan.sim.time, 0, offloadedNodes(plan.result.schedule)};
}

/// The most values one plan of the chain DP with offloading
/// (searchRotorOffloads) chose to offload at `budget`.
size_t mostChosen(const Graph &g, const HostLink &link, int64_t budget) {
  size_t most = 0;
  searchRotorOffloads(
      g, searchOptions(budget), link,
      [&](const Schedule &schedule, const std::vector<int> &offloaded) {
        most = std::max(most, offloaded.size());
        return verdictOf(addOffloads(g, schedule, link, budget, offloaded));
      });
  return most;
}

// Where a block's kept values copy out while the next block runs forward
// and back while its backward runs, the chain DP keeps them by offloading
// instead of recomputing them: its plan recomputes nothing and predicts
// less time than rotor's recompute-only plan at the same budget. On a link
// too slow for that, the stalls it prices keep it from offloading at all,
// and its plan is no slower than recomputing.
TEST(OffloadTest, ChainDpOffloadsWhatTheLinkHides) {
  Graph g = transformer(8);
  SolveOptions options = searchOptions(keepAllPeak(g) / 2);
  SolveResult recompute = solveRotor(g, options);
  ASSERT_TRUE(recompute.feasible()) << recompute.message;
  ASSERT_GT(recompute.cost, checkpointAllCost(g));

  HostLink fast = testLink();
  OffloadedPlan hidden = planOnChain(g, options, fast);
  expectReplays(g, hidden, fast, options.budget, "fast");
  EXPECT_GT(hidden.sim.copies, 0);
  EXPECT_DOUBLE_EQ(hidden.sim.time, checkpointAllCost(g));
  EXPECT_GT(mostChosen(g, fast, options.budget), 0u);

  HostLink slow = testLink(1e-3);
  EXPECT_EQ(mostChosen(g, slow, options.budget), 0u);
  OffloadedPlan stalled = planOnChain(g, options, slow);
  expectReplays(g, stalled, slow, options.budget, "slow");
  EXPECT_LE(stalled.sim.time, recompute.cost);
}

/// The best plan local search with offloading (searchLocalOffloads)
/// reaches from `start`, each plan it visits brought down to `budget` by
/// addOffloads, and the number of plans it judged.
std::pair<OffloadedPlan, int> climbFrom(const Graph &g, const HostLink &link,
                                        int64_t budget, const Schedule &start) {
  OffloadedPlan best;
  int judged = 0;
  searchLocalOffloads(
      g, searchOptions(budget), start,
      [&](const Schedule &schedule, const std::vector<int> &offloaded) {
        ++judged;
        OffloadedPlan plan = addOffloads(g, schedule, link, budget, offloaded);
        OffloadVerdict verdict = verdictOf(plan);
        if (plan.result.feasible() &&
            (!best.result.feasible() || plan.sim.time < best.sim.time))
          best = std::move(plan);
        return verdict;
      });
  return {std::move(best), judged};
}

/// How many recomputations in `schedule` nothing reads before the value is
/// freed or offloaded.
int unreadRecomputations(const Graph &g, const Schedule &schedule) {
  std::vector<int> computed(g.size(), 0);
  std::vector<char> pending(g.size(), 0);
  int unread = 0;
  for (const Step &step : schedule.steps) {
    if (step.kind != Step::Kind::Compute) {
      if (step.kind != Step::Kind::Prefetch)
        unread += pending[step.node];
      pending[step.node] = 0;
      continue;
    }
    forEachRead(g.nodes[step.node], [&](int dep) { pending[dep] = 0; });
    pending[step.node] = ++computed[step.node] > 1;
  }
  return unread;
}

// Local search with offloading turns recomputations into offloads where the
// link hides them: from rotor's recompute-only plan on a fast link, its
// best plan recomputes less and predicts less time than that plan with
// copies added, within the budget, and no recomputation it leaves goes
// unread. On a link too slow for any copy it takes no move: its best is
// the starting plan.
TEST(OffloadTest, LocalSearchOffloadsWhatWasRecomputed) {
  Graph g = transformer(8);
  SolveOptions options = searchOptions(keepAllPeak(g) / 2);
  SolveResult recompute = solveRotor(g, options);
  ASSERT_TRUE(recompute.feasible()) << recompute.message;

  HostLink fast = testLink();
  OffloadedPlan start =
      addOffloads(g, recompute.schedule, fast, options.budget);
  ASSERT_TRUE(start.result.feasible());
  auto [climbed, judged] =
      climbFrom(g, fast, options.budget, recompute.schedule);
  expectReplays(g, climbed, fast, options.budget, "fast");
  EXPECT_GT(judged, 1);
  EXPECT_LT(climbed.sim.time, start.sim.time);
  EXPECT_LT(climbed.sim.cost, start.sim.cost);
  EXPECT_EQ(unreadRecomputations(g, climbed.result.schedule), 0);

  HostLink slow = testLink(1e-3);
  OffloadedPlan slowStart =
      addOffloads(g, recompute.schedule, slow, options.budget);
  auto [kept, tried] = climbFrom(g, slow, options.budget, recompute.schedule);
  EXPECT_GT(tried, 1);
  expectReplays(g, kept, slow, options.budget, "slow");
  EXPECT_EQ(kept.sim.time, slowStart.sim.time);
  EXPECT_EQ(kept.result.schedule.steps, slowStart.result.schedule.steps);
}

// A schedule that does not simulate gets no plan: before, the search kept
// its empty start, which had no peak and passed for a feasible plan.
TEST(OffloadTest, AnInvalidScheduleHasNoPlan) {
  Graph g = transformer();
  Schedule schedule = checkpointAllSchedule(g);
  ASSERT_FALSE(g.outputs.empty());
  schedule.steps.push_back(Step::free(g.outputs.front()));
  OffloadedPlan plan = addOffloads(g, schedule, testLink(), keepAllPeak(g));
  EXPECT_FALSE(plan.result.feasible());
  EXPECT_TRUE(plan.result.schedule.steps.empty());
  EXPECT_FALSE(plan.sim.valid());
  EXPECT_NE(plan.result.message.find("not live at the end"), std::string::npos)
      << plan.result.message;
}

TEST(OffloadTest, HostLinkPresets) {
  Graph flops;
  Graph timed;
  timed.device = "h100";
  std::optional<HostLink> pcie = findHostLink("pcie5", flops);
  ASSERT_TRUE(pcie);
  EXPECT_EQ(pcie->costPerSecond, 1e13);
  EXPECT_EQ(findHostLink("pcie5", timed)->costPerSecond, 1e12);
  // 63 GB in one second plus 5 us, in picoseconds.
  EXPECT_NEAR(findHostLink("pcie5", timed)->copyCost(63'000'000'000),
              1e12 + 5e6, 1);
  EXPECT_FALSE(findHostLink("none", flops));
  EXPECT_FALSE(findHostLink("nvlink", flops));
  EXPECT_EQ(hostLinkNames(), "none, pcie4, pcie5, c2c, ideal");
}

} // namespace
