//===- Modes.cpp - what to ask of a solver --------------------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Search/Modes.h"

#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/SolverSupport.h"
#include "remat/Solver/Algorithms/Solvers.h"

#include <algorithm>
#include <cmath>
#include <limits>
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

/// `solver` (or `planBatch`) under options.budget, or Infeasible at once
/// when the budget is below `peakBound`, which no schedule beats, offloading
/// or not: a heuristic would otherwise search its whole time limit for a
/// plan that does not exist.
static SolveResult solveUnderBudget(const Graph &graph,
                                    const SolverInfo &solver,
                                    const SolveOptions &options,
                                    const BatchPlanner &planBatch = nullptr) {
  PeakBound bound = peakBound(graph);
  if (options.budget >= bound.bytes)
    return planBatch ? planBatch(graph, options) : solver.solve(graph, options);
  return failSolve(solver.name, SolveStatus::Infeasible,
                   "proven: the budget of " + std::to_string(options.budget) +
                       " bytes is below " + std::to_string(bound.bytes) +
                       " bytes, a lower bound on every schedule's peak (" +
                       bound.describe(graph) + ")",
                   WorkMeter(0));
}

/// The work of the cheap probes of a smallest-budget search, in one solve's
/// allowances (`SolveOptions::effort`): each probe gets an equal share of
/// what is left among the probes still expected.
static constexpr double kProbeSolves = 3;
/// The full solves that confirm a budget a cheap probe met: at most this
/// many below the top (`BudgetSearcher::confirm`).
static constexpr int kMaxConfirmations = 3;
/// The full solves at the top's memory and above when the top's plan needs
/// more than the top (`BudgetSearcher::metBelowTop`).
static constexpr int kTopRetries = 3;
/// The full solves that then bisect between the largest candidate a full
/// solve missed and the smallest it met (`BudgetSearcher::refine`).
static constexpr int kRefinements = 4;
/// The work of the search's first probe below the top, in one solve's
/// allowance: small, since a search heuristic spends its whole allowance on
/// a budget it cannot meet; and of the probe that confirms an "infeasible"
/// there, twenty times that.
static constexpr double kQuickShare = 0.01;
static constexpr double kQuickConfirmShare = 0.2;

/// The options of one probe of a search: min-compute under the probe's
/// budget, reporting as a nested solve, without the portfolio's last resort
/// (a search asks many budgets and must not spend its work in the MILP at
/// each; a plan found without it is the plan found with it, since the MILP
/// runs only where no member found one), sharing the evaluations of
/// checkpoint sets (`CheckpointMemo`).
static SolveOptions getProbeOptions(const SolveOptions &options) {
  SolveOptions probe = nestedOptions(options);
  probe.objective = Objective::MinComputeUnderBudget;
  probe.lastResort = false;
  if (!probe.checkpointMemo)
    probe.checkpointMemo = std::make_shared<CheckpointMemo>();
  return probe;
}

/// Bisection steps from (lo, hi) down to the search's resolution.
static int bisectionSteps(int64_t lo, int64_t hi) {
  int64_t resolution = std::max<int64_t>(1, hi / 1000);
  if (hi - lo <= resolution)
    return 0;
  return static_cast<int>(std::ceil(std::log2(
      static_cast<double>(hi - lo) / static_cast<double>(resolution))));
}

namespace {
/// The smallest-budget search (`findSmallestBudget`): the top of the range,
/// one quick probe a resolution step below it, a whole min-peak solve, a
/// bisection of cheap probes sharing kProbeSolves solves' work, then full
/// solves that confirm the smallest budgets the probes met and bisect below
/// the smallest confirmed.
class BudgetSearcher {
public:
  BudgetSearcher(const Graph &graph, const SolverInfo &solver,
                 const SolveOptions &options, const PlanMemory &memory)
      : graph(graph), solver(solver), memory(memory), meter(options),
        progress(options, "min-budget", meter.clock()),
        probeOptions(getProbeOptions(options)),
        probeWork(static_cast<int64_t>(kProbeSolves *
                                       static_cast<double>(meter.total()))) {}

  BudgetSearch run();

private:
  BudgetProbe &ask(SolveOptions asked, int64_t units);
  int64_t memoryOf(SolveResult &result, int64_t budget, bool whole) const;
  const BudgetProbe &probe(int64_t budget, int64_t units);
  const BudgetProbe &probeCheaply(int64_t budget, int64_t units);
  const BudgetProbe &solveFully(int64_t budget);
  void report(const SolveResult &result, const std::string &asked);
  bool belowTopIsMet();
  bool metBelowTop(int64_t topMemory);
  void probeLeastPeak();
  void bisect();
  void confirm();
  void refine(int64_t missed);
  void takeSmallestMet();
  /// Whether another probe may start: not after the time limit.
  bool mayStart() const { return !meter.timeUp(); }
  int64_t step() const { return std::max<int64_t>(1, hi / 1000); }

  const Graph &graph;
  const SolverInfo &solver;
  const PlanMemory &memory;
  WorkMeter meter;
  ProgressReporter progress;
  SolveOptions probeOptions;
  /// What is left of the cheap probes' work.
  int64_t probeWork;
  BudgetSearch search;
  /// The bracket: nothing met below `lo` (proven or not), and the smallest
  /// budget or verified peak a probe met so far.
  int64_t lo = 0, hi = 0;
  /// The smallest budget a full solve met (-1: none), and its answer.
  int64_t confirmed = -1;
  size_t confirmedIndex = 0;
  /// Below this, an exact solver proved that no budget is met.
  int64_t proven = 0;
};
} // namespace

/// Reports the last probe, asked as `asked` ("at budget B").
void BudgetSearcher::report(const SolveResult &result,
                            const std::string &asked) {
  const SolveResult *smallestPeak = nullptr;
  for (const BudgetProbe &answer : search.answers)
    if (answer.result.feasible() &&
        (!smallestPeak || answer.result.peakBytes < smallestPeak->peakBytes))
      smallestPeak = &answer.result;
  progress.report(smallestPeak ? smallestPeak->cost : -1,
                  smallestPeak ? smallestPeak->peakBytes : -1,
                  static_cast<double>(search.lowerBound),
                  "probe " + std::to_string(search.probes) + " " + asked +
                      ": " + describe(result),
                  /*phase=*/true);
}

/// Whether `answer` met its budget: a plan whose memory is within it.
static bool isMet(const BudgetProbe &answer) {
  return answer.result.feasible() && answer.memory >= 0 &&
         answer.memory <= answer.budget;
}

/// Runs the solver with `asked` and `units` of work; records the answer at
/// `asked.budget` and charges its work.
BudgetProbe &BudgetSearcher::ask(SolveOptions asked, int64_t units) {
  asked.allowance = meter.allowance(units);
  search.answers.push_back({asked.budget, solver.solve(graph, asked)});
  ++search.probes;
  meter.charge(search.answers.back().result);
  return search.answers.back();
}

/// The bytes a feasible `result` found at `budget` needs (`PlanMemory`);
/// -1 without a plan.
int64_t BudgetSearcher::memoryOf(SolveResult &result, int64_t budget,
                                 bool whole) const {
  if (!result.feasible())
    return -1;
  return memory ? memory(budget, result, whole) : result.peakBytes;
}

/// Asks the solver at `budget` with `units` of work.
const BudgetProbe &BudgetSearcher::probe(int64_t budget, int64_t units) {
  probeOptions.budget = budget;
  BudgetProbe &answer = ask(probeOptions, units);
  SolveResult &result = answer.result;
  // An answer that counted no work did not depend on its allowance: it is
  // the answer of a whole solve (brute force, checkpoint-all).
  bool whole = units >= meter.total() ||
               (units > 0 && result.work == 0 && !result.stoppedByTimeLimit);
  answer.memory = memoryOf(result, budget, whole);
  if (isMet(answer)) {
    hi = std::min(hi, answer.memory);
    if (whole && (confirmed < 0 || budget < confirmed)) {
      confirmed = budget;
      confirmedIndex = search.answers.size() - 1;
    }
  } else if (result.status == SolveStatus::Infeasible && solver.exact) {
    // A timeout proves nothing, even from an exact solver.
    proven = std::max(proven, budget + 1);
  }
  report(result, "at budget " + std::to_string(budget));
  return answer;
}

/// A cheap probe: `units` (at most what is left of the probes' work),
/// whatever it uses taken from the probes' work.
const BudgetProbe &BudgetSearcher::probeCheaply(int64_t budget, int64_t units) {
  const BudgetProbe &answer =
      probe(budget, std::min(units, std::max<int64_t>(probeWork, 0)));
  probeWork -= answer.result.work;
  return answer;
}

/// Asks the solver at `budget` with a whole solve's work, as the user who
/// asks at that budget does (the same effort): a plan found so is one the
/// user gets.
const BudgetProbe &BudgetSearcher::solveFully(int64_t budget) {
  return probe(budget, meter.total());
}

/// One quick probe a resolution step below the top, which the top's plan
/// met (at the lower bound when that is closer). Whether the search should
/// go on: not when the solver answered that it found nothing there (a
/// timeout or a plan says go on). Budgets that cannot be met are often met
/// nowhere below the checkpoint-all peak (parameters and gradients
/// dominate), and then every probe of a bisection would fail, each
/// spending its whole share of the work.
bool BudgetSearcher::belowTopIsMet() {
  if (hi <= lo || !mayStart())
    return true;
  const int64_t below = std::max(lo, hi - step());
  const SolveResult &quick =
      probeCheaply(below, meter.part(kQuickShare)).result;
  // A timeout with this little work says nothing about the budget.
  if (quick.status != SolveStatus::Infeasible)
    return true;
  // Neither does a heuristic's "infeasible" with little work: the search
  // ends only if the solver also finds nothing there with more.
  if (!mayStart())
    return false;
  return probeCheaply(below, meter.part(kQuickConfirmShare)).result.status !=
         SolveStatus::Infeasible;
}

/// When the top's plan needs more than the top (`topMemory`, an arena's
/// fragmentation): asks with a whole solve a resolution step below the top,
/// where the plan needs a smaller peak (the cheap probes rarely find one
/// where the cheapest plan is the top's: an AdamW step's checkpoint-all
/// order needed 716 bytes, a plan recomputing 92 ops 700); when that
/// misses, at the top's memory, which its plan meets. Whether the solve
/// below the top met its budget.
bool BudgetSearcher::metBelowTop(int64_t topMemory) {
  const int64_t below = std::max(lo, hi - step());
  if (below < hi && mayStart() && isMet(solveFully(below)))
    return true;
  // Asked at the top's memory, the solver may answer with another plan
  // that needs more still (on a U-Net step: the top's plan needed 252,048
  // bytes, the plan asked there reordered the same computations into a
  // larger arena): ask again at each answer's memory, a few times.
  for (int i = 0; i < kTopRetries && topMemory > 0 && mayStart(); ++i) {
    const BudgetProbe &answer = solveFully(topMemory);
    if (isMet(answer) || answer.memory <= topMemory)
      break;
    topMemory = answer.memory;
  }
  return false;
}

/// A min-peak solve without a cost limit, with a whole solve's work (the
/// bisection keeps its probes' work and its bracket: its path is the same
/// with or without this probe). The memory its plan needs is recorded as
/// met there, so that the confirmation asks at it like at the bisection's
/// budgets. Minimizing the
/// peak, a search heuristic may reach lower than any min-compute probe of
/// the bisection meets (on the decomposed mobilenet_v2 `auto`'s min-peak
/// plan needs 137.0 MiB where the bisection met 151.7).
void BudgetSearcher::probeLeastPeak() {
  if (!mayStart())
    return;
  SolveOptions least = probeOptions;
  least.objective = Objective::MinPeakUnderOverhead;
  least.maxOverhead = std::numeric_limits<double>::infinity();
  least.budget = hi;
  BudgetProbe &answer = ask(least, meter.total());
  answer.memory =
      memoryOf(answer.result, answer.result.peakBytes, /*whole=*/false);
  if (answer.memory >= 0)
    answer.budget = answer.memory;
  report(answer.result, "for the least peak");
}

/// Bisects [lo, hi] down to the resolution, each probe an equal share of
/// what is left of the probes' work among the probes still expected (once
/// it is spent, the bracket so far stands), then asks at `lo` itself once.
void BudgetSearcher::bisect() {
  auto ask = [&](int64_t budget) {
    return isMet(
        probeCheaply(budget, probeWork / (1 + bisectionSteps(lo, hi))));
  };
  while (lo < hi && hi - lo > step() && probeWork > 0 && mayStart()) {
    int64_t mid = lo + (hi - lo) / 2;
    if (!ask(mid))
      lo = mid + 1;
  }
  if (lo < hi && hi - lo <= step() && probeWork > 0 && mayStart())
    ask(lo);
}

/// Confirms the smallest budgets the probes met, smallest first: the
/// verified peaks of their plans and the budgets they were asked at, below
/// the smallest confirmed so far, each asked with a full solve, at most
/// kMaxConfirmations of them. A plan a probe found with its share of the
/// work may not be found with a whole solve's work (the solver is not
/// monotone in the work), nor at its own peak (nor in the budget): only a
/// budget a full solve met is reported.
void BudgetSearcher::confirm() {
  std::vector<int64_t> candidates;
  for (const BudgetProbe &answer : search.answers)
    if (answer.memory >= 0)
      for (int64_t budget : {answer.memory, answer.budget})
        if (budget < confirmed && budget >= proven)
          candidates.push_back(budget);
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()),
                   candidates.end());
  int64_t missed = -1;
  for (int i = 0, e = candidates.size(); i < std::min(e, kMaxConfirmations);
       ++i) {
    if (!mayStart() || isMet(solveFully(candidates[i])))
      break;
    missed = candidates[i];
  }
  refine(missed);
}

/// Bisects with full solves between `missed`, a budget a full solve did not
/// meet, and the smallest one confirmed, keeping each budget met. A probe
/// with less work may meet a budget that a full solve misses (on the
/// decomposed ResNet-50 a probe's plan peaked at 220 MiB, a full solve
/// there found none, the next candidate confirmed was 273 MiB): the
/// smallest budget full solves meet lies in between.
void BudgetSearcher::refine(int64_t missed) {
  for (int i = 0; i < kRefinements && missed >= 0 && confirmed > missed &&
                  confirmed - missed > step() && mayStart();
       ++i) {
    const int64_t mid = missed + (confirmed - missed) / 2;
    if (!isMet(solveFully(mid)))
      missed = mid;
  }
}

/// When the time limit cut the search short of confirming: the smallest
/// budget any probe met, with its verified plan, if below the confirmed one
/// (on GPT-2 small the bisection's probes had met 1.20 times the peak bound
/// when a 10 s limit stopped them, 1.03 times when a 60 s one did, both
/// before any confirmation: the answer was the checkpoint-all peak, 2.61
/// times the bound). The result says that the time limit stopped it, so
/// that this plan may differ between runs.
void BudgetSearcher::takeSmallestMet() {
  for (size_t i = 0; i < search.answers.size(); ++i) {
    const BudgetProbe &answer = search.answers[i];
    if (isMet(answer) && (confirmed < 0 || answer.budget < confirmed)) {
      confirmed = answer.budget;
      confirmedIndex = i;
    }
  }
}

BudgetSearch BudgetSearcher::run() {
  search.lowerBound = peakLowerBound(graph);
  lo = proven = search.lowerBound;
  // The top of the range: checkpoint-all's peak fits every sane solver.
  hi = simulate(graph, checkpointAllSchedule(graph)).peakBytes;
  hi = std::max(hi, lo);
  bool searchBelow = true;
  if (int64_t topMemory = solveFully(hi).memory; topMemory > hi)
    searchBelow = metBelowTop(topMemory);
  if (confirmed >= 0) {
    // An exact solver's "infeasible" bounds the range from below instead.
    if (searchBelow && (belowTopIsMet() || solver.exact)) {
      lo = std::max(lo, proven);
      probeLeastPeak();
      bisect();
    }
    confirm();
    if (meter.stoppedByTimeLimit())
      takeSmallestMet();
    search.smallestBudget = confirmed;
    if (solver.exact)
      search.lowerBound =
          std::max(search.lowerBound, std::min(proven, confirmed));
  }
  // The answer at the smallest budget (else at the top), with the search's
  // seconds and work.
  search.best = search.answers[confirmedIndex].result;
  search.best.seconds = meter.seconds();
  search.best.work = meter.used();
  search.best.stoppedByTimeLimit = meter.stoppedByTimeLimit();
  return search;
}

BudgetSearch remat::findSmallestBudget(const Graph &graph,
                                       const SolverInfo &solver,
                                       const SolveOptions &options,
                                       const PlanMemory &memory) {
  return BudgetSearcher(graph, solver, options, memory).run();
}

BatchSearch remat::findMaxBatch(const Graph &graph, const SolverInfo &solver,
                                const SolveOptions &options, int64_t maxBatch,
                                const BatchPlanner &planBatch) {
  WorkMeter meter(options);
  BatchSearch search;
  std::string problem = batchScalingProblem(graph);
  if (!problem.empty()) {
    search.result =
        failSolve(solver.name, SolveStatus::Unsupported, problem, meter);
    return search;
  }
  ProgressReporter progress(options, "max-batch", meter.clock());
  // Every probe is a whole solve (the same effort as the user's): the plan
  // at the batch found is the plan asked for at that batch.
  SolveOptions probe = getProbeOptions(options);
  probe.allowance = meter.allowance(meter.total());
  SolveResult atOne; // the answer at one sample, reported when none fits
  auto fits = [&](int64_t batch) {
    ++search.probes;
    std::optional<Graph> scaled = scaleBatch(graph, batch);
    SolveResult out =
        scaled ? solveUnderBudget(*scaled, solver, probe, planBatch)
               : failSolve(solver.name, SolveStatus::Infeasible,
                           "the sizes at batch " + std::to_string(batch) +
                               " exceed the graph limits (Problem.h)",
                           meter);
    meter.charge(out);
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
  // Past the time limit the largest batch that fit so far stands.
  maxBatch = std::max<int64_t>(maxBatch, 1);
  const int64_t start = std::min(graph.batch, maxBatch);
  int64_t lo = 0, hi = start;
  if (fits(start)) {
    for (lo = start; lo < maxBatch && !meter.timeUp(); lo = hi) {
      hi = lo > maxBatch / 2 ? maxBatch : lo * 2;
      if (!fits(hi))
        break;
    }
  }
  while (lo < maxBatch && hi - lo > 1 && !meter.timeUp()) {
    int64_t mid = lo + (hi - lo) / 2;
    if (fits(mid))
      lo = mid;
    else
      hi = mid;
  }
  if (lo == 0)
    search.result = std::move(atOne);
  search.result.work = meter.used();
  search.result.stoppedByTimeLimit = meter.stoppedByTimeLimit();
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

/// The work of the solves of a Pareto curve's points below its bottom's
/// search, in one solve's allowances: each solve an equal share of what is
/// left.
static constexpr double kPointSolves = 2;

ParetoCurve remat::paretoCurve(const Graph &graph, const SolverInfo &solver,
                               const SolveOptions &options, int points) {
  WorkMeter meter(options);
  ProgressReporter progress(options, "pareto", meter.clock());
  ParetoCurve curve;
  curve.checkpointAllPeak =
      simulate(graph, checkpointAllSchedule(graph)).peakBytes;
  curve.checkpointAllCost = checkpointAllCost(graph);
  // The search for the bottom, then the points, each solve an equal part
  // of what is left of kPointSolves solves' work; all within the time
  // limit, which the search and the points share.
  SolveOptions searchOptions = options;
  searchOptions.allowance = meter.allowance(meter.total());
  BudgetSearch search = findSmallestBudget(graph, solver, searchOptions);
  meter.charge(search.best);
  curve.smallestBudget = search.smallestBudget;
  curve.budgetLowerBound = search.lowerBound;
  curve.probes = search.probes;
  if (search.smallestBudget < 0) {
    curve.failure = std::move(search.best);
    curve.seconds = meter.seconds();
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
  int64_t pointWork =
      static_cast<int64_t>(kPointSolves * static_cast<double>(meter.total()));
  for (int64_t budget : budgets) {
    auto asked = askedAt(budget);
    if (asked != pool.begin() + searched) {
      seconds.push_back(asked->result.seconds);
      continue;
    }
    // Out of time, the point takes the best plan found so far that fits.
    if (meter.timeUp()) {
      seconds.push_back(0);
      continue;
    }
    probe.budget = budget;
    probe.allowance = meter.allowance(pointWork / std::max(1, solvesLeft--));
    pool.push_back({budget, solver.solve(graph, probe)});
    ++curve.probes;
    const SolveResult &result = pool.back().result;
    meter.charge(result);
    pointWork -= result.work;
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
  curve.seconds = meter.seconds();
  curve.work = meter.used();
  curve.stoppedByTimeLimit = meter.stoppedByTimeLimit();
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
                     WorkMeter(0));
  }
  return {};
}
