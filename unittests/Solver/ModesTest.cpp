//===- ModesTest.cpp - the mode searches and the Pareto curve -------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Modes.h"

#include "remat/Solver/Checkmate.h"
#include "remat/Solver/Generators.h"
#include "remat/Solver/ScheduleBuilder.h"
#include "remat/Solver/Simulator.h"
#include "remat/Solver/SolverSupport.h"
#include "remat/Solver/Solvers.h"

#include "gtest/gtest.h"

#include <chrono>
#include <string>
#include <thread>
#include <vector>

using namespace remat;

namespace {

/// Fast solvers of different families, plus LP rounding when COIN-OR is in
/// the build.
std::vector<const SolverInfo *> curveSolvers() {
  std::vector<const SolverInfo *> solvers;
  for (const char *name : {"chen-greedy", "feng-huang", "dtr", "local-search",
                           "auto", "checkmate-lp-rounding"}) {
    const SolverInfo *info = findSolver(name);
    if (info &&
        (std::string(name) != "checkmate-lp-rounding" || checkmateAvailable()))
      solvers.push_back(info);
  }
  return solvers;
}

std::vector<Graph> curveGraphs() {
  GeneratorOptions hetero;
  hetero.heterogeneous = true;
  return {makeFamily("chain", 20, hetero), makeFamily("resnet", 30),
          makeFamily("densenet", 40), makeRandomDag(12, 3, hetero),
          makeRandomDag(10, 11)};
}

/// LP rounding solves its tighter LPs only while time is left, and the
/// re-asking test needs the same answer twice: a limit that load on a
/// shared machine does not reach (these solves take under a second).
SolveOptions quickOptions() {
  SolveOptions options;
  options.timeLimitSeconds = 30;
  return options;
}

// The curve is monotone whatever the solver: a tighter budget never has a
// larger peak nor a smaller cost; every point fits its budget and replays;
// it starts at checkpoint-all (peak and cost) and ends at the smallest
// budget of the search.
TEST(ParetoTest, MonotoneWithCheckpointAllEndpoint) {
  size_t curves = 0;
  for (const Graph &g : curveGraphs()) {
    const int64_t allPeak = simulate(g, checkpointAllSchedule(g)).peakBytes;
    for (const SolverInfo *solver : curveSolvers()) {
      std::string what = g.name + " / " + solver->name;
      // 3 s: SmallestBudgetIsMetWhenAskedAgain covers it.
      if (g.name.rfind("densenet", 0) == 0 &&
          solver->name == "checkmate-lp-rounding")
        continue;
      ParetoCurve curve = paretoCurve(g, *solver, quickOptions(), 6);
      // A heuristic may miss even the checkpoint-all peak (Feng & Huang on
      // DenseNet): then there is no curve.
      if (curve.smallestBudget < 0) {
        EXPECT_TRUE(curve.points.empty()) << what;
        continue;
      }
      ++curves;
      ASSERT_FALSE(curve.points.empty()) << what;
      EXPECT_LE(curve.points.size(), 6u) << what;
      const ParetoPoint &first = curve.points.front();
      EXPECT_EQ(first.budget, allPeak) << what;
      EXPECT_EQ(curve.checkpointAllPeak, allPeak) << what;
      EXPECT_DOUBLE_EQ(first.result.cost, checkpointAllCost(g)) << what;
      EXPECT_LE(first.result.peakBytes, allPeak) << what;
      EXPECT_EQ(first.result.status, SolveStatus::Optimal) << what;
      EXPECT_EQ(curve.points.back().budget, curve.smallestBudget) << what;
      for (size_t i = 0; i < curve.points.size(); ++i) {
        const ParetoPoint &p = curve.points[i];
        ASSERT_TRUE(p.result.feasible()) << what << " point " << i;
        Simulation sim = simulate(g, p.result.schedule);
        ASSERT_TRUE(sim.valid()) << what << ": " << sim.error;
        EXPECT_EQ(sim.peakBytes, p.result.peakBytes) << what;
        EXPECT_DOUBLE_EQ(sim.cost, p.result.cost) << what;
        EXPECT_LE(p.result.peakBytes, p.budget) << what;
        EXPECT_LE(p.result.peakBytes, p.foundAtBudget) << what;
        if (i == 0)
          continue;
        const ParetoPoint &prev = curve.points[i - 1];
        EXPECT_LT(p.budget, prev.budget) << what;
        EXPECT_LE(p.result.peakBytes, prev.result.peakBytes) << what;
        EXPECT_GE(p.result.cost, prev.result.cost) << what;
      }
    }
  }
  EXPECT_GE(curves, curveGraphs().size() * (curveSolvers().size() - 1) - 1);
}

// The exact solver's curve is the true trade-off: every point optimal.
TEST(ParetoTest, ExactCurveIsOptimal) {
  GeneratorOptions unit;
  unit.params = false;
  unit.bytes = 1;
  Graph g = makeChain(4, unit);
  ParetoCurve curve = paretoCurve(g, *findSolver("brute-force"), {}, 3);
  ASSERT_EQ(curve.points.size(), 3u);
  // chain4 as in test/remat-solve: (6, 8), (5, 9), (4, 11).
  const int64_t peaks[] = {6, 5, 4};
  const double costs[] = {8, 9, 11};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(curve.points[i].budget, peaks[i]);
    EXPECT_EQ(curve.points[i].result.peakBytes, peaks[i]);
    EXPECT_DOUBLE_EQ(curve.points[i].result.cost, costs[i]);
    EXPECT_EQ(curve.points[i].result.status, SolveStatus::Optimal);
  }
}

// Whatever budget the search reports, the solver asked again at exactly
// that budget returns a plan. LP rounding on densenet:40 found a 318-byte
// plan at budget 325 but none at 318: the search used to report 318.
TEST(ModesTest, SmallestBudgetIsMetWhenAskedAgain) {
  for (const Graph &g : curveGraphs()) {
    for (const SolverInfo *solver : curveSolvers()) {
      std::string what = g.name + " / " + solver->name;
      SolveOptions options = quickOptions();
      BudgetSearch search = findSmallestBudget(g, *solver, options);
      if (search.smallestBudget < 0)
        continue; // met no budget at all (see above)
      EXPECT_LE(search.best.peakBytes, search.smallestBudget) << what;
      EXPECT_EQ(search.probes, static_cast<int>(search.answers.size()));
      options.budget = search.smallestBudget;
      SolveResult again = solver->solve(g, options);
      EXPECT_TRUE(again.feasible())
          << what << " at " << search.smallestBudget << ": " << again.message;
    }
  }
}

// The time limit bounds the whole curve: with a solver that always takes
// its full limit, ten points (and the search's probes) take about the limit
// in all instead of the limit per solve.
TEST(ParetoTest, TimeLimitBoundsTheCurve) {
  SolverInfo slow{"slow", "checkpoint sets after its whole time limit",
                  [](const Graph &g, const SolveOptions &o) {
                    std::this_thread::sleep_for(
                        std::chrono::duration<double>(o.timeLimitSeconds));
                    return solveChenGreedyTopo(g, o);
                  }};
  Graph g = makeFamily("resnet", 30);
  SolveOptions options;
  options.timeLimitSeconds = 2;
  ParetoCurve curve = paretoCurve(g, slow, options, 10);
  ASSERT_FALSE(curve.points.empty());
  EXPECT_GT(curve.probes, 10);
  // Each solve takes at least 0.1 s: 2 s plus what that floor adds.
  EXPECT_LE(curve.seconds, 2.0 * 1.25);
  for (size_t i = 1; i < curve.points.size(); ++i) {
    EXPECT_LE(curve.points[i].result.peakBytes,
              curve.points[i - 1].result.peakBytes);
    EXPECT_GE(curve.points[i].result.cost, curve.points[i - 1].result.cost);
  }
}

// Every probe of a search is a phase report; ProgressReporter drops
// periodic reports within a second of the last one.
TEST(ModesTest, ProgressReports) {
  std::vector<SolveProgress> reports;
  SolveOptions options;
  options.progress = [&](const SolveProgress &p) { reports.push_back(p); };
  Graph g = makeFamily("resnet", 30);
  BudgetSearch search =
      findSmallestBudget(g, *findSolver("chen-greedy"), options);
  ASSERT_EQ(reports.size(), search.answers.size());
  for (const SolveProgress &p : reports) {
    EXPECT_EQ(p.solver, "min-budget");
    EXPECT_TRUE(p.phase);
    EXPECT_EQ(p.message.rfind("probe ", 0), 0u) << p.message;
  }
  EXPECT_EQ(reports.back().incumbentPeak, search.best.peakBytes);

  reports.clear();
  Stopwatch watch;
  ProgressReporter reporter(options, "test", watch);
  reporter.report(1, 1, -1, "phase", /*phase=*/true);
  reporter.report(1, 1, -1, "periodic");
  EXPECT_EQ(reports.size(), 1u);
  EXPECT_FALSE(reporter.due());

  // Nested solves reach the outer callback as periodic reports.
  SolveOptions nested = nestedOptions(options);
  nested.progress(SolveProgress{"inner", -1, -1, -1, 0, "x", true});
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_FALSE(reports.back().phase);
}

} // namespace
