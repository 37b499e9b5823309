//===- CheckmateMilp.cpp - Checkmate's MILP on CBC ------------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Checkmate's MILP (CheckmateFormulation.h) on COIN-OR CBC: warm starts
// (checkpoint-all, the caller's schedules, the heuristics, the LP rounding of
// CheckmateLp.cpp), the best of them as CBC's MIP start, CBC in a child
// process (CbcProcess.h), and the answer verified against the heuristics'.
// Built only with COIN-OR (CheckmateUnavailable.cpp stands in otherwise);
// compiled with exceptions for COIN-OR's headers.
//
//===----------------------------------------------------------------------===//

#include "CheckmateLp.h"

#include "remat/Solver/Checkmate/CbcProcess.h"
#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/Simulator.h"

#include "CbcEventHandler.hpp"
#include "CbcModel.hpp"
#include "CbcSolver.hpp"
#include "CoinMessageHandler.hpp"
#include "CoinPackedMatrix.hpp"
#include "OsiClpSolverInterface.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>

using namespace remat;
using namespace remat::checkmate;

static const char *const kMilpName = "checkmate-milp";

namespace {
/// Reports CBC's incumbent and bound through a `ProgressReporter` (which
/// throttles them) at CBC's node and solution events. CBC clones the
/// handler into its working model and threads: the clones share one state.
class MilpProgress : public CbcEventHandler {
public:
  struct Shared {
    Shared(ProgressReporter &reporter, bool minPeak, double unit,
           int64_t residentBytes)
        : reporter(reporter), minPeak(minPeak), unit(unit),
          residentBytes(residentBytes) {}
    std::mutex mutex;
    ProgressReporter &reporter;
    bool minPeak;
    double unit;
    int64_t residentBytes;
  };

  explicit MilpProgress(std::shared_ptr<Shared> shared)
      : shared(std::move(shared)) {}
  CbcEventHandler *clone() const override { return new MilpProgress(*this); }

  CbcAction event(CbcEvent which) override {
    if (!model_ || (which != node && which != solution &&
                    which != heuristicSolution && which != treeStatus))
      return noAction;
    std::lock_guard<std::mutex> lock(shared->mutex);
    if (!shared->reporter.due())
      return noAction;
    bool have = model_->bestSolution() != nullptr;
    double objective = have ? model_->getObjValue() : -1;
    double bound = model_->getBestPossibleObjValue();
    std::string message =
        "CBC: " + std::to_string(model_->getNodeCount()) + " nodes";
    if (shared->minPeak) {
      // The objective is the peak in memory units, resident bytes excluded.
      auto bytes = [&](double units) {
        return static_cast<int64_t>(std::ceil(units * shared->unit - 1e-6)) +
               shared->residentBytes;
      };
      shared->reporter.report(-1, have ? bytes(objective) : -1,
                              bound > -1e29 ? bytes(bound) : -1, message);
    } else {
      shared->reporter.report(objective, -1, bound > -1e29 ? bound : -1,
                              message);
    }
    return noAction;
  }

private:
  std::shared_ptr<Shared> shared;
};
} // namespace

/// Part of the work the heuristic warm starts may take together (each at
/// most a tenth).
static constexpr double kHeuristicShare = 0.3;
static constexpr double kEachHeuristicShare = 0.1;
/// CBC's root solves the rounding's first LP again, and more: it needs at
/// least kRootLps times that LP's work to start. Each node (its LP, cuts and
/// branching) about kNodeWork work units per row and column of the
/// formulation (measured: 250 to 450 on the generated chain, ResNet and
/// U-Net steps of 50 blocks), and the root as much as kRootNodes nodes.
static constexpr int64_t kRootLps = 3;
static constexpr int64_t kNodeWork = 400;
static constexpr int64_t kRootNodes = 4;

/// The answer among `candidates` (verified schedules) that is best for the
/// objective, labelled with `why`; a `none` failure when none is valid.
static SolveResult bestCandidate(const Graph &graph,
                                 const SolveOptions &options,
                                 const std::vector<Schedule> &candidates,
                                 WorkMeter &meter, const std::string &why,
                                 SolveStatus none) {
  double limit = costLimit(graph, options);
  SolveResult result = failSolve(kMilpName, none, why, meter);
  for (const Schedule &candidate : candidates) {
    Simulation sim = simulate(graph, candidate);
    if (!sim.valid() || sim.peakBytes > options.budget ||
        sim.cost > limit * (1 + 1e-9) ||
        (result.feasible() && !isBetter(options, limit, sim.peakBytes, sim.cost,
                                        result.peakBytes, result.cost)))
      continue;
    result = finishSolve(graph, options, kMilpName, candidate,
                         SolveStatus::Feasible, meter, why);
  }
  return result;
}

/// The MILP's answer on a graph over the size cap, with the work left: the
/// plan of `CheckmateOptions::overCap` (the registry's: the portfolio), or a
/// caller's warm start if better. Nothing of size n^2 is built.
static SolveResult solveOverCap(const Graph &graph, const ReducedGraph &g,
                                const SolveOptions &options,
                                const CheckmateOptions &opts,
                                WorkMeter &meter) {
  std::string why = tooLargeMessage("MILP", g, opts);
  std::vector<Schedule> candidates = opts.warmStarts;
  if (opts.overCap) {
    SolveResult best = opts.overCap(graph, meter.nested(options, meter.left()));
    meter.charge(best);
    if (best.feasible())
      candidates.push_back(std::move(best.schedule));
    why += "; the best heuristic plan (" + best.solver +
           ") returned, not proven optimal";
  }
  return bestCandidate(graph, options, candidates, meter, why,
                       SolveStatus::Unsupported);
}

namespace {
/// The MILP's warm starts: stage plans offered to CBC, and schedules kept
/// as answers even when their plans do not fit Checkmate's class.
struct WarmStarts {
  std::vector<StagePlan> plans;
  std::vector<Schedule> schedules;
  /// The rounding's LP bound (exact reduction only), or -1.
  double lpBound = -1;
  /// Why CBC cannot run with the work left (from the first LP), or empty.
  std::string skipCbc;
  /// Set with `proof` when the rounding proved that nothing fits.
  bool infeasible = false;
  std::string proof;
};

/// The best warm start that fits the formulation, as CBC's solution vector.
struct MipStart {
  std::vector<double> x;
  double objective = kInfinity;
  /// Index into WarmStarts::plans, or -1 when none fits.
  int index = -1;
};
} // namespace

/// Warm starts: checkpoint-all, the caller's schedules, the heuristics of
/// `CheckmateOptions::heuristics` (within kHeuristicShare of the work), the
/// LP rounding (within CheckmateOptions::roundingShare).
static WarmStarts collectWarmStarts(const Graph &graph, const ReducedGraph &g,
                                    const SolveOptions &options,
                                    const CheckmateOptions &opts,
                                    WorkMeter &meter) {
  WarmStarts warm;
  warm.plans.push_back(checkpointAllPlan(g));
  warm.schedules = opts.warmStarts;
  for (const SolverFn &heuristic : opts.heuristics) {
    int64_t left = meter.part(kHeuristicShare) - meter.used();
    if (left <= 0 || meter.timeUp())
      break;
    SolveResult r = heuristic(
        graph,
        meter.nested(options, std::min(meter.part(kEachHeuristicShare), left)));
    meter.charge(r);
    if (r.feasible())
      warm.schedules.push_back(std::move(r.schedule));
  }
  for (const Schedule &schedule : warm.schedules) {
    StagePlan plan;
    if (planFromSchedule(graph, g, schedule, plan))
      warm.plans.push_back(std::move(plan));
  }
  if (options.objective == Objective::MinPeakUnderOverhead ||
      !opts.roundingWarmStart)
    return warm;
  WorkMeter rounding(meter,
                     std::min(meter.part(opts.roundingShare), meter.left()));
  RoundingOutcome rounded =
      runRounding(graph, g, nestedOptions(options), opts, rounding);
  meter.charge(rounding);
  if (rounded.proven) {
    warm.infeasible = true;
    warm.proof = rounded.message;
    return warm;
  }
  if (g.exact)
    warm.lpBound = rounded.lowerBound;
  if (rounded.found)
    warm.plans.push_back(std::move(rounded.plan));
  // CBC solves this LP several times (MIP start, root, nodes): skip it when
  // the first LP was not solved within the rounding's share (resnet8 at
  // batch 64, 360 nodes: CBC started with 3 s left took 150 s), or when it
  // alone took more than a third of the work left (half, if it was
  // infeasible).
  if (!rounded.lpFinished)
    warm.skipCbc = "the LP relaxation was not solved within its share of the "
                   "work";
  else if ((rounded.lpSolved ? kRootLps : 2) * rounded.lpWork > meter.left())
    warm.skipCbc = "the LP relaxation alone took " +
                   std::to_string(rounded.lpWork) + " work units, with " +
                   std::to_string(meter.left()) + " left";
  return warm;
}

/// The cheapest plan of `warm` that fits the formulation and, simulated,
/// the constraints.
static MipStart chooseMipStart(const Graph &graph, const ReducedGraph &g,
                               const Formulation &f, const Spec &spec,
                               const SolveOptions &options,
                               const WarmStarts &warm) {
  MipStart best;
  for (size_t s = 0; s < warm.plans.size(); ++s) {
    std::vector<double> x;
    if (!solutionFromPlan(g, f, spec, warm.plans[s], x))
      continue;
    Simulation sim = simulate(graph, expandPlan(g, warm.plans[s]));
    if (!sim.valid() || (!spec.minPeak && sim.peakBytes > options.budget) ||
        (spec.minPeak && sim.cost > spec.costCap * (1 + 1e-9)))
      continue;
    double obj = 0;
    for (int c = 0; c < f.numCols(); ++c)
      obj += f.obj[c] * x[c];
    if (obj < best.objective) {
      best.objective = obj;
      best.x = std::move(x);
      best.index = static_cast<int>(s);
    }
  }
  return best;
}

namespace {
/// What CBC returned.
struct CbcOutcome {
  /// The best solution's plan, when CBC has one.
  std::optional<StagePlan> plan;
  bool provenOptimal = false;
  bool provenInfeasible = false;
  bool timedOut = false;
  /// Whether its node count (the work) stopped it: deterministic, not
  /// proven optimal.
  bool nodeLimited = false;
  /// CBC's best bound on the formulation's objective, or -inf.
  double bound = -kInfinity;
  /// Why CBC gave no answer at all (its process died), or empty.
  std::string failure;
};
} // namespace

/// Loads `f` into `solver`, silenced; with column names ("x<c>") when a MIP
/// start will refer to them.
static void loadFormulation(OsiClpSolverInterface &solver, const Formulation &f,
                            bool named) {
  {
    CoinPackedMatrix m = coinMatrix(f);
    solver.loadProblem(m, f.colLo.data(), f.colUp.data(), f.obj.data(),
                       f.rowLo.data(), f.rowUp.data());
  }
  solver.setInteger(f.integers.data(), static_cast<int>(f.integers.size()));
  solver.messageHandler()->setLogLevel(0);
  solver.getModelPtr()->setLogLevel(0);
  if (named) {
    solver.setIntParam(OsiNameDiscipline, 2);
    for (int c = 0; c < f.numCols(); ++c)
      solver.setColName(c, "x" + std::to_string(c));
  }
}

/// Runs CBC on `f` from `start` for at most `nodes` branch-and-bound nodes
/// (the work), with the deadline as its wall-clock cap: CBC looks at its
/// clock only between passes of its root cut generators, which can run for
/// seconds. Time limits are wall-clock (CBC's default counts CPU seconds).
/// Off, because each made Debian's CBC 2.10 / CLP 1.17 crash or abort on
/// small graphs (docs/Testing.md lists the graphs and assertions): CBC's
/// preprocessing (when the time limit hit), its diving and other primal
/// heuristics, and CLP's perturbation. Our warm starts (the heuristic plans,
/// the LP rounding) give CBC its incumbents instead. CBC runs in a child
/// process besides (`runCbc`), as not every abort is avoided.
/// `opts.cbcArguments` go last and win.
static CbcRaw solveWithCbc(const ReducedGraph &g, const Formulation &f,
                           const MipStart &start, const SolveOptions &options,
                           const CheckmateOptions &opts, int64_t nodes,
                           ProgressReporter &progress, const WorkMeter &meter) {
  const bool minPeak = options.objective == Objective::MinPeakUnderOverhead;
  OsiClpSolverInterface solver;
  loadFormulation(solver, f, /*named=*/start.index >= 0);
  CbcModel model(solver);
  double left = std::max(meter.secondsLeft(), 1e-3);
  if (options.progress) {
    MilpProgress handler(std::make_shared<MilpProgress::Shared>(
        progress, minPeak, f.unit, g.residentBytes));
    model.passInEventHandler(&handler);
  }
  CbcSolverUsefulData data;
  data.noPrinting_ = true;
  CbcMain0(model, data);
  model.setLogLevel(0);
  model.messageHandler()->setLogLevel(0);
  if (start.index >= 0) {
    std::vector<std::pair<std::string, double>> mipStart;
    mipStart.reserve(start.x.size());
    for (int c = 0; c < f.numCols(); ++c)
      if (start.x[c] != 0)
        mipStart.push_back({"x" + std::to_string(c), start.x[c]});
    model.setMIPStart(mipStart);
  }
  std::string secs = std::to_string(left);
  std::string maxNodes = std::to_string(nodes);
  // 100 + n: n threads in CBC's repeatable mode, the same tree whatever the
  // machine's load.
  int threads = std::max(1, options.threads);
  std::string threadArg = std::to_string(threads > 1 ? 100 + threads : 1);
  std::vector<const char *> argv = {kMilpName,
                                    "-preprocess",
                                    "off",
                                    "-log",
                                    "0",
                                    "-slog",
                                    "0",
                                    "-timeMode",
                                    "elapsed",
                                    "-sec",
                                    secs.c_str(),
                                    "-maxNodes",
                                    maxNodes.c_str(),
                                    "-threads",
                                    threadArg.c_str(),
                                    "-ratioGap",
                                    "1e-7",
                                    "-randomCbcSeed",
                                    "1",
                                    "-perturbation",
                                    "off",
                                    "-heuristicsOnOff",
                                    "off",
                                    "-DivingCoefficient",
                                    "off",
                                    "-DivingFractional",
                                    "off",
                                    "-DivingGuided",
                                    "off",
                                    "-DivingLineSearch",
                                    "off",
                                    "-DivingPseudoCost",
                                    "off",
                                    "-DivingSome",
                                    "off",
                                    "-DivingVectorLength",
                                    "off"};
  for (const std::string &arg : opts.cbcArguments)
    argv.push_back(arg.c_str());
  argv.push_back("-solve");
  argv.push_back("-quit");
  // CBC looks at its clock only between LP solves; the LPs themselves (the
  // root's, a node's) stop at the same wall-clock deadline (CLP's limit
  // counts from when it is set).
  if (auto *clp = dynamic_cast<OsiClpSolverInterface *>(model.solver()))
    clp->getModelPtr()->setMaximumWallSeconds(left);
  CbcMain1(
      static_cast<int>(argv.size()), argv.data(), model,
      [](CbcModel *, int) { return 0; }, data);

  CbcRaw raw;
  if (const double *best = model.bestSolution())
    raw.best.assign(best, best + f.numCols());
  raw.objective = model.getObjValue();
  raw.bound = model.getBestPossibleObjValue();
  raw.provenOptimal = model.isProvenOptimal();
  raw.provenInfeasible = model.isProvenInfeasible();
  raw.secondsLimitReached = model.isSecondsLimitReached();
  raw.nodeLimitReached = model.isNodeLimitReached();
  raw.nodes = model.getNodeCount();
  return raw;
}

/// Runs CBC (`solveWithCbc`) in a child process and reads its outcome:
/// after the root, as many nodes as the work left allows (kNodeWork per row
/// and column each; the root as kRootNodes of them). The root and the nodes
/// it took are charged to `meter`.
static CbcOutcome runCbc(const ReducedGraph &g, const Formulation &f,
                         const MipStart &start, const SolveOptions &options,
                         const CheckmateOptions &opts,
                         ProgressReporter &progress, WorkMeter &meter) {
  const bool minPeak = options.objective == Objective::MinPeakUnderOverhead;
  CbcOutcome out;
  CbcRaw raw;
  const int64_t perNode =
      kNodeWork * (static_cast<int64_t>(f.rowLo.size()) + f.numCols());
  const int64_t nodes =
      std::clamp<int64_t>(meter.left() / perNode - kRootNodes, 1, INT32_MAX);
  // CBC stops itself at the deadline; the child gets a margin past it.
  double wait = std::max(1.0, meter.secondsLeft()) + 2;
  if (!runIsolated(
          [&] {
            return solveWithCbc(g, f, start, options, opts, nodes, progress,
                                meter);
          },
          wait, raw, out.failure)) {
    meter.charge(meter.left());
    meter.timeUp();
    return out;
  }
  meter.charge(perNode * (kRootNodes + raw.nodes));
  const bool hasBest = !raw.best.empty();
  out.bound = raw.bound;
  progress.report(
      hasBest && !minPeak ? raw.objective : -1, -1, minPeak ? -1 : out.bound,
      std::string("CBC finished") + (raw.provenOptimal ? ": optimal" : ""),
      /*phase=*/true);
  if (raw.secondsLimitReached)
    meter.noteTimeLimit();
  out.timedOut = meter.timeUp();
  out.nodeLimited = raw.nodeLimitReached;
  // An LP stopped at the deadline proves nothing about its node.
  out.provenOptimal = raw.provenOptimal && hasBest && !out.timedOut;
  // An LP that CLP stopped at the time limit is no proof.
  out.provenInfeasible = raw.provenInfeasible && !hasBest && !out.timedOut;
  if (hasBest)
    out.plan = planFromSolution(g, f, raw.best.data());
  return out;
}

/// The bound on the true objective from CBC's (the tie-break bonus removed),
/// or the LP's; -1 when the reduction was not exact.
static double milpLowerBound(const ReducedGraph &g, const Formulation &f,
                             const Spec &spec, const CbcOutcome &cbc,
                             double lpBound) {
  if (!g.exact)
    return -1;
  // CBC reports +-1e50 or more when it has no bound (infeasible, stopped).
  if (std::isfinite(cbc.bound) && cbc.bound > -1e29 && cbc.bound < 1e29) {
    if (spec.minPeak)
      // The objective is the peak in whole units plus a tie-break below one
      // unit (1e-6 of the total cost per computation, at most n of them),
      // so the peak is at least floor(bound) units.
      return std::floor(cbc.bound + 1e-6) * f.unit + g.residentBytes;
    return std::max(cbc.bound - spec.eta * f.numR, lpBound);
  }
  return spec.minPeak ? -1 : lpBound;
}

/// The MILP's result from CBC's outcome: CBC's plan if consistent, else the
/// MIP start, else a heuristic's schedule; then any heuristic schedule that
/// beats it (a schedule may reorder computations and beat even the class's
/// optimum, whose bound then no longer holds).
static SolveResult finishMilp(const Graph &graph, const ReducedGraph &g,
                              const SolveOptions &options,
                              const WarmStarts &warm, const MipStart &start,
                              const CbcOutcome &cbc, double lowerBound,
                              WorkMeter &meter) {
  std::ostringstream msg;
  if (!g.exact)
    msg << "solved on a coarsened graph (" << g.size() << " of " << graph.size()
        << " nodes); optimal only for that graph";
  std::optional<Schedule> schedule;
  SolveStatus claimed = SolveStatus::Feasible;
  if (cbc.plan && isConsistent(g, *cbc.plan)) {
    schedule = expandPlan(g, *cbc.plan);
    if (cbc.provenOptimal && g.exact)
      claimed = SolveStatus::Optimal;
  } else if (cbc.plan) {
    msg << (msg.str().empty() ? "" : "; ")
        << "CBC's solution was inconsistent; returning the warm start";
  }
  if (!schedule && start.index >= 0)
    schedule = expandPlan(g, warm.plans[start.index]);
  if (!schedule && !warm.schedules.empty())
    schedule = warm.schedules.front();
  if (!schedule) {
    SolveStatus status =
        cbc.provenInfeasible ? SolveStatus::Infeasible : SolveStatus::Timeout;
    std::string why = cbc.provenInfeasible
                          ? "CBC proved that no schedule of the Checkmate "
                            "class fits"
                      : !cbc.failure.empty() ? cbc.failure
                      : cbc.timedOut ? "the time limit ran out before CBC "
                                       "found a schedule"
                                     : "the work ran out before CBC found a "
                                       "schedule (raise the effort)";
    if (!msg.str().empty())
      why += "; " + msg.str();
    SolveResult result = failSolve(kMilpName, status, why, meter);
    result.lowerBound = lowerBound;
    return result;
  }
  if (!cbc.failure.empty())
    msg << (msg.str().empty() ? "" : "; ") << cbc.failure
        << "; returning the best warm start";
  if (claimed != SolveStatus::Optimal && cbc.timedOut)
    msg << (msg.str().empty() ? "" : "; ")
        << "time limit reached: feasible, not proven optimal";
  else if (claimed != SolveStatus::Optimal && cbc.nodeLimited)
    msg << (msg.str().empty() ? "" : "; ")
        << "work budget spent: feasible, not proven optimal";
  SolveResult result =
      finishSolve(graph, options, kMilpName, std::move(*schedule), claimed,
                  meter, msg.str());
  double limit = costLimit(graph, options);
  for (const Schedule &fallback : warm.schedules) {
    Simulation sim = simulate(graph, fallback);
    if (!sim.valid() || sim.peakBytes > options.budget ||
        sim.cost > limit * (1 + 1e-9))
      continue;
    if (result.feasible() && !isBetter(options, limit, sim.peakBytes, sim.cost,
                                       result.peakBytes, result.cost))
      continue;
    bool beatClass = result.status == SolveStatus::Optimal;
    result = finishSolve(
        graph, options, kMilpName, fallback, SolveStatus::Feasible, meter,
        beatClass ? "a heuristic schedule outside Checkmate's class beat "
                    "its optimum"
                  : "a heuristic warm start beat CBC's best schedule");
    if (beatClass)
      lowerBound = -1;
  }
  result.lowerBound = lowerBound;
  return result;
}

/// The MILP's answer when CBC cannot run with the work left: the best warm
/// start (no formulation is built), labelled "timeout".
static SolveResult answerWithoutCbc(const Graph &graph, const ReducedGraph &g,
                                    const WarmStarts &warm,
                                    const SolveOptions &options,
                                    ProgressReporter &progress,
                                    WorkMeter &meter) {
  progress.report(-1, -1, warm.lpBound,
                  std::to_string(warm.plans.size()) +
                      " warm starts; CBC skipped",
                  /*phase=*/true);
  std::vector<Schedule> candidates;
  for (const StagePlan &plan : warm.plans)
    candidates.push_back(expandPlan(g, plan));
  candidates.insert(candidates.end(), warm.schedules.begin(),
                    warm.schedules.end());
  SolveResult result =
      bestCandidate(graph, options, candidates, meter,
                    "work too short for CBC at this size (" + warm.skipCbc +
                        "); best warm start returned",
                    SolveStatus::Timeout);
  result.lowerBound = warm.lpBound;
  return result;
}

/// The formulation's parameters for `g` under `options`; `capUnits` < 0
/// when even the resident bytes exceed the budget.
static Spec milpSpec(const Graph &graph, const ReducedGraph &g,
                     const SolveOptions &options,
                     const CheckmateOptions &opts) {
  Spec spec;
  spec.minPeak = options.objective == Objective::MinPeakUnderOverhead;
  spec.binaryFrees = opts.binaryFrees;
  spec.maxColumns = opts.maxBinaries;
  if (!spec.minPeak)
    spec.capUnits = capUnits(g, options.budget, memoryUnit(g));
  spec.costCap = costLimit(graph, options);
  double total = std::accumulate(g.cost.begin(), g.cost.end(), 0.0);
  spec.eta = 1e-7 * std::max(total, 1e-9) /
             std::max(1.0, 0.5 * g.size() * (g.size() + 1.0));
  return spec;
}

SolveResult remat::solveCheckmateMilp(const Graph &graph,
                                      const SolveOptions &options,
                                      const CheckmateOptions &opts) {
  WorkMeter meter(options);
  ProgressReporter progress(options, kMilpName, meter.clock());
  std::string error = graph.check();
  if (!error.empty())
    return failSolve(kMilpName, SolveStatus::Unsupported,
                     "malformed graph: " + error, meter);
  SolveResult shortcut =
      checkpointAllShortcut(graph, options, kMilpName, meter);
  if (shortcut.feasible())
    return shortcut;
  ReducedGraph exact = reduceGraph(graph, /*mergeChains=*/false);
  ReducedGraph g =
      useChains(exact, opts) ? reduceGraph(graph, true) : std::move(exact);
  Spec spec = milpSpec(graph, g, options, opts);
  if (spec.capUnits < 0)
    return failSolve(kMilpName, SolveStatus::Infeasible,
                     "the budget is below the always-resident bytes", meter);
  // The size cap before anything of size n^2 (plans, the LP) is built.
  if (findStageColumns(g, opts.maxBinaries).tooLarge)
    return solveOverCap(graph, g, options, opts, meter);

  WarmStarts warm = collectWarmStarts(graph, g, options, opts, meter);
  if (warm.infeasible)
    return failSolve(kMilpName, SolveStatus::Infeasible, warm.proof, meter);
  if (!warm.skipCbc.empty())
    return answerWithoutCbc(graph, g, warm, options, progress, meter);
  Formulation f = buildFormulation(g, spec);
  MipStart start = chooseMipStart(graph, g, f, spec, options, warm);
  progress.report(start.index >= 0 && !spec.minPeak ? start.objective : -1, -1,
                  warm.lpBound,
                  std::to_string(warm.plans.size()) +
                      " warm starts; starting CBC",
                  /*phase=*/true);
  CbcOutcome cbc = runCbc(g, f, start, options, opts, progress, meter);
  double lowerBound = milpLowerBound(g, f, spec, cbc, warm.lpBound);
  return finishMilp(graph, g, options, warm, start, cbc, lowerBound, meter);
}
