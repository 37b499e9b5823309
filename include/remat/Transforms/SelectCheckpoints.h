//===- SelectCheckpoints.h - choose a rematerialization plan ----*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The policy of rematerialization, as the public function the
// remat-select-checkpoints pass is a thin shell over: `selectCheckpoints`
// translates a cost-annotated training step into the solver's problem
// (GraphBuilder.h), runs a registered solver and records the plan on the IR:
// `remat.plan` on the function and `remat.steps` on every op (the schedule
// steps at which it is computed). Rematerialize.h applies such a plan.
//
// Usage:
//
//   SelectCheckpointsOptions options;
//   options.budget = "70%";
//   FailureOr<PlanAttr> plan = selectCheckpoints(func, options);
//   if (failed(plan))
//     return failure(); // a located error was emitted on `func`
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TRANSFORMS_SELECTCHECKPOINTS_H
#define REMAT_TRANSFORMS_SELECTCHECKPOINTS_H

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Solver/Search/Modes.h"
#include "remat/Solver/Search/Offload.h"
#include "remat/Transforms/GraphBuilder.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cstdint>
#include <string>

namespace remat {

/// How selectCheckpoints plans (the options of remat-select-checkpoints).
struct SelectCheckpointsOptions {
  /// Name of a registered solver (`allSolvers()` in Solver.h); `auto` is the
  /// portfolio. Checked by `selectCheckpoints`.
  std::string solver = "auto";
  /// What the plan optimizes: a plan mode (`isPlanMode`, Modes.h).
  Mode mode = Mode::MinCompute;
  /// Budget: bytes (`4096`), bytes with a binary suffix (`64KiB`, `1.5MiB`,
  /// `2GiB`), or a percentage of the checkpoint-all peak (`70%`). Empty means
  /// 100 % of the checkpoint-all peak; `min`, the smallest budget the solver
  /// meets (mode min-compute only).
  std::string budget;
  /// The solvers' work budget, as a multiple of the default
  /// (`SolveOptions::effort`).
  double effort = 1;
  /// Wall-clock safety cap for searching solvers, in seconds.
  double timeLimitSeconds = 600;
  GraphBuilderOptions graph;
  /// When set, the schedule is read from this file (the result JSON of
  /// `remat-solve`, docs/SolverFormat.md) instead of solving: `solver`,
  /// `mode`, `effort` and `timeLimitSeconds` are then ignored, and `budget`,
  /// when set, is checked instead of the file's.
  std::string schedulePath;
  /// Plan the schedule's static memory plan too (docs/Arena.md): resident
  /// bytes plus one arena with every value at an offset, within the budget
  /// (other offsets, another order of the same computations, a lower
  /// target for the solver when it is not), recorded as the plan's `arena`.
  bool arena = false;
  /// Alignment of every offset in that arena (the lowering's).
  int64_t arenaAlignment = 16;
  /// Offloading (docs/Offload.md): the host link ("none": keep or recompute
  /// only), the most host memory the plan may hold (bytes as `budget` writes
  /// them; empty: unlimited) and what a plan may do.
  std::string hostLink = "none";
  std::string hostBudget;
  /// Whether the parameter gathers cross the host link too
  /// (HostLink::carriesGathers).
  bool gathersOnHostLink = false;
  OffloadChoice offload = OffloadChoice::Joint;
};

/// Plans rematerialization of `func` and records the plan on it (see the
/// file comment). Emits remarks with the solver status, gap and predicted
/// peak. Fails with a located error when the solver name is not registered
/// (the error lists the registered names), the graph is outside the model,
/// the solver does not apply, or the budget is infeasible (the error names
/// the smallest budget the solver can meet).
///
/// With `schedulePath`, records the saved schedule exactly as solving would
/// record the same schedule, after checking it: the file must be readable
/// and well-formed (the error names the JSON path), hold a feasible
/// min-compute, min-peak or min-budget plan, be computed for this function's
/// graph (its "graph" fingerprint; the error says what differs), and pass
/// the simulator within the budget.
mlir::FailureOr<PlanAttr>
selectCheckpoints(mlir::func::FuncOp func,
                  const SelectCheckpointsOptions &options);

} // namespace remat

#endif // REMAT_TRANSFORMS_SELECTCHECKPOINTS_H
