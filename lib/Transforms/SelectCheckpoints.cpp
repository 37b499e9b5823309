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

#include "remat/Analysis/MemoryAnalysis.h"
#include "remat/Solver/Budget.h"
#include "remat/Solver/Modes.h"
#include "remat/Solver/ScheduleBuilder.h"
#include "remat/Solver/Simulator.h"
#include "remat/Solver/Solver.h"
#include "remat/Transforms/FunctionFilter.h"
#include "remat/Transforms/Passes.h"
#include "remat/Transforms/Rematerialize.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace remat {
#define GEN_PASS_DEF_REMATSELECTCHECKPOINTS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

StringRef remat::getPlanModeName(PlanMode mode) {
  switch (mode) {
  case PlanMode::MinCompute:
    return "min-compute";
  case PlanMode::MinPeak:
    return "min-peak";
  case PlanMode::MinBudget:
    return "min-budget";
  }
  llvm_unreachable("unknown plan mode");
}

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

FailureOr<PlanAttr>
remat::selectCheckpoints(func::FuncOp func,
                         const SelectCheckpointsOptions &options) {
  FailureOr<const SolverInfo *> found = lookupSolver(func, options.solver);
  if (failed(found))
    return failure();
  const SolverInfo *solver = *found;
  StringRef solverName = solver->name;

  FailureOr<FunctionGraph> built = buildFunctionGraph(func, options.graph);
  if (failed(built))
    return failure();
  const FunctionGraph &functionGraph = *built;
  const Graph &graph = functionGraph.graph;

  Simulation baseline = simulate(graph, checkpointAllSchedule(graph));
  if (!baseline.valid())
    return mlir::emitError(func.getLoc())
           << "internal error: the function's own order is "
              "not a valid schedule: "
           << baseline.error;

  std::string budgetError;
  std::optional<int64_t> parsedBudget =
      parseBudget(options.budget, baseline.peakBytes, budgetError);
  if (!parsedBudget)
    return mlir::emitError(func.getLoc())
           << "invalid budget '" << options.budget << "': " << budgetError;
  int64_t budget = *parsedBudget;

  SolveOptions solveOptions;
  solveOptions.timeLimitSeconds = options.timeLimitSeconds;
  solveOptions.budget = budget;
  if (std::string error = checkSolveOptions(solveOptions); !error.empty())
    return mlir::emitError(func.getLoc()) << "invalid option: " << error;
  Mode mode = options.mode == PlanMode::MinCompute ? Mode::MinCompute
              : options.mode == PlanMode::MinPeak  ? Mode::MinPeak
                                                   : Mode::MinBudget;
  SolveResult result = solveInMode(graph, *solver, mode, solveOptions);
  if (result.status == SolveStatus::Unsupported)
    return mlir::emitError(func.getLoc())
           << "solver '" << solverName
           << "' does not apply to this function: " << result.message;
  if (!result.feasible()) {
    InFlightDiagnostic diag = mlir::emitError(func.getLoc());
    if (mode == Mode::MinCompute)
      diag << "budget of " << budget << " bytes is infeasible for solver '"
           << solverName << "'";
    else
      diag << "solver '" << solverName << "' found no schedule";
    diag << " (" << toString(result.status);
    if (!result.message.empty())
      diag << ": " << result.message;
    diag << ")";
    if (mode == Mode::MinCompute) {
      BudgetSearch smallest = findSmallestBudget(graph, *solver, solveOptions);
      if (smallest.smallestBudget >= 0)
        diag << "; the smallest feasible budget is " << smallest.smallestBudget
             << " bytes ("
             << formatPercent(static_cast<double>(smallest.smallestBudget) /
                              std::max<int64_t>(baseline.peakBytes, 1))
             << " of the checkpoint-all peak of " << baseline.peakBytes
             << " bytes)";
      else
        diag << "; it meets no budget up to the checkpoint-all peak of "
             << baseline.peakBytes << " bytes";
    }
    // Where the memory goes in the function's own order: the few ops that
    // matter, never the whole function.
    MemoryAnalysis(func).attachPeakNotes(diag, "the checkpoint-all peak");
    return diag;
  }
  if (mode == Mode::MinPeak) {
    if (!options.budget.empty() && result.peakBytes > budget)
      return mlir::emitError(func.getLoc())
             << "budget of " << budget << " bytes is infeasible: the least "
             << "peak solver '" << solverName << "' found within one extra "
             << "forward pass is " << result.peakBytes << " bytes";
    if (options.budget.empty())
      budget = result.peakBytes;
  } else if (mode == Mode::MinBudget) {
    budget = result.peakBytes;
  }

  // Never trust a schedule the simulator has not replayed.
  Simulation simulated = simulate(graph, result.schedule);
  if (!simulated.valid())
    return mlir::emitError(func.getLoc())
           << "internal error: solver '" << solverName
           << "' returned an invalid schedule: " << simulated.error;
  if (simulated.peakBytes > budget)
    return mlir::emitError(func.getLoc())
           << "internal error: solver '" << solverName
           << "' returned a schedule with peak " << simulated.peakBytes
           << " bytes over the budget " << budget;

  // Write the schedule: compute step k of node n -> step k on n's op.
  RematPlan plan;
  int64_t step = 0;
  for (const Step &s : result.schedule.steps) {
    if (s.kind != Step::Kind::Compute)
      continue;
    Operation *op = functionGraph.nodeOps[s.node];
    if (op)
      plan.steps[op].push_back(step);
    ++step;
  }
  for (auto [id, op] : llvm::enumerate(functionGraph.nodeOps)) {
    if (!op)
      continue;
    auto it = plan.steps.find(op);
    if (it == plan.steps.end())
      return op->emitError() << "internal error: solver '" << solverName
                             << "' never computes this op";
    // Not every solver honours pins; never let a pinned op be recomputed.
    if (graph.nodes[id].keep == KeepPolicy::Always && it->second.size() > 1)
      return op->emitError()
             << "solver '" << solverName << "' recomputes this op, which "
             << (isRecomputable(op) ? "is pinned by remat.keep<always>"
                                    : "has memory effects")
             << "; choose a solver that honours pins";
  }
  writeRematPlan(plan);

  std::optional<int64_t> lowerBound;
  if (result.lowerBound >= 0)
    lowerBound = static_cast<int64_t>(std::floor(result.lowerBound));
  MLIRContext *ctx = func.getContext();
  StringRef status =
      result.status == SolveStatus::Optimal ? "optimal" : "feasible";
  auto attr = PlanAttr::get(ctx, solverName, getPlanModeName(options.mode),
                            status, budget, simulated.peakBytes,
                            baseline.peakBytes, std::llround(simulated.cost),
                            std::llround(baseline.cost), lowerBound);
  func->setAttr(RematDialect::kPlanAttrName, attr);

  // Every non-resident node is computed at least once.
  int64_t recomputations = step - static_cast<int64_t>(plan.steps.size());
  double overhead =
      baseline.cost > 0 ? (simulated.cost - baseline.cost) / baseline.cost : 0;
  // Reported at the function's location, without dumping the function.
  InFlightDiagnostic remark = mlir::emitRemark(func.getLoc());
  remark << "remat plan: solver '" << solverName << "' ("
         << getPlanModeName(options.mode) << ") " << status;
  if (result.lowerBound >= 0) {
    // The bound is on the objective: compute for min-compute, bytes else.
    double objective = mode == Mode::MinCompute
                           ? simulated.cost
                           : static_cast<double>(simulated.peakBytes);
    double gap =
        objective > 0 ? (objective - result.lowerBound) / objective : 0;
    remark << ", gap " << formatPercent(std::max(0.0, gap));
  }
  remark << "; predicted peak " << simulated.peakBytes << " bytes (budget "
         << budget << ", checkpoint-all " << baseline.peakBytes
         << "); recomputes " << recomputations << " op(s), compute overhead "
         << formatPercent(overhead) << "; solved in "
         << llvm::formatv("{0:F3}", result.seconds).str() << " s";
  return attr;
}

namespace {
struct SelectCheckpointsPass
    : public remat::impl::RematSelectCheckpointsBase<SelectCheckpointsPass> {
  using RematSelectCheckpointsBase::RematSelectCheckpointsBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    FailureOr<bool> selected =
        isSelectedFunction(func, functions, getArgument());
    if (failed(selected))
      return signalPassFailure();
    if (!*selected)
      return markAllAnalysesPreserved();
    SelectCheckpointsOptions options;
    options.solver = solver;
    options.mode = mode;
    options.budget = budget;
    options.timeLimitSeconds = timeLimit;
    options.graph.numDataArgs = dataArgs;
    if (failed(selectCheckpoints(func, options)))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
