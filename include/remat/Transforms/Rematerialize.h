//===- Rematerialize.h - apply rematerialization plans -----------*- C++
//-*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The mechanism of rematerialization, as public functions the passes are
// thin shells over (the policy, `selectCheckpoints`, which records a plan,
// is in SelectCheckpoints.h):
//
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

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallVector.h"

namespace remat {

//===----------------------------------------------------------------------===//
// Plan application
//===----------------------------------------------------------------------===//

/// A plan read from or written to IR: for each planned op, the strictly
/// increasing schedule steps at which it is computed. The first step is the
/// original computation; each further step is a recomputation.
struct RematPlan {
  llvm::MapVector<mlir::Operation *, llvm::SmallVector<int64_t>> steps;
  /// The values the plan offloads to host memory (docs/Offload.md), as
  /// `remat.offloads`: triples (a, w, p) of compute steps, the value of the
  /// op computed last at or before step a offloaded after it, waited for
  /// right before step w (before w's prefetches) and prefetched right
  /// before step p.
  llvm::MapVector<mlir::Operation *, llvm::SmallVector<int64_t>> offloads;
};

/// Reads the `remat.steps` (and `remat.offloads`) attributes of `func`'s
/// body. Returns an empty plan when no op carries one.
RematPlan readRematPlan(mlir::func::FuncOp func);

/// Sets the `remat.steps` and `remat.offloads` attributes of every op of
/// `plan`.
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
  /// Values offloaded to host memory and prefetched back (pairs of
  /// `remat.offload` and `remat.prefetch`).
  int64_t numOffloads = 0;
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
/// Clones carry `remat.recomputed`; an offloaded value goes through a
/// `remat.offload` after its step and a `remat.prefetch` before the next use.
/// Fails with a located error, leaving the
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
