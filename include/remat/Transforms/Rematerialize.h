//===- Rematerialize.h - choose and apply rematerialization plans -*- C++
//-*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The mechanism and the policy of rematerialization, as public functions the
// passes are thin shells over:
//
//   * `selectCheckpoints` (policy): translates a cost-annotated training step
//     into the solver's problem (GraphBuilder.h), runs a registered solver
//     and records the plan on the IR: `remat.plan` on the function and
//     `remat.steps` on every op (the schedule steps at which it is computed).
//   * `applyRematPlan` / `rematerialize` (mechanism): clones every op once
//     per extra step, orders ops by step, and rewires every use to the most
//     recent computation before it, so that each value dies where the plan
//     frees it. Ops with memory effects are never cloned.
//   * `stripBarriers`: removes the `remat.barrier` ops that keep `cse` from
//     merging clones back, right before bufferization.
//
// How a plan is stored, and what later passes may do to it, is described in
// docs/Rematerialization.md.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TRANSFORMS_REMATERIALIZE_H
#define REMAT_TRANSFORMS_REMATERIALIZE_H

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Solver/ModeOption.h"
#include "remat/Solver/Modes.h"
#include "remat/Solver/Problem.h"
#include "remat/Transforms/GraphBuilder.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/CommandLine.h"

#include <optional>
#include <string>

namespace remat {

//===----------------------------------------------------------------------===//
// Plan selection
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// Plan application
//===----------------------------------------------------------------------===//

/// A plan read from or written to IR: for each planned op, the strictly
/// increasing schedule steps at which it is computed. The first step is the
/// original computation; each further step is a recomputation.
struct RematPlan {
  llvm::MapVector<mlir::Operation *, llvm::SmallVector<int64_t>> steps;
};

/// Reads the `remat.steps` attributes of `func`'s body. Returns an empty plan
/// when no op carries one.
RematPlan readRematPlan(mlir::func::FuncOp func);

/// Sets the `remat.steps` attribute of every op of `plan`.
void writeRematPlan(const RematPlan &plan);

struct RematerializeOptions {
  /// Route an operand of each clone that `cse` could merge with another
  /// computation of the same op through a `remat.barrier`.
  bool insertBarriers = true;
};

/// What applying a plan did.
struct RematerializeStats {
  /// Clones created (recomputations).
  int64_t numClones = 0;
  /// Barriers inserted.
  int64_t numBarriers = 0;
  /// Sum of the compute cost (`remat.cost`) of the clones.
  double recomputeCost = 0;
  /// `bufferization.alloc_tensor` destinations created (one per op that
  /// wrote into a shared or mergeable `tensor.empty`).
  int64_t numAllocations = 0;
  /// Whether the function changed at all. Applying any plan does (ops are
  /// reordered even without clones, `remat.steps` are dropped), so analyses
  /// such as MemoryAnalysis may be kept only when no plan was applied.
  bool changed = false;
};

/// Applies `plan` to `func`: constants move to the top of the body, every
/// planned op is cloned once per extra step, all ops are ordered by step and
/// each use reads the most recent computation of its operand before it.
/// Clones carry `remat.recomputed`. Fails with a located error, leaving the
/// function unchanged, when the plan does not cover every op, repeats a step,
/// recomputes an op with memory effects, reorders two ops with memory
/// effects, or uses a value before any step computes it.
mlir::FailureOr<RematerializeStats>
applyRematPlan(mlir::func::FuncOp func, const RematPlan &plan,
               const RematerializeOptions &options = {});

/// Reads the plan stored on `func`, applies it and drops the `remat.steps`
/// attributes. A function without `remat.steps` is left unchanged.
mlir::FailureOr<RematerializeStats>
rematerialize(mlir::func::FuncOp func,
              const RematerializeOptions &options = {});

/// Replaces every `remat.barrier` nested in `root` by its operand; with
/// `stripAttributes`, also removes every `remat.*` discardable attribute but
/// a function's dynamic-size hint; the arena its plan records, if any,
/// becomes `remat.planned_arena`.
void stripBarriers(mlir::Operation *root, bool stripAttributes = false);

} // namespace remat

#endif // REMAT_TRANSFORMS_REMATERIALIZE_H
