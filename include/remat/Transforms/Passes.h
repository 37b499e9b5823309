//===- Passes.h - remat-opt passes ------------------------------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TRANSFORMS_PASSES_H
#define REMAT_TRANSFORMS_PASSES_H

#include "remat/Analysis/Communication.h"
#include "remat/Analysis/Roofline.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Solver/Search/ModeOption.h"
#include "remat/Transforms/PlanArena.h"
#include "remat/Transforms/Rematerialize.h"
#include "remat/Transforms/SelectCheckpoints.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace remat {

/// Replaces every op nested in `root` that implements
/// linalg::AggregatedOpInterface (e.g. linalg.softmax) by its upstream
/// decomposition into linalg.generic ops. Fails, with an error at the op,
/// where a decomposition fails.
mlir::LogicalResult decomposeAggregatedOps(mlir::Operation *root);

/// Gives every use of a `tensor.empty` nested in `root` that has several
/// uses its own clone, right before the op of the empty's block holding the
/// use, and erases the shared one (remat-split-shared-empty). Returns how
/// many empties it split.
unsigned splitSharedEmpties(mlir::Operation *root);

/// Moves the only free of each buffer of `func` right after the last op of
/// the buffer's block that uses it or a value that may alias it, values of
/// scalar types aside (remat-free-after-last-use).
void freeAfterLastUse(mlir::func::FuncOp func);

#define GEN_PASS_DECL
#include "remat/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "remat/Transforms/Passes.h.inc"

} // namespace remat

#endif // REMAT_TRANSFORMS_PASSES_H
