//===- CostScaleTest.cpp - plans do not depend on the cost unit -----------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Costs are FLOPs or predicted time (seconds, picoseconds): every registered
// solver, in every mode, must plan the same whatever the unit. Each graph is
// solved as generated and with all its costs multiplied by 1e-6 and 1e6; no
// status may change, no relative recompute by more than 1 %, no smallest
// budget by more than 1 %. One graph has picosecond-scale costs (1e-12 per
// unit op), as a roofline time model in seconds gives.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Testing/Generators.h"
#include "remat/Solver/Search/Modes.h"
#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/SolverSupport.h"

#include "gtest/gtest.h"

#include <cctype>
#include <cmath>
#include <string>
#include <vector>

using namespace remat;

namespace {

/// `graph` with every cost multiplied by `factor`.
Graph withCostsTimes(Graph graph, double factor) {
  for (Node &node : graph.nodes) {
    node.cost *= factor;
    node.costPerSample *= factor;
  }
  return graph;
}

/// Small graphs of different shapes; the chain is small enough for brute
/// force, the last has picosecond costs.
std::vector<Graph> unitGraphs() {
  GeneratorOptions hetero;
  hetero.heterogeneous = true;
  GeneratorOptions large = hetero;
  large.bytes = 1 << 20;
  large.cost = 1e9;
  Graph picoseconds =
      withCostsTimes(makeFamily("transformer", 40, hetero), 1e-12);
  picoseconds.name += " (picosecond costs)";
  return {makeChain(5, hetero), makeFamily("resnet", 30, large),
          makeRandomDag(14, 5, hetero), picoseconds};
}

/// What a mode answered: its status, the plan's relative recompute and the
/// smallest budget (min-budget only).
struct Answer {
  SolveStatus status = SolveStatus::Unsupported;
  double recompute = 0;
  int64_t smallestBudget = -1;
  bool stoppedByTimeLimit = false;
};

Answer answerOf(const Graph &graph, const SolveResult &result) {
  Answer answer;
  answer.status = result.status;
  answer.stoppedByTimeLimit = result.stoppedByTimeLimit;
  if (result.feasible())
    answer.recompute = result.cost / checkpointAllCost(graph) - 1;
  return answer;
}

/// `solver`'s answer on `graph` in `mode`: min-compute half-way between the
/// peak bound and the checkpoint-all peak, min-peak at one extra forward
/// pass, min-budget.
Answer ask(const SolverInfo &solver, const Graph &graph,
           const std::string &mode) {
  SolveOptions options;
  // Work-bounded: the same plan on a loaded machine.
  options.effort = 0.002;
  options.threads = 1;
  if (mode == "min-budget") {
    BudgetSearch search = findSmallestBudget(graph, solver, options);
    Answer answer = answerOf(graph, search.best);
    answer.smallestBudget = search.smallestBudget;
    return answer;
  }
  if (mode == "min-peak") {
    options.objective = Objective::MinPeakUnderOverhead;
  } else {
    int64_t top = simulate(graph, checkpointAllSchedule(graph)).peakBytes;
    options.budget = (top + peakLowerBound(graph)) / 2;
  }
  return answerOf(graph, solver.solve(graph, options));
}

/// Every registered solver's name, one test each.
std::vector<std::string> solverNamesList() {
  std::vector<std::string> names;
  for (const SolverInfo &info : allSolvers())
    names.push_back(info.name);
  return names;
}

class CostScaleTest : public testing::TestWithParam<std::string> {};

TEST_P(CostScaleTest, PlansDoNotDependOnTheCostUnit) {
  const SolverInfo &solver = *findSolver(GetParam());
  for (const Graph &graph : unitGraphs())
    for (const char *mode : {"min-compute", "min-peak", "min-budget"}) {
      // The COIN-OR solvers take seconds per solve: the chain only, and
      // the MILP in min-compute only (its min-budget search runs about 30 CBC
      // solves, 30 s; min-peak 10 s).
      bool coinOr = solver.name.rfind("checkmate", 0) == 0;
      if ((coinOr && graph.name != unitGraphs().front().name) ||
          (solver.name == "checkmate-milp" &&
           std::string(mode) != "min-compute"))
        continue;
      Answer base = ask(solver, graph, mode);
      for (double factor : {1e-6, 1e6}) {
        std::string what = graph.name + " / " + solver.name + " / " + mode +
                           " / costs x " + std::to_string(factor);
        Answer scaled = ask(solver, withCostsTimes(graph, factor), mode);
        // A plan the wall-clock cap ended may differ between runs.
        if (base.stoppedByTimeLimit || scaled.stoppedByTimeLimit)
          continue;
        ASSERT_EQ(toString(base.status), toString(scaled.status)) << what;
        EXPECT_NEAR(base.recompute, scaled.recompute, 0.01) << what;
        EXPECT_NEAR(static_cast<double>(base.smallestBudget),
                    static_cast<double>(scaled.smallestBudget),
                    0.01 * std::fabs(static_cast<double>(base.smallestBudget)))
            << what;
      }
    }
}

INSTANTIATE_TEST_SUITE_P(EverySolver, CostScaleTest,
                         testing::ValuesIn(solverNamesList()),
                         [](const testing::TestParamInfo<std::string> &info) {
                           std::string name = info.param;
                           for (char &c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           return name;
                         });

} // namespace
