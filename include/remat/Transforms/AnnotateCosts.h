//===- AnnotateCosts.h - cost and size-guard annotations --------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The IR rewrites behind `remat-annotate-costs`: the cost model
// (Analysis/CostModel.h) answers queries and changes nothing; these
// functions write its answers onto the IR (`remat.cost` on every
// tensor-producing op) and guard a function planned for a dynamic-size hint
// (`remat.dynamic_size_hint`, `cf.assert` on each dynamic dimension).
//
// Usage:
//
//   CostModelOptions options;
//   options.dynamicSizeHint = 128;
//   guardDynamicSizes(func, 128);
//   if (failed(annotateCosts(func, options)))
//     return failure(); // a located error was emitted on each bad op
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TRANSFORMS_ANNOTATECOSTS_H
#define REMAT_TRANSFORMS_ANNOTATECOSTS_H

#include "remat/Analysis/CostModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

namespace remat {

/// Attaches `remat.cost` to every tensor-producing op nested in `root`. An op
/// that already has one keeps it (and fails, with a located error, when it
/// understates a result: getUnderstatedCostBytes); with a device in `options`,
/// every cost without a `roofline_ps` gets one (from its FLOPs); with a
/// `profile`, every matched op's cost gets the measured `time_ns`. Visits every
/// op even after an error, so that all unsupported ops are reported; fails if
/// any was.
mlir::LogicalResult annotateCosts(mlir::Operation *root,
                                  const CostModelOptions &options,
                                  const CostProfile *profile = nullptr);

/// If `func` has a tensor argument of dynamic shape, records `hint` on it
/// (`remat.dynamic_size_hint`) and, at the top of its body, checks every
/// dynamic dimension of its ranked tensor arguments at run time: `cf.assert`
/// that `tensor.dim` is at most `hint`, with a message naming the argument and
/// dimension, so that a program planned for sizes up to the hint says so when
/// it gets larger ones. The asserts are marked
/// `#remat.phase<forward>` so that a schedule keeps them at the start. Does
/// nothing on a declaration or when `func` already records a hint.
void guardDynamicSizes(mlir::func::FuncOp func, int64_t hint);

/// Moves the dynamic-size hint of `func` (guarded by guardDynamicSizes) to
/// `hint`: its guards then check the new bound, and every op's `remat.cost`
/// is computed again for it (model costs: measured times are not kept; an op
/// the model does not know gets the `allowUnknown` fallback; predicted times
/// for the device `remat.cost_device` names, if any). The
/// max-batch plan mode uses it to plan for the batch it found. Fails, with a
/// located error, when `func` records no hint.
mlir::LogicalResult resizeDynamicSizes(mlir::func::FuncOp func, int64_t hint);

} // namespace remat

#endif // REMAT_TRANSFORMS_ANNOTATECOSTS_H
