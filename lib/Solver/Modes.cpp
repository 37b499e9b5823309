//===- Modes.cpp - what to ask of a solver --------------------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Modes.h"

#include "remat/Solver/ScheduleBuilder.h"
#include "remat/Solver/Simulator.h"
#include "remat/Solver/SolverSupport.h"
#include "remat/Solver/Solvers.h"

#include <algorithm>
#include <cmath>
#include <sstream>

using namespace remat;

const std::vector<ModeInfo> &remat::allModes() {
  static const std::vector<ModeInfo> modes = {
      {Mode::MinCompute, "min-compute", "least compute within the budget"},
      {Mode::MinPeak, "min-peak",
       "least peak within a compute overhead (default: one extra forward "
       "pass)"},
      {Mode::MinBudget, "min-budget",
       "the smallest budget the solver meets, then least compute"},
      {Mode::MaxBatch, "max-batch",
       "the largest batch that fits the budget, planned at it"},
      {Mode::Pareto, "pareto", "the budget -> peak, compute curve"},
  };
  return modes;
}

const char *remat::toString(Mode mode) {
  for (const ModeInfo &info : allModes())
    if (info.mode == mode)
      return info.name;
  return "unknown";
}

bool remat::parseMode(const std::string &name, Mode &mode) {
  for (const ModeInfo &info : allModes())
    if (name == info.name) {
      mode = info.mode;
      return true;
    }
  return false;
}

bool remat::isPlanMode(Mode mode) { return mode != Mode::Pareto; }

std::string remat::batchScalingProblem(const Graph &graph) {
  if (graph.hasBatchScaling())
    return "";
  return "the graph carries no batch scaling: max-batch needs the batch it "
         "was traced at (\"batch\", in samples) and the per-sample part of "
         "each node's bytes and cost (\"bytes_per_sample\", "
         "\"cost_per_sample\"; docs/SolverFormat.md)";
}

std::optional<Graph> remat::scaleBatch(const Graph &graph, int64_t samples) {
  if (!graph.hasBatchScaling() || samples < 1)
    return std::nullopt;
  Graph scaled = graph;
  scaled.batch = samples;
  const int64_t delta = samples - graph.batch;
  // bytes >= batch * bytesPerSample keeps every size non-negative when
  // delta < 0; the totals must stay within the graph limits (Problem.h).
  for (Node &node : scaled.nodes) {
    int64_t extra;
    if (__builtin_mul_overflow(delta, node.bytesPerSample, &extra) ||
        __builtin_add_overflow(node.bytes, extra, &node.bytes))
      return std::nullopt;
    node.cost = std::max(0.0, node.cost + static_cast<double>(delta) *
                                              node.costPerSample);
  }
  if (!scaled.checkTotals().empty())
    return std::nullopt;
  return scaled;
}

/// "peak P, cost C" of a feasible answer, else its status.
static std::string describe(const SolveResult &result) {
  if (!result.feasible())
    return toString(result.status);
  std::ostringstream os;
  os << "peak " << result.peakBytes << ", cost " << result.cost;
  return os.str();
}

/// `solver` under options.budget, or Infeasible at once when the budget is
/// below `peakBound`, which no schedule beats: a heuristic would otherwise
/// search its whole time limit for a plan that does not exist.
static SolveResult solveUnderBudget(const Graph &graph,
                                    const SolverInfo &solver,
                                    const SolveOptions &options) {
  PeakBound bound = peakBound(graph);
  if (options.budget >= bound.bytes)
    return solver.solve(graph, options);
  return failSolve(solver.name, SolveStatus::Infeasible,
                   "proven: the budget of " + std::to_string(options.budget) +
                       " bytes is below " + std::to_string(bound.bytes) +
                       " bytes, a lower bound on every schedule's peak (" +
                       bound.describe(graph) + ")",
                   Stopwatch());
}

/// Re-asks the solver at verified peaks below the smallest budget met so
/// far at most this many times (`BudgetSearcher::recheck`).
static constexpr int kMaxRechecks = 8;
/// The rechecks a search with a total time expects to need.
static constexpr int kExpectedRechecks = 2;
/// The least time a solve of a search with a total time is given.
static constexpr double kMinShareSeconds = 0.1;

/// The time limit of the next solve of a search with `secondsLeft` of its
/// total time left and `solvesLeft` solves expected (this one included): an
/// equal share, at least kMinShareSeconds and at most the per-solve
/// `options.timeLimitSeconds`.
static double shareOfTime(const SolveOptions &options, double secondsLeft,
                          int solvesLeft) {
  double share = secondsLeft / std::max(1, solvesLeft);
  return std::min(options.timeLimitSeconds, std::max(kMinShareSeconds, share));
}

/// The options of one probe of a search: min-compute under the probe's
/// budget, reporting as a nested solve, without the portfolio's last resort
/// (a search asks many budgets and must not spend its time in the MILP at
/// each).
static SolveOptions getProbeOptions(const SolveOptions &options) {
  SolveOptions probe = nestedOptions(options);
  probe.objective = Objective::MinComputeUnderBudget;
  probe.lastResort = false;
  return probe;
}

/// Whether a search with `totalSeconds` may start another solve after
/// `elapsed`: not in the last twentieth of its time, where any solve would
/// overrun the limit.
static bool mayStartSolve(double elapsed, double totalSeconds) {
  return elapsed < totalSeconds * 0.95;
}

/// Bisection steps from (lo, hi) down to the search's resolution.
static int bisectionSteps(int64_t lo, int64_t hi) {
  int64_t resolution = std::max<int64_t>(1, hi / 1000);
  if (hi - lo <= resolution)
    return 0;
  return static_cast<int>(std::ceil(std::log2(
      static_cast<double>(hi - lo) / static_cast<double>(resolution))));
}

/// The time limit of the search's first probe below the top: short, since a
/// search heuristic spends its whole limit on a budget it cannot meet.
static constexpr double kQuickProbeSeconds = 0.1;
/// The time limit of the probe that confirms an "infeasible" quick probe:
/// twenty times the quick one, for machines that slow (instrumented builds,
/// heavy load).
static constexpr double kConfirmProbeSeconds = 2.0;

namespace {
/// The smallest-budget search (`findSmallestBudget`): the top of the range,
/// one quick probe a resolution step below it, then a bisection with equal
/// shares of the time and the rechecks of the verified peaks.
class BudgetSearcher {
public:
  BudgetSearcher(const Graph &graph, const SolverInfo &solver,
                 const SolveOptions &options, double totalSeconds)
      : graph(graph), solver(solver), options(options),
        total(totalSeconds > 0 ? totalSeconds : options.timeLimitSeconds),
        progress(options, "min-budget", watch),
        probeOptions(getProbeOptions(options)) {}

  BudgetSearch run();

private:
  const SolveResult &probe(int64_t budget, double seconds = -1);
  void report(const SolveResult &result, int64_t budget);
  bool belowTopIsMet();
  void bisect();
  void recheck();
  /// Whether a probe as long as the longest so far (a solver may need more
  /// than its share: `auto`'s members on a 50,000-node chain) would still
  /// start in time.
  bool mayStart() const {
    return mayStartSolve(watch.seconds() + longestProbe, total);
  }
  int64_t step() const { return std::max<int64_t>(1, hi / 1000); }

  const Graph &graph;
  const SolverInfo &solver;
  const SolveOptions &options;
  const double total;
  Stopwatch watch;
  ProgressReporter progress;
  SolveOptions probeOptions;
  BudgetSearch search;
  /// The bracket: nothing met below `lo` (proven or not), and the smallest
  /// budget or verified peak met so far.
  int64_t lo = 0, hi = 0;
  /// The smallest budget met when asked (-1: none), and its answer.
  int64_t met = -1;
  size_t metIndex = 0;
  /// Below this, an exact solver proved that no budget is met.
  int64_t proven = 0;
  double longestProbe = 0;
};
} // namespace

void BudgetSearcher::report(const SolveResult &result, int64_t budget) {
  const SolveResult *smallestPeak = nullptr;
  for (const BudgetProbe &answer : search.answers)
    if (answer.result.feasible() &&
        (!smallestPeak || answer.result.peakBytes < smallestPeak->peakBytes))
      smallestPeak = &answer.result;
  progress.report(smallestPeak ? smallestPeak->cost : -1,
                  smallestPeak ? smallestPeak->peakBytes : -1,
                  static_cast<double>(search.lowerBound),
                  "probe " + std::to_string(search.probes) + " at budget " +
                      std::to_string(budget) + ": " + describe(result),
                  /*phase=*/true);
}

/// Asks the solver at `budget` with `seconds` (default: an equal share of
/// what is left among the probes still expected).
const SolveResult &BudgetSearcher::probe(int64_t budget, double seconds) {
  probeOptions.budget = budget;
  double share = shareOfTime(options, total - watch.seconds(),
                             1 + bisectionSteps(lo, hi) + kExpectedRechecks);
  probeOptions.timeLimitSeconds =
      seconds > 0 ? std::min(seconds, share) : share;
  const double start = watch.seconds();
  search.answers.push_back({budget, solver.solve(graph, probeOptions)});
  longestProbe = std::max(longestProbe, watch.seconds() - start);
  ++search.probes;
  const SolveResult &result = search.answers.back().result;
  if (result.feasible()) {
    hi = std::min({hi, budget, result.peakBytes});
    if (met < 0 || budget < met) {
      met = budget;
      metIndex = search.answers.size() - 1;
    }
  } else if (result.status == SolveStatus::Infeasible && solver.exact) {
    // A timeout proves nothing, even from an exact solver.
    proven = std::max(proven, budget + 1);
  }
  report(result, budget);
  return result;
}

/// One quick probe a resolution step below the top, which the top's plan
/// met (at the lower bound when that is closer). Whether the search should
/// go on: not when the solver answered that it found nothing there (a
/// timeout or a plan says go on). Budgets that cannot be met are often met
/// nowhere below the checkpoint-all peak (parameters and gradients
/// dominate), and then every probe of a bisection would fail, each
/// spending its whole share of the time.
bool BudgetSearcher::belowTopIsMet() {
  if (hi <= lo || !mayStart())
    return true;
  const int64_t below = std::max(lo, hi - step());
  const SolveResult &quick = probe(below, kQuickProbeSeconds);
  // A timeout at this short limit says nothing about the budget.
  if (quick.status != SolveStatus::Infeasible)
    return true;
  // Neither does a heuristic's "infeasible" when it ran short of time (a
  // slow or loaded machine, an instrumented build): the search ends only if
  // the solver also finds nothing there with more time.
  if (!mayStart())
    return false;
  return probe(below, kConfirmProbeSeconds).status != SolveStatus::Infeasible;
}

/// Bisects [lo, hi] down to the resolution (out of time, the smallest
/// budget met so far stands), then asks at `lo` itself once.
void BudgetSearcher::bisect() {
  while (lo < hi && hi - lo > step() && mayStart()) {
    int64_t mid = lo + (hi - lo) / 2;
    if (!probe(mid).feasible())
      lo = mid + 1;
  }
  if (lo < hi && hi - lo <= step() && mayStart())
    probe(lo);
}

/// Re-asks the solver at verified peaks below the smallest budget met so
/// far: a plan found at budget X peaks at P <= X, but the solver asked at P
/// may find nothing (it is not monotone in the budget). Only a budget the
/// solver met when asked at exactly that budget is reported.
void BudgetSearcher::recheck() {
  auto asked = [&](int64_t budget) {
    return std::any_of(
        search.answers.begin(), search.answers.end(),
        [&](const BudgetProbe &answer) { return answer.budget == budget; });
  };
  for (int i = 0; i < kMaxRechecks && met >= 0 && mayStart(); ++i) {
    int64_t next = -1;
    for (const BudgetProbe &answer : search.answers)
      if (answer.result.feasible() && answer.result.peakBytes < met &&
          (next < 0 || answer.result.peakBytes < next) &&
          !asked(answer.result.peakBytes))
        next = answer.result.peakBytes;
    if (next < 0)
      break;
    probe(next);
  }
}

BudgetSearch BudgetSearcher::run() {
  search.lowerBound = peakLowerBound(graph);
  lo = proven = search.lowerBound;
  // The top of the range: checkpoint-all's peak fits every sane solver.
  hi = simulate(graph, checkpointAllSchedule(graph)).peakBytes;
  hi = std::max(hi, lo);
  const SolveResult &top = probe(hi);
  if (!top.feasible()) {
    search.best = top;
    return search;
  }
  // An exact solver's "infeasible" bounds the range from below instead.
  if (belowTopIsMet() || solver.exact) {
    lo = std::max(lo, proven);
    bisect();
  }
  recheck();
  search.best = search.answers[metIndex].result;
  search.smallestBudget = met;
  if (solver.exact)
    search.lowerBound = std::max(search.lowerBound, std::min(proven, met));
  return search;
}

BudgetSearch remat::findSmallestBudget(const Graph &graph,
                                       const SolverInfo &solver,
                                       const SolveOptions &options,
                                       double totalSeconds) {
  return BudgetSearcher(graph, solver, options, totalSeconds).run();
}

BatchSearch remat::findMaxBatch(const Graph &graph, const SolverInfo &solver,
                                const SolveOptions &options, int64_t maxBatch) {
  Stopwatch watch;
  BatchSearch search;
  std::string problem = batchScalingProblem(graph);
  if (!problem.empty()) {
    search.result =
        failSolve(solver.name, SolveStatus::Unsupported, problem, watch);
    return search;
  }
  ProgressReporter progress(options, "max-batch", watch);
  SolveOptions probe = getProbeOptions(options);
  SolveResult atOne; // the answer at one sample, reported when none fits
  auto fits = [&](int64_t batch) {
    ++search.probes;
    std::optional<Graph> scaled = scaleBatch(graph, batch);
    SolveResult out =
        scaled ? solveUnderBudget(*scaled, solver, probe)
               : failSolve(solver.name, SolveStatus::Infeasible,
                           "the sizes at batch " + std::to_string(batch) +
                               " exceed the graph limits (Problem.h)",
                           watch);
    std::string line = "probe " + std::to_string(search.probes) + " at " +
                       std::to_string(batch) + " samples: " + describe(out);
    bool ok = out.feasible();
    // Probes that fit come in increasing batch order.
    if (ok) {
      search.batch = batch;
      search.result = std::move(out);
    } else if (batch == 1) {
      atOne = std::move(out);
    }
    progress.report(search.result.feasible() ? search.result.cost : -1,
                    search.result.feasible() ? search.result.peakBytes : -1, -1,
                    line, /*phase=*/true);
    return ok;
  };
  // The traced batch first; then lo fits (0: nothing yet) and hi does not.
  maxBatch = std::max<int64_t>(maxBatch, 1);
  const int64_t start = std::min(graph.batch, maxBatch);
  int64_t lo = 0, hi = start;
  if (fits(start)) {
    for (lo = start; lo < maxBatch; lo = hi) {
      hi = lo > maxBatch / 2 ? maxBatch : lo * 2;
      if (!fits(hi))
        break;
    }
    if (lo == maxBatch)
      return search;
  }
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    if (fits(mid))
      lo = mid;
    else
      hi = mid;
  }
  if (lo == 0)
    search.result = std::move(atOne);
  return search;
}

/// The point at `budget`: the cheapest verified plan in `pool`
/// whose peak fits (ties: the smaller peak).
static ParetoPoint selectPoint(const std::vector<BudgetProbe> &pool,
                               int64_t budget, double checkpointAllCost) {
  ParetoPoint point;
  point.budget = budget;
  const BudgetProbe *chosen = nullptr;
  // A bound at a larger budget bounds this one: the feasible set shrinks.
  double lowerBound = checkpointAllCost;
  for (const BudgetProbe &probe : pool) {
    if (probe.budget >= budget)
      lowerBound = std::max(lowerBound, probe.result.lowerBound);
    const SolveResult &r = probe.result;
    if (!r.feasible() || r.peakBytes > budget)
      continue;
    if (!chosen || r.cost < chosen->result.cost ||
        (r.cost == chosen->result.cost &&
         r.peakBytes < chosen->result.peakBytes))
      chosen = &probe;
  }
  if (!chosen)
    return point;
  point.result = chosen->result;
  point.foundAtBudget = chosen->budget;
  bool provenThere =
      chosen->result.status == SolveStatus::Optimal && chosen->budget >= budget;
  bool meetsBound = point.result.cost <= lowerBound * (1 + 1e-9) + 1e-9;
  point.result.status =
      provenThere || meetsBound ? SolveStatus::Optimal : SolveStatus::Feasible;
  point.result.lowerBound = lowerBound;
  return point;
}

/// The part of a Pareto curve's time limit its solves aim at (the rest is
/// for the solves' overruns and the verification of the curve), and the
/// part of that the search for its bottom may take.
static constexpr double kCurveShare = 0.95;
static constexpr double kSearchShare = 0.6;

ParetoCurve remat::paretoCurve(const Graph &graph, const SolverInfo &solver,
                               const SolveOptions &options, int points) {
  Stopwatch watch;
  ProgressReporter progress(options, "pareto", watch);
  ParetoCurve curve;
  curve.checkpointAllPeak =
      simulate(graph, checkpointAllSchedule(graph)).peakBytes;
  curve.checkpointAllCost = checkpointAllCost(graph);
  // The time limit bounds the whole curve: the search for the bottom gets
  // a share, the points the rest, each solve an equal part of what is left.
  const double total = options.timeLimitSeconds * kCurveShare;
  BudgetSearch search =
      findSmallestBudget(graph, solver, options, total * kSearchShare);
  curve.smallestBudget = search.smallestBudget;
  curve.budgetLowerBound = search.lowerBound;
  curve.probes = search.probes;
  if (search.smallestBudget < 0) {
    curve.failure = std::move(search.best);
    curve.seconds = watch.seconds();
    return curve;
  }
  std::vector<BudgetProbe> pool = std::move(search.answers);
  SolveOptions probe = getProbeOptions(options);
  const int64_t top = std::max(curve.checkpointAllPeak, curve.smallestBudget);
  const int64_t bottom = curve.smallestBudget;
  // Checkpoint-all anchors the top: no schedule is cheaper.
  probe.budget = top;
  pool.push_back({top, solveCheckpointAll(graph, probe)});

  std::vector<int64_t> budgets;
  const int n = std::max(points, 1);
  for (int i = 0; i < n; ++i) {
    double step = n == 1 ? 0 : static_cast<double>(i) / (n - 1);
    int64_t budget =
        top - std::llround(static_cast<double>(top - bottom) * step);
    if (budgets.empty() || budget != budgets.back())
      budgets.push_back(budget);
  }
  // The solver's own answer at every budget: the search's when it asked
  // there, else one more solve.
  const size_t searched = pool.size() - 1;
  auto askedAt = [&](int64_t budget) {
    return std::find_if(
        pool.begin(), pool.begin() + searched,
        [&](const BudgetProbe &answer) { return answer.budget == budget; });
  };
  int solvesLeft =
      std::count_if(budgets.begin(), budgets.end(), [&](int64_t b) {
        return askedAt(b) == pool.begin() + searched;
      });
  std::vector<double> seconds;
  for (int64_t budget : budgets) {
    auto asked = askedAt(budget);
    if (asked != pool.begin() + searched) {
      seconds.push_back(asked->result.seconds);
      continue;
    }
    // Out of time, the point takes the best plan found so far that fits.
    if (!mayStartSolve(watch.seconds(), total)) {
      seconds.push_back(0);
      continue;
    }
    probe.budget = budget;
    probe.timeLimitSeconds =
        shareOfTime(options, total - watch.seconds(), solvesLeft--);
    pool.push_back({budget, solver.solve(graph, probe)});
    ++curve.probes;
    const SolveResult &result = pool.back().result;
    seconds.push_back(result.seconds);
    progress.report(result.feasible() ? result.cost : -1,
                    result.feasible() ? result.peakBytes : -1, -1,
                    "budget " + std::to_string(budget) + ": " +
                        describe(result),
                    /*phase=*/true);
  }
  for (size_t i = 0; i < budgets.size(); ++i) {
    curve.points.push_back(
        selectPoint(pool, budgets[i], curve.checkpointAllCost));
    curve.points.back().seconds = seconds[i];
  }
  curve.seconds = watch.seconds();
  return curve;
}

SolveResult remat::solveInMode(const Graph &graph, const SolverInfo &solver,
                               Mode mode, const SolveOptions &options) {
  SolveOptions opts = options;
  switch (mode) {
  case Mode::MinCompute:
    opts.objective = Objective::MinComputeUnderBudget;
    return solveUnderBudget(graph, solver, opts);
  case Mode::MinPeak:
    opts.objective = Objective::MinPeakUnderOverhead;
    return solver.solve(graph, opts);
  case Mode::MinBudget: {
    BudgetSearch search = findSmallestBudget(graph, solver, opts);
    SolveResult result = search.best;
    result.lowerBound = static_cast<double>(search.lowerBound);
    return result;
  }
  case Mode::MaxBatch:
    return findMaxBatch(graph, solver, opts).result;
  case Mode::Pareto:
    return failSolve(solver.name, SolveStatus::Unsupported,
                     "the pareto mode answers with a curve: call paretoCurve",
                     Stopwatch());
  }
  return {};
}
