//===- Campaign.cpp - property campaign over random problems --------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Testing/Campaign.h"

#include "remat/Solver/Testing/Generators.h"
#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/SolverSupport.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

using namespace remat;

namespace {

/// splitmix64: a small deterministic generator, the same on every platform.
class Random {
public:
  explicit Random(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, n).
  int64_t below(int64_t n) { return static_cast<int64_t>(next() % n); }
  /// True with probability 1/n.
  bool oneIn(int n) { return below(n) == 0; }
  /// Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

private:
  uint64_t state;
};

/// Pins one random forward node `keep = always` or `never`, sometimes.
void addRandomPins(Graph &graph, Random &random) {
  std::vector<int> forward;
  for (int id = 0; id < graph.size(); ++id)
    if (graph.nodes[id].kind == NodeKind::Forward)
      forward.push_back(id);
  if (forward.empty())
    return;
  if (random.oneIn(4))
    graph.nodes[forward[random.below(forward.size())]].keep =
        KeepPolicy::Always;
  if (random.oneIn(8))
    graph.nodes[forward[random.below(forward.size())]].keep = KeepPolicy::Never;
}

/// Sometimes makes two random forward nodes ops with memory effects: both
/// pinned `keep = always`, the later one ordered after the earlier
/// (`Node::after`), as GraphBuilder orders opaque calls.
void addRandomEffectOrder(Graph &graph, Random &random) {
  std::vector<int> forward;
  for (int id = 0; id < graph.size(); ++id)
    if (graph.nodes[id].kind == NodeKind::Forward)
      forward.push_back(id);
  if (forward.size() < 2 || !random.oneIn(8))
    return;
  int first = forward[random.below(forward.size())];
  int second = forward[random.below(forward.size())];
  if (first == second)
    return;
  if (first > second)
    std::swap(first, second);
  graph.nodes[first].keep = KeepPolicy::Always;
  graph.nodes[second].keep = KeepPolicy::Always;
  graph.nodes[second].after.push_back(first);
}

/// A random objective: mostly a budget between just below the peak lower
/// bound and the checkpoint-all peak, sometimes min-peak under an overhead.
SolveOptions makeRandomOptions(const Graph &graph, Random &random,
                               double timeLimit) {
  SolveOptions options;
  options.threads = 1;
  options.timeLimitSeconds = timeLimit;
  if (random.oneIn(5)) {
    options.objective = Objective::MinPeakUnderOverhead;
    const double overheads[] = {-1, 0, 0.25, 1};
    options.maxOverhead = overheads[random.below(4)];
    return options;
  }
  int64_t top = simulate(graph, checkpointAllSchedule(graph)).peakBytes;
  int64_t low = std::min(peakLowerBound(graph), top);
  switch (random.below(6)) {
  case 0:
    options.budget = top;
    break;
  case 1:
    options.budget = low;
    break;
  case 2:
    options.budget = std::max<int64_t>(low - 1, 0);
    break;
  default:
    options.budget = low + static_cast<int64_t>(random.unit() *
                                                static_cast<double>(top - low));
  }
  return options;
}

/// The value the objective minimizes.
double objectiveOf(const SolveOptions &options, const SolveResult &result) {
  return options.objective == Objective::MinComputeUnderBudget
             ? result.cost
             : static_cast<double>(result.peakBytes);
}

/// Whether `a` is smaller than `b` beyond rounding.
bool isLess(double a, double b) {
  return a < b - 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)});
}

/// Whether `solver` is one of Checkmate's, whose "optimal" holds within the
/// frontier-advancing class only (docs/Solvers.md).
bool isCheckmate(const std::string &solver) {
  return solver.rfind("checkmate-", 0) == 0;
}

/// Whether `result`'s lower bound is Checkmate's (the MILP's or the LP
/// rounding's, or the portfolio's when one of them won), which holds for the
/// frontier-advancing stage plans only (docs/Solvers.md), not for every
/// schedule: a schedule the solver returns from a warm start or a rounding
/// may go below it.
bool hasClassBound(const SolveResult &result) {
  return isCheckmate(result.solver) ||
         result.message.find("best: checkmate-") != std::string::npos;
}

/// Collects the violations of one graph.
class Checker {
public:
  Checker(const CampaignProblem &problem, uint64_t seed, int index,
          CampaignReport &report, int maxFailures)
      : graph(problem.graph), options(problem.options), seed(seed),
        index(index), report(report), maxFailures(maxFailures) {}

  void fail(const std::string &solver, const std::string &what) {
    ++report.failureCount;
    if (static_cast<int>(report.failures.size()) >= maxFailures)
      return;
    std::ostringstream os;
    os << "seed " << seed << " graph " << index << " (" << graph.size()
       << " nodes, ";
    if (options.objective == Objective::MinComputeUnderBudget)
      os << "budget " << options.budget;
    else
      os << "min-peak, overhead " << options.maxOverhead;
    os << ") " << solver << ": " << what;
    report.failures.push_back(os.str());
  }

  /// The properties of one answer on its own.
  void checkAnswer(const std::string &solver, const SolveResult &result,
                   double wallSeconds) {
    if (wallSeconds > options.timeLimitSeconds * 1.1 + 1)
      fail(solver, "took " + std::to_string(wallSeconds) + " s");
    if (!result.feasible())
      return;
    Simulation simulation = simulate(graph, result.schedule);
    if (!simulation.valid())
      return fail(solver, "schedule rejected: " + simulation.error);
    if (simulation.peakBytes != result.peakBytes)
      fail(solver, "reported peak " + std::to_string(result.peakBytes) +
                       ", simulated " + std::to_string(simulation.peakBytes));
    if (isLess(simulation.cost, result.cost) ||
        isLess(result.cost, simulation.cost))
      fail(solver, "reported cost differs from the simulated one");
    if (recomputedPin(graph, result.schedule) >= 0)
      fail(solver, "recomputes a keep = always node");
    if (sharedNeverPin(graph, result.schedule) >= 0)
      fail(solver, "lets the backward read a keep = never node's forward copy");
    if (options.objective == Objective::MinComputeUnderBudget &&
        result.peakBytes > options.budget)
      fail(solver, "peak over the budget");
    if (options.objective == Objective::MinPeakUnderOverhead &&
        isLess(costLimit(graph, options), result.cost))
      fail(solver, "cost over the overhead limit");
    if (result.peakBytes < peakLowerBound(graph))
      fail(solver, "peak below peakLowerBound");
    if (isLess(result.cost, checkpointAllCost(graph)))
      fail(solver, "cost below the checkpoint-all cost");
    if (result.lowerBound >= 0 && !hasClassBound(result) &&
        isLess(objectiveOf(options, result), result.lowerBound))
      fail(solver, "objective " + std::to_string(objectiveOf(options, result)) +
                       " below the solver's own lower bound " +
                       std::to_string(result.lowerBound));
  }

  /// Monotone in the budget: `solver`, which met this budget with
  /// `result`, meets a larger one (halfway to the checkpoint-all peak) with
  /// no more compute.
  void checkMonotone(const SolverInfo &solver, const SolveResult &result) {
    if (options.objective != Objective::MinComputeUnderBudget ||
        !result.feasible())
      return;
    int64_t top = simulate(graph, checkpointAllSchedule(graph)).peakBytes;
    if (options.budget >= top)
      return;
    SolveOptions larger = options;
    larger.budget = options.budget + (top - options.budget + 1) / 2;
    SolveResult again = solver.solve(graph, larger);
    ++report.monotoneChecks;
    std::string at = "at the larger budget " + std::to_string(larger.budget);
    if (!again.feasible())
      return fail(solver.name, "no plan " + at + " (" + toString(again.status) +
                                   "): " + again.message);
    if (isLess(result.cost, again.cost))
      fail(solver.name, "cost " + std::to_string(again.cost) + " " + at +
                            ", more than " + std::to_string(result.cost));
  }

  /// The properties across solvers, against brute force's answer.
  void checkAgainstExact(const std::map<std::string, SolveResult> &results) {
    auto exact = results.find("brute-force");
    if (exact == results.end() ||
        exact->second.status == SolveStatus::Unsupported ||
        exact->second.status == SolveStatus::Timeout)
      return;
    ++report.exactGraphs;
    bool exactFeasible = exact->second.feasible();
    double optimum = exactFeasible ? objectiveOf(options, exact->second) : 0;
    for (const auto &[name, result] : results) {
      if (!result.feasible())
        continue;
      if (!exactFeasible) {
        fail(name, "feasible where brute force found nothing");
        continue;
      }
      double value = objectiveOf(options, result);
      if (isLess(value, optimum))
        fail(name, "beats brute force's optimum");
      if (result.status == SolveStatus::Optimal && !isCheckmate(name) &&
          isLess(optimum, value))
        fail(name, "says optimal, brute force does better");
    }
  }

  /// Checkpoint-all, brute force and the portfolio must be feasible when
  /// the budget holds checkpoint-all's peak.
  void checkFitsWhenCheckpointAllFits(
      const std::map<std::string, SolveResult> &results) {
    if (options.objective != Objective::MinComputeUnderBudget ||
        simulate(graph, checkpointAllSchedule(graph)).peakBytes >
            options.budget)
      return;
    for (const char *name : {"checkpoint-all", "brute-force", "auto"}) {
      auto it = results.find(name);
      if (it != results.end() && !it->second.feasible() &&
          it->second.status != SolveStatus::Unsupported)
        fail(name, "infeasible although checkpoint-all fits the budget");
    }
  }

private:
  const Graph &graph;
  const SolveOptions &options;
  uint64_t seed;
  int index;
  CampaignReport &report;
  int maxFailures;
};

void tally(SolverTally &tally, const SolveResult &result, double seconds) {
  ++tally.solves;
  tally.seconds += seconds;
  tally.maxSeconds = std::max(tally.maxSeconds, seconds);
  switch (result.status) {
  case SolveStatus::Optimal:
    ++tally.optimal;
    break;
  case SolveStatus::Feasible:
    ++tally.feasible;
    break;
  case SolveStatus::Infeasible:
    ++tally.infeasible;
    break;
  case SolveStatus::Timeout:
    ++tally.timeout;
    break;
  case SolveStatus::Unsupported:
    ++tally.unsupported;
    break;
  }
}

} // namespace

CampaignProblem remat::makeCampaignProblem(uint64_t seed, int index,
                                           const CampaignOptions &options) {
  Random random(seed * 0x100000001B3ull + static_cast<uint64_t>(index));
  GeneratorOptions generator;
  const int64_t unitBytes[] = {1, 8, 4096};
  generator.bytes = unitBytes[random.below(3)];
  generator.params = !random.oneIn(3);
  generator.paramBytes = random.oneIn(2) ? 1 : generator.bytes;
  generator.heterogeneous = random.oneIn(2);
  generator.seed = random.next();
  int forward = 2 + static_cast<int>(
                        random.below(std::max(1, options.maxForwardNodes - 1)));
  CampaignProblem problem;
  problem.graph = makeRandomDag(forward, random.next(), generator);
  if (random.oneIn(4))
    problem.graph.fixedBytes = random.below(4 * generator.bytes + 1);
  addRandomPins(problem.graph, random);
  problem.options =
      makeRandomOptions(problem.graph, random, options.timeLimitSeconds);
  // Drawn last, so that the graphs and objectives drawn before stay as they
  // were; the edges change neither the checkpoint-all peak nor the bound.
  if (options.effectOrder)
    addRandomEffectOrder(problem.graph, random);
  return problem;
}

CampaignReport remat::runCampaign(
    const CampaignOptions &options,
    const std::function<void(const CampaignReport &)> &progress) {
  std::vector<const SolverInfo *> solvers;
  for (const SolverInfo &info : allSolvers())
    if (options.solvers.empty() ||
        std::count(options.solvers.begin(), options.solvers.end(), info.name))
      solvers.push_back(&info);

  CampaignReport report;
  for (int index = options.first; index < options.first + options.graphs;
       ++index) {
    CampaignProblem problem = makeCampaignProblem(options.seed, index, options);
    Checker checker(problem, options.seed, index, report, options.maxFailures);
    if (std::string error = problem.graph.check(); !error.empty()) {
      checker.fail("generator", error);
      continue;
    }
    std::map<std::string, SolveResult> results;
    for (const SolverInfo *info : solvers) {
      auto start = std::chrono::steady_clock::now();
      SolveResult result = info->solve(problem.graph, problem.options);
      double seconds = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - start)
                           .count();
      ++report.solves;
      tally(report.tallies[info->name], result, seconds);
      checker.checkAnswer(info->name, result, seconds);
      if (std::count(options.monotone.begin(), options.monotone.end(),
                     info->name))
        checker.checkMonotone(*info, result);
      results.emplace(info->name, std::move(result));
    }
    checker.checkAgainstExact(results);
    checker.checkFitsWhenCheckpointAllFits(results);
    ++report.graphs;
    if (progress)
      progress(report);
  }
  return report;
}
