//===- SelectCheckpoints.cpp - choose a rematerialization plan ------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Runs a registered checkpoint solver on the problem built from a training
// step and records its schedule on the IR (`remat.plan`, `remat.steps`).
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/BatchAnalysis.h"
#include "remat/Analysis/CostModel.h"
#include "remat/Analysis/MemoryAnalysis.h"
#include "remat/Solver/ArenaFit.h"
#include "remat/Solver/Budget.h"
#include "remat/Solver/GraphJSON.h"
#include "remat/Solver/Modes.h"
#include "remat/Solver/ScheduleBuilder.h"
#include "remat/Solver/Simulator.h"
#include "remat/Solver/Solver.h"
#include "remat/Transforms/AnnotateCosts.h"
#include "remat/Transforms/FunctionFilter.h"
#include "remat/Transforms/PassOptions.h"
#include "remat/Transforms/Passes.h"
#include "remat/Transforms/Rematerialize.h"
#include "remat/Transforms/SelectCheckpoints.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>

namespace remat {
#define GEN_PASS_DEF_REMATSELECTCHECKPOINTS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

static std::string formatPercent(double fraction) {
  return llvm::formatv("{0:F1}%", fraction * 100.0).str();
}

/// The registered solver named `name`; otherwise a located error on `func`
/// that lists every registered name.
static FailureOr<const SolverInfo *> lookupSolver(func::FuncOp func,
                                                  StringRef name) {
  if (const SolverInfo *solver = findSolver(name.str()))
    return solver;
  return mlir::emitError(func.getLoc())
         << "unknown solver '" << name
         << "'; the registered solvers are: " << solverNames();
}

namespace {
/// The problem built from a function, and its checkpoint-all reference.
struct PlanProblem {
  FunctionGraph functionGraph;
  Simulation baseline;
  /// With options.arena: the checkpoint-all order's arena, resident bytes
  /// included (what percentage budgets are of); 0 otherwise.
  int64_t baselineArena = 0;
};

/// A schedule to record on the IR and what it answers.
struct PlanAnswer {
  SolveResult result;
  /// The solver and mode recorded in `remat.plan`.
  std::string solver;
  Mode mode = Mode::MinCompute;
  /// The budget recorded; -1: the schedule's own peak.
  int64_t budget = -1;
  /// The schedule file it was read from; empty when just solved.
  std::string schedulePath;
  /// Max-batch: the batch, in samples, the schedule is for; 0 otherwise.
  int64_t batch = 0;
  /// The static memory plan fitted to the budget (options.arena).
  std::optional<ArenaFit> arena;
};
} // namespace

/// Builds the problem graph of `func` and simulates its own order.
static FailureOr<PlanProblem>
buildPlanProblem(func::FuncOp func, const SelectCheckpointsOptions &options) {
  FailureOr<FunctionGraph> built = buildFunctionGraph(func, options.graph);
  if (failed(built))
    return failure();
  PlanProblem problem{std::move(*built), {}};
  const Graph &graph = problem.functionGraph.graph;
  problem.baseline = simulate(graph, checkpointAllSchedule(graph));
  if (!problem.baseline.valid())
    return mlir::emitError(func.getLoc())
           << "internal error: the function's own order is "
              "not a valid schedule: "
           << problem.baseline.error;
  if (options.arena) {
    SolveResult own;
    own.schedule = checkpointAllSchedule(graph);
    ArenaFit fit = planScheduleArena(
        graph, own, kMaxTotalBytes, getArenaFitOptions(options.arenaAlignment));
    problem.baselineArena = fit.totalBytes;
  }
  return problem;
}

/// The `budget` option in bytes, relative to the checkpoint-all peak (with
/// the arena in the budget: to the larger of it and the checkpoint-all
/// order's arena, so that 100 % always fits).
static FailureOr<int64_t> getBudget(func::FuncOp func,
                                    const SelectCheckpointsOptions &options,
                                    const PlanProblem &problem) {
  std::string error;
  std::optional<int64_t> budget = parseBudget(
      options.budget,
      std::max(problem.baseline.peakBytes, problem.baselineArena), error);
  if (!budget)
    return mlir::emitError(func.getLoc())
           << "invalid budget '" << options.budget << "': " << error;
  return *budget;
}

namespace {
/// The smallest budget at which the pipeline plans with a solver (-1: none,
/// `why` says why), and its plan there.
struct SmallestBudget {
  int64_t budget = -1;
  std::string why;
  SolveResult result;
  /// With options.arena: the arena fitted to `budget`.
  std::optional<ArenaFit> arena;
};
} // namespace

/// The smallest budget the min-budget search of `solver` finds, and with
/// the arena, the smallest at which the arena fits too
/// (findSmallestArenaBudget): asked at that budget, the pipeline plans.
static SmallestBudget findSmallestPlanBudget(
    const PlanProblem &problem, const SelectCheckpointsOptions &options,
    const SolverInfo &solver, const SolveOptions &solveOptions) {
  const Graph &graph = problem.functionGraph.graph;
  SmallestBudget smallest;
  BudgetSearch search = findSmallestBudget(graph, solver, solveOptions);
  if (search.smallestBudget < 0) {
    smallest.why = "meets no budget up to the checkpoint-all peak of " +
                   std::to_string(problem.baseline.peakBytes) + " bytes (" +
                   toString(search.best.status) +
                   (search.best.message.empty() ? "" : ": ") +
                   search.best.message + ")";
    return smallest;
  }
  if (!options.arena) {
    smallest.budget = search.smallestBudget;
    smallest.result = std::move(search.best);
    return smallest;
  }
  ArenaBudget withArena =
      findSmallestArenaBudget(graph, solver, solveOptions, search,
                              getArenaFitOptions(options.arenaAlignment));
  if (!withArena.fit.fits) {
    smallest.why = withArena.fit.error.empty()
                       ? "meets the sum-of-live budget of " +
                             std::to_string(search.smallestBudget) +
                             " bytes, but no arena of its plans fits up to " +
                             std::to_string(withArena.budget) +
                             " bytes (arena=false plans at the former)"
                       : "has no arena: " + withArena.fit.error;
    return smallest;
  }
  smallest.budget = withArena.budget;
  smallest.result = withArena.fit.result;
  smallest.arena = std::move(withArena.fit);
  return smallest;
}

/// The error for a solver that found no schedule, with the smallest budget
/// it can meet and where the memory goes in the function's own order.
/// `smallest`: the smallest budget the solver meets, when it was searched.
static LogicalResult
emitNoSchedule(func::FuncOp func, const PlanProblem &problem,
               const SolverInfo &solver, Mode mode,
               const SolveOptions &solveOptions, const SolveResult &result,
               const std::optional<SmallestBudget> &smallest) {
  int64_t baselinePeak = problem.baseline.peakBytes;
  InFlightDiagnostic diag = mlir::emitError(func.getLoc());
  if (mode == Mode::MinCompute)
    diag << "budget of " << solveOptions.budget
         << " bytes is infeasible for solver '" << solver.name << "'";
  else
    diag << "solver '" << solver.name << "' found no schedule";
  diag << " (" << toString(result.status);
  if (!result.message.empty())
    diag << ": " << result.message;
  diag << ")";
  // The search shares the deadline with the solve that failed.
  if (mode == Mode::MinCompute && result.stoppedByTimeLimit) {
    diag << "; the time limit left no time to search for the smallest "
            "feasible budget";
  } else if (smallest && smallest->budget >= 0) {
    diag << "; the smallest feasible budget is " << smallest->budget
         << " bytes ("
         << formatPercent(static_cast<double>(smallest->budget) /
                          std::max<int64_t>(baselinePeak, 1))
         << " of the checkpoint-all peak of " << baselinePeak << " bytes"
         << (smallest->arena ? ", its arena included)" : ")");
  } else if (smallest) {
    diag << "; it " << smallest->why;
  }
  // Where the memory goes in the function's own order: the few ops that
  // matter, never the whole function.
  MemoryAnalysis(func).attachPeakNotes(diag, "the checkpoint-all peak");
  return diag;
}

/// Checks that max-batch can plan `func` at a batch it chooses: a budget is
/// given, the graph scales with the batch, the batch dimension (dimension 0
/// of the data arguments) is dynamic and no other argument dimension is.
static LogicalResult
checkMaxBatchStep(func::FuncOp func, const PlanProblem &problem,
                  const SelectCheckpointsOptions &options) {
  if (options.budget.empty())
    return mlir::emitError(func.getLoc())
           << "mode=max-batch needs a budget: it searches the largest batch "
              "whose plan fits one";
  if (!problem.functionGraph.graph.hasBatchScaling())
    return mlir::emitError(func.getLoc())
           << "mode=max-batch cannot tell how this step scales with the "
              "batch: "
           << problem.functionGraph.batchProblem;
  for (BlockArgument arg : func.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    for (int64_t dim = 0; type && dim < type.getRank(); ++dim) {
      bool isBatch = dim == 0 && isDataArgument(func, arg.getArgNumber(),
                                                options.graph.numDataArgs);
      if (isBatch && !type.isDynamicDim(dim))
        return mlir::emitError(func.getLoc())
               << "mode=max-batch: the batch dimension (dimension 0 of "
                  "argument #"
               << arg.getArgNumber() << ", " << type
               << ") is static; the plan is made for the batch the search "
                  "finds, which needs a dynamic batch dimension ('?')";
      if (!isBatch && type.isDynamicDim(dim))
        return mlir::emitError(func.getLoc())
               << "mode=max-batch: dimension " << dim << " of argument #"
               << arg.getArgNumber() << " (" << type
               << ") is dynamic but is not the batch dimension; max-batch "
                  "sizes every dynamic dimension as the batch";
    }
  }
  return success();
}

/// The error for a budget below what one sample needs, naming the smallest
/// budget the solver meets at one sample.
static LogicalResult emitBelowOneSample(func::FuncOp func, const Graph &graph,
                                        const SolverInfo &solver,
                                        const SolveOptions &solveOptions,
                                        const SolveResult &atOne) {
  InFlightDiagnostic diag = mlir::emitError(func.getLoc())
                            << "mode=max-batch: the budget of "
                            << solveOptions.budget
                            << " bytes does not fit one sample with solver '"
                            << solver.name << "' (" << toString(atOne.status);
  if (!atOne.message.empty())
    diag << ": " << atOne.message;
  diag << ")";
  if (atOne.status == SolveStatus::Unsupported)
    return diag;
  if (std::optional<Graph> one = scaleBatch(graph, 1)) {
    BudgetSearch smallest = findSmallestBudget(*one, solver, solveOptions);
    if (smallest.smallestBudget >= 0)
      diag << "; the smallest feasible budget at batch 1 is "
           << smallest.smallestBudget << " bytes";
  }
  return diag;
}

/// Max-batch: the largest batch whose plan fits the budget (findMaxBatch on
/// the graph's batch scaling).
static FailureOr<PlanAnswer>
solveMaxBatch(func::FuncOp func, const PlanProblem &problem,
              const SelectCheckpointsOptions &options, const SolverInfo &solver,
              const SolveOptions &solveOptions) {
  if (failed(checkMaxBatchStep(func, problem, options)))
    return failure();
  const Graph &graph = problem.functionGraph.graph;
  BatchSearch search = findMaxBatch(graph, solver, solveOptions);
  if (search.batch == 0)
    return emitBelowOneSample(func, graph, solver, solveOptions, search.result);
  PlanAnswer answer;
  answer.solver = solver.name;
  answer.mode = Mode::MaxBatch;
  answer.budget = solveOptions.budget;
  answer.result = std::move(search.result);
  answer.batch = search.batch;
  return answer;
}

/// `budget=min`: the plan at the smallest budget the solver meets (the
/// min-budget search), recorded as a min-compute plan at that budget: the
/// plan the solver returns when asked at exactly that budget.
static FailureOr<PlanAnswer>
solveAtSmallestBudget(func::FuncOp func, const PlanProblem &problem,
                      const SelectCheckpointsOptions &options,
                      const SolverInfo &solver,
                      const SolveOptions &solveOptions) {
  if (options.mode != Mode::MinCompute)
    return mlir::emitError(func.getLoc())
           << "budget=min plans at the smallest feasible budget in mode "
              "min-compute, not "
           << toString(options.mode);
  SmallestBudget smallest =
      findSmallestPlanBudget(problem, options, solver, solveOptions);
  if (smallest.budget < 0)
    return mlir::emitError(func.getLoc())
           << "budget=min: solver '" << solver.name << "' " << smallest.why;
  mlir::emitRemark(func.getLoc())
      << "budget=min: the smallest feasible budget of solver '" << solver.name
      << "' is " << smallest.budget << " bytes ("
      << formatPercent(static_cast<double>(smallest.budget) /
                       std::max<int64_t>(problem.baseline.peakBytes, 1))
      << " of the checkpoint-all peak"
      << (smallest.arena ? ", its arena included)" : ")");
  PlanAnswer answer;
  answer.solver = solver.name;
  answer.mode = Mode::MinCompute;
  answer.budget = smallest.budget;
  answer.result = std::move(smallest.result);
  answer.arena = std::move(smallest.arena);
  return answer;
}

/// The solve options of `options` (the budget aside), checked.
static FailureOr<SolveOptions>
getSolveOptions(func::FuncOp func, const SelectCheckpointsOptions &options) {
  SolveOptions solveOptions;
  solveOptions.timeLimitSeconds = options.timeLimitSeconds;
  solveOptions.effort = options.effort;
  if (std::string error = checkSolveOptions(solveOptions); !error.empty())
    return mlir::emitError(func.getLoc()) << "invalid option: " << error;
  // One deadline for the solve and the searches after it (the smallest
  // feasible budget of an error).
  solveOptions.allowance.deadline = startAllowance(solveOptions).deadline;
  return solveOptions;
}

/// The error for an arena over the budget whose sum-of-live peak fits it,
/// with what was tried.
static LogicalResult emitArenaOverBudget(func::FuncOp func, const ArenaFit &fit,
                                         int64_t budget, int64_t smallest) {
  InFlightDiagnostic diag = mlir::emitError(func.getLoc());
  diag << "the arena of " << fit.totalBytes << " bytes exceeds the budget of "
       << budget << " bytes, though the sum-of-live peak of "
       << fit.result.peakBytes << " bytes fits it";
  if (!fit.steps.empty())
    diag << "; tried " << llvm::join(fit.steps, "; ");
  if (smallest >= 0)
    diag << "; the smallest feasible budget is " << smallest
         << " bytes, its arena included";
  diag << " (raise the budget, or plan without the arena: arena=false)";
  return diag;
}

/// With `options.arena`, fits the static memory plan of the answer's
/// schedule to its budget (fitArena: other offsets, other orders, lower
/// targets for `solver`) and keeps the schedule it settles on.
static LogicalResult fitAnswerArena(func::FuncOp func,
                                    const PlanProblem &problem,
                                    const SelectCheckpointsOptions &options,
                                    const SolverInfo &solver, Mode mode,
                                    const SolveOptions &solveOptions,
                                    PlanAnswer &answer) {
  // Without a budget given (100 % of checkpoint-all) nothing is fitted:
  // the recorded budget grows to the arena instead (getRecordedArena).
  if (!options.arena || answer.budget < 0 || options.budget.empty())
    return success();
  const Graph &graph = problem.functionGraph.graph;
  ArenaFit fit = fitArena(graph, solver, mode, solveOptions, answer.result,
                          getArenaFitOptions(options.arenaAlignment));
  if (!fit.error.empty())
    return mlir::emitError(func.getLoc())
           << "cannot plan the arena of '" << func.getSymName()
           << "': " << fit.error;
  int64_t smallestBudget = -1;
  if (!fit.fits && mode == Mode::MinCompute) {
    // A plan at a smaller budget whose arena fits there fits here too: the
    // smallest budget's plan keeps feasibility monotone in the budget.
    SmallestBudget smallest =
        findSmallestPlanBudget(problem, options, solver, solveOptions);
    smallestBudget = smallest.arena ? smallest.budget : -1;
    if (smallest.arena && smallest.budget <= answer.budget) {
      std::vector<std::string> steps = std::move(fit.steps);
      steps.push_back("the plan at the smallest feasible budget, " +
                      std::to_string(smallest.budget) + " bytes: arena " +
                      std::to_string(smallest.arena->totalBytes) + " bytes");
      fit = std::move(*smallest.arena);
      fit.steps = std::move(steps);
    }
  }
  if (!fit.fits)
    return emitArenaOverBudget(func, fit, answer.budget, smallestBudget);
  answer.result = fit.result;
  answer.arena = std::move(fit);
  return success();
}

/// When the solve at the budget found nothing: in mode min-compute, the plan
/// at the smallest budget the solver meets, if that is below this budget
/// (it fits here too: feasibility stays monotone in the budget, whatever
/// path a heuristic search takes at each); otherwise the error, naming that
/// smallest budget.
static FailureOr<PlanAnswer>
solveAtSmallerBudget(func::FuncOp func, const PlanProblem &problem,
                     const SelectCheckpointsOptions &options,
                     const SolverInfo &solver, Mode mode,
                     const SolveOptions &solveOptions, PlanAnswer &answer) {
  std::optional<SmallestBudget> smallest;
  // The search shares the deadline with the solve that failed.
  if (mode == Mode::MinCompute && !answer.result.stoppedByTimeLimit)
    smallest = findSmallestPlanBudget(problem, options, solver, solveOptions);
  if (!smallest || smallest->budget < 0 || smallest->budget > answer.budget)
    return emitNoSchedule(func, problem, solver, mode, solveOptions,
                          answer.result, smallest);
  mlir::emitRemark(func.getLoc())
      << "solver '" << solver.name << "' found no schedule at the budget of "
      << answer.budget << " bytes (" << answer.result.message
      << "); its plan at the smallest feasible budget, " << smallest->budget
      << " bytes, fits it";
  answer.result = std::move(smallest->result);
  answer.arena = std::move(smallest->arena);
  return std::move(answer);
}

/// With gather-policy=plan on a step with parameter gathers, the plans of
/// the fixed policies (keep, regather) are plans of this graph too, which a
/// heuristic search of the unpinned graph does not always find: `result`
/// becomes the cheapest of the three answers at the budget (mode
/// min-compute), so that ours never costs more than a fixed policy there.
static void tryFixedGatherPolicies(const PlanProblem &problem,
                                   const SelectCheckpointsOptions &options,
                                   const SolverInfo &solver,
                                   const SolveOptions &solveOptions,
                                   SolveResult &result) {
  const FunctionGraph &functionGraph = problem.functionGraph;
  if (options.graph.gatherPolicy != GatherPolicy::Plan ||
      functionGraph.gatherPinned.empty())
    return;
  for (GatherPolicy policy : {GatherPolicy::Keep, GatherPolicy::Regather}) {
    Graph pinned = functionGraph.graph;
    applyGatherPolicy(functionGraph, policy, pinned);
    SolveResult other =
        solveInMode(pinned, solver, Mode::MinCompute, solveOptions);
    if (other.feasible() &&
        (!result.feasible() || other.cost < result.cost ||
         (other.cost == result.cost && other.peakBytes < result.peakBytes)))
      result = std::move(other);
  }
}

/// Runs the solver of `options` on the problem.
static FailureOr<PlanAnswer>
solvePlan(func::FuncOp func, const PlanProblem &problem,
          const SelectCheckpointsOptions &options) {
  FailureOr<const SolverInfo *> found = lookupSolver(func, options.solver);
  if (failed(found))
    return failure();
  const SolverInfo &solver = **found;
  FailureOr<SolveOptions> checked = getSolveOptions(func, options);
  if (failed(checked))
    return failure();
  SolveOptions solveOptions = *checked;
  if (options.budget == "min")
    return solveAtSmallestBudget(func, problem, options, solver, solveOptions);
  FailureOr<int64_t> budget = getBudget(func, options, problem);
  if (failed(budget))
    return failure();
  solveOptions.budget = *budget;
  if (options.mode == Mode::MaxBatch)
    return solveMaxBatch(func, problem, options, solver, solveOptions);
  Mode mode = options.mode;
  PlanAnswer answer;
  answer.solver = solver.name;
  answer.mode = options.mode;
  answer.budget = *budget;
  answer.result =
      solveInMode(problem.functionGraph.graph, solver, mode, solveOptions);
  if (mode == Mode::MinCompute &&
      answer.result.status != SolveStatus::Unsupported)
    tryFixedGatherPolicies(problem, options, solver, solveOptions,
                           answer.result);
  const SolveResult &result = answer.result;
  if (result.status == SolveStatus::Unsupported)
    return mlir::emitError(func.getLoc())
           << "solver '" << solver.name
           << "' does not apply to this function: " << result.message;
  if (!result.feasible())
    return solveAtSmallerBudget(func, problem, options, solver, mode,
                                solveOptions, answer);
  if (mode == Mode::MinPeak) {
    if (!options.budget.empty() && result.peakBytes > *budget)
      return mlir::emitError(func.getLoc())
             << "budget of " << *budget << " bytes is infeasible: the least "
             << "peak solver '" << solver.name << "' found within one extra "
             << "forward pass is " << result.peakBytes << " bytes";
    if (options.budget.empty())
      answer.budget = -1;
  } else if (mode == Mode::MinBudget) {
    answer.budget = -1;
  }
  if (failed(fitAnswerArena(func, problem, options, solver, mode, solveOptions,
                            answer)))
    return failure();
  return answer;
}

/// The mode of a schedule file named `name`, when its plan applies to the
/// IR as it is (max-batch plans are for another batch).
static std::optional<Mode> parseSavedMode(StringRef name) {
  Mode mode;
  if (!parseMode(name.str(), mode) ||
      (mode != Mode::MinCompute && mode != Mode::MinPeak &&
       mode != Mode::MinBudget))
    return std::nullopt;
  return mode;
}

/// Checks that `saved` (read from `path`) holds a plan for this function's
/// graph; returns its mode.
static FailureOr<Mode> checkSavedResult(func::FuncOp func, StringRef path,
                                        const SavedResult &saved,
                                        const PlanProblem &problem) {
  GraphFingerprint actual = fingerprintGraph(problem.functionGraph.graph);
  std::string mismatch = describeMismatch(saved.graph, actual);
  if (!mismatch.empty())
    return mlir::emitError(func.getLoc())
           << "schedule '" << path << "' was computed for another graph: "
           << "graph '" << saved.graph.name
           << "' differs from this function's graph '" << actual.name << "' in "
           << mismatch
           << "; export this function's graph with --remat-export-graph and "
              "solve it again";
  if (!saved.result.feasible())
    return mlir::emitError(func.getLoc())
           << "schedule '" << path << "' holds no plan: its status is '"
           << toString(saved.result.status) << "'"
           << (saved.result.message.empty() ? "" : ": ")
           << saved.result.message;
  std::optional<Mode> mode = parseSavedMode(saved.mode);
  if (!mode)
    return mlir::emitError(func.getLoc())
           << "schedule '" << path << "' was solved in mode '" << saved.mode
           << "'; only min-compute, min-peak and min-budget plans apply to "
              "the IR";
  return *mode;
}

/// Reads the schedule file of `options` (remat-solve's result JSON) and
/// checks that it holds a plan for this function's graph.
static FailureOr<PlanAnswer> loadPlan(func::FuncOp func,
                                      const PlanProblem &problem,
                                      const SelectCheckpointsOptions &options) {
  StringRef path = options.schedulePath;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return mlir::emitError(func.getLoc())
           << "cannot read schedule '" << path
           << "': " << buffer.getError().message();
  SavedResult saved;
  std::string error;
  if (!parseResultJSON((*buffer)->getBuffer().str(), saved, error))
    return mlir::emitError(func.getLoc())
           << "malformed schedule '" << path << "': " << error;
  FailureOr<Mode> mode = checkSavedResult(func, path, saved, problem);
  if (failed(mode))
    return failure();

  PlanAnswer answer;
  answer.result = std::move(saved.result);
  answer.solver = answer.result.solver;
  answer.mode = *mode;
  answer.schedulePath = path.str();
  // The budget given, else the file's, else what solving would record.
  if (!options.budget.empty()) {
    FailureOr<int64_t> budget = getBudget(func, options, problem);
    if (failed(budget))
      return failure();
    answer.budget = *budget;
  } else if (saved.budget >= 0) {
    answer.budget = saved.budget;
  } else if (*mode == Mode::MinCompute) {
    answer.budget = problem.baseline.peakBytes;
  }
  return answer;
}

/// Who chose the schedule, for messages.
static std::string describeSource(const PlanAnswer &answer) {
  if (answer.schedulePath.empty())
    return "solver '" + answer.solver + "'";
  return "schedule '" + answer.schedulePath + "'";
}

/// Checks the answer's schedule with the simulator against its budget and
/// translates it into `remat.steps`: compute step k of node n -> step k on
/// n's op. Errors in a solver's schedule are internal errors.
static FailureOr<RematPlan> checkSchedule(func::FuncOp func,
                                          const PlanProblem &problem,
                                          const PlanAnswer &answer,
                                          Simulation &simulated) {
  const FunctionGraph &functionGraph = problem.functionGraph;
  const Graph &graph = functionGraph.graph;
  std::string source = describeSource(answer);
  StringRef internal = answer.schedulePath.empty() ? "internal error: " : "";
  simulated = simulate(graph, answer.result.schedule);
  if (!simulated.valid())
    return mlir::emitError(func.getLoc())
           << internal << source
           << " is not a valid schedule of this function: " << simulated.error;
  if (answer.budget >= 0 && simulated.peakBytes > answer.budget)
    return mlir::emitError(func.getLoc())
           << internal << source << " peaks at " << simulated.peakBytes
           << " bytes, over the budget of " << answer.budget << " bytes";

  RematPlan plan;
  int64_t step = 0;
  for (const Step &s : answer.result.schedule.steps) {
    if (s.kind != Step::Kind::Compute)
      continue;
    if (Operation *op = functionGraph.nodeOps[s.node])
      plan.steps[op].push_back(step);
    ++step;
  }
  for (auto [id, op] : llvm::enumerate(functionGraph.nodeOps)) {
    if (!op)
      continue;
    auto it = plan.steps.find(op);
    if (it == plan.steps.end())
      return op->emitError() << internal << source << " never computes this op";
    // Not every solver honours pins; never let a pinned op be recomputed.
    if (graph.nodes[id].keep == KeepPolicy::Always && it->second.size() > 1)
      return op->emitError()
             << source << " recomputes this op, which "
             << (isRecomputable(op) ? "is pinned by remat.keep<always>"
                                    : "has memory effects")
             << "; choose a solver that honours pins";
  }
  return plan;
}

/// The static memory plan of the answer (options.arena): the one fitted
/// while solving, or else the schedule's own, which must fit a budget
/// given. Fails with a located error.
static FailureOr<std::optional<ArenaFit>>
getRecordedArena(func::FuncOp func, const PlanProblem &problem,
                 const SelectCheckpointsOptions &options,
                 const PlanAnswer &answer) {
  if (!options.arena)
    return std::optional<ArenaFit>();
  if (answer.arena)
    return answer.arena;
  bool budgetGiven = answer.budget >= 0 && !options.budget.empty();
  int64_t budget = budgetGiven ? answer.budget : kMaxTotalBytes;
  ArenaFit fit =
      planScheduleArena(problem.functionGraph.graph, answer.result, budget,
                        getArenaFitOptions(options.arenaAlignment));
  if (!fit.error.empty())
    return mlir::emitError(func.getLoc())
           << "cannot plan the arena of '" << func.getSymName()
           << "': " << fit.error;
  if (!fit.fits)
    return emitArenaOverBudget(func, fit, budget, -1);
  return std::optional<ArenaFit>(std::move(fit));
}

/// The part of the plan's remark about the arena: its size, its planner
/// and gap to the most bytes live at once, and the steps that fitted it.
static void reportArena(InFlightDiagnostic &remark, const ArenaFit &fit,
                        bool recorded) {
  const ArenaPlan &arena = fit.arena;
  remark << "; arena " << fit.totalBytes << " bytes ";
  if (!recorded)
    remark << "(no budget given: not checked; " << arena.planner;
  else
    remark << "(" << arena.planner;
  if (arena.bytes > arena.lowerBound)
    remark << ", "
           << formatPercent(
                  static_cast<double>(arena.bytes - arena.lowerBound) /
                  std::max<int64_t>(arena.bytes, 1))
           << " above the sum-of-live bound";
  remark << ")";
  if (!fit.steps.empty())
    remark << " after: " << llvm::join(fit.steps, "; ");
}

/// Records the answer on the IR (`remat.steps`, `remat.plan`) and reports it
/// in a remark.
static FailureOr<PlanAttr> recordPlan(func::FuncOp func,
                                      const PlanProblem &problem,
                                      const SelectCheckpointsOptions &options,
                                      const PlanAnswer &answer) {
  Simulation simulated;
  FailureOr<RematPlan> plan = checkSchedule(func, problem, answer, simulated);
  if (failed(plan))
    return failure();
  FailureOr<std::optional<ArenaFit>> arena =
      getRecordedArena(func, problem, options, answer);
  if (failed(arena))
    return failure();
  writeRematPlan(*plan);

  const SolveResult &result = answer.result;
  const Simulation &baseline = problem.baseline;
  int64_t budget = answer.budget >= 0 ? answer.budget : simulated.peakBytes;
  // The arena is recorded (and so checked by remat-verify-memory) with a
  // budget given, and with one the mode derives (min-budget, min-peak),
  // which then grows to cover it; the default 100 % only reports it.
  std::optional<int64_t> arenaBytes;
  if (*arena && (!options.budget.empty() || answer.budget < 0)) {
    arenaBytes = (*arena)->totalBytes;
    budget = std::max(budget, *arenaBytes);
  }
  std::optional<int64_t> lowerBound;
  if (result.lowerBound >= 0)
    lowerBound = static_cast<int64_t>(std::floor(result.lowerBound));
  StringRef status =
      result.status == SolveStatus::Optimal ? "optimal" : "feasible";
  StringRef modeName = toString(answer.mode);
  auto attr = PlanAttr::get(
      func.getContext(), answer.solver, modeName, status, budget,
      simulated.peakBytes, baseline.peakBytes, std::llround(simulated.cost),
      std::llround(baseline.cost), lowerBound, arenaBytes);
  func->setAttr(RematDialect::kPlanAttrName, attr);

  // Every non-resident node is computed at least once.
  int64_t computed = 0;
  for (const Step &s : result.schedule.steps)
    computed += s.kind == Step::Kind::Compute;
  int64_t recomputations = computed - static_cast<int64_t>(plan->steps.size());
  double overhead =
      baseline.cost > 0 ? (simulated.cost - baseline.cost) / baseline.cost : 0;
  // Reported at the function's location, without dumping the function.
  InFlightDiagnostic remark = mlir::emitRemark(func.getLoc());
  remark << "remat plan: ";
  if (!answer.schedulePath.empty())
    remark << "schedule '" << answer.schedulePath << "' of ";
  remark << "solver '" << answer.solver << "' (" << modeName << ") " << status;
  if (result.lowerBound >= 0) {
    // The bound is on the objective: compute for min-compute, bytes else.
    double objective = answer.mode == Mode::MinCompute
                           ? simulated.cost
                           : static_cast<double>(simulated.peakBytes);
    double gap =
        objective > 0 ? (objective - result.lowerBound) / objective : 0;
    remark << ", gap " << formatPercent(std::max(0.0, gap));
  }
  remark << "; predicted peak " << simulated.peakBytes << " bytes (budget "
         << budget << ", checkpoint-all " << baseline.peakBytes
         << "); recomputes " << recomputations << " op(s), compute overhead "
         << formatPercent(overhead);
  if (answer.schedulePath.empty())
    remark << "; solved in " << llvm::formatv("{0:F3}", result.seconds).str()
           << " s";
  if (answer.schedulePath.empty() && result.stoppedByTimeLimit)
    remark << "; " << kStoppedByTimeLimit;
  if (*arena)
    reportArena(remark, **arena, arenaBytes.has_value());
  return attr;
}

/// Max-batch: moves the IR to the batch found (resizeDynamicSizes: guard and
/// costs), records the schedule on the graph rebuilt at that batch (the
/// simulator checks it against the budget with the exact sizes), and
/// reports the batch in `remat.batch` and a remark.
static FailureOr<PlanAttr>
recordBatchPlan(func::FuncOp func, const SelectCheckpointsOptions &options,
                const PlanAnswer &answer) {
  if (failed(resizeDynamicSizes(func, answer.batch)))
    return failure();
  FailureOr<PlanProblem> problem = buildPlanProblem(func, options);
  if (failed(problem))
    return failure();
  FailureOr<PlanAttr> attr = recordPlan(func, *problem, options, answer);
  if (failed(attr))
    return failure();
  Builder builder(func.getContext());
  func->setAttr(RematDialect::kBatchAttrName,
                builder.getI64IntegerAttr(answer.batch));
  mlir::emitRemark(func.getLoc())
      << "max-batch: " << answer.batch
      << " samples is the largest batch that solver '" << answer.solver
      << "' fits in the budget of " << answer.budget
      << " bytes; the plan and the dynamic-size guard are for that batch";
  return attr;
}

FailureOr<PlanAttr>
remat::selectCheckpoints(func::FuncOp func,
                         const SelectCheckpointsOptions &options) {
  FailureOr<PlanProblem> problem = buildPlanProblem(func, options);
  if (failed(problem))
    return failure();
  FailureOr<PlanAnswer> answer = options.schedulePath.empty()
                                     ? solvePlan(func, *problem, options)
                                     : loadPlan(func, *problem, options);
  if (failed(answer))
    return failure();
  if (answer->batch == 0)
    return recordPlan(func, *problem, options, *answer);
  return recordBatchPlan(func, options, *answer);
}

namespace {
struct SelectCheckpointsPass
    : public BlankCheckedOptions<SelectedFunctionsPass<
          remat::impl::RematSelectCheckpointsBase<SelectCheckpointsPass>>> {
  using BlankCheckedOptions::BlankCheckedOptions;

  void runOnSelectedFunction(func::FuncOp func) override {
    SelectCheckpointsOptions options;
    options.solver = solver;
    options.mode = mode;
    options.budget = budget;
    options.effort = effort;
    options.timeLimitSeconds = timeLimit;
    options.graph.numDataArgs = dataArgs;
    options.graph.gatherPolicy = gatherPolicy;
    options.schedulePath = schedule;
    options.arena = arena;
    options.arenaAlignment = arenaAlignment;
    if (failed(selectCheckpoints(func, options)))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
