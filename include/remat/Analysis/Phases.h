//===- Phases.h - forward/backward phase inference --------------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Splits a training step (one func.func holding the forward pass, the
// backward pass and the update on tensors) into its forward and backward
// phases.
//
// The forward phase is the set of top-level ops of the function body that the
// forward outputs depend on, transitively through operands and through values
// that their regions capture from above. The forward outputs are the returned
// values at the given result indices (by default the loss: the first result
// that is a scalar, i.e. a 0-d tensor or an integer/float, wherever it is
// among the results; result 0 if none is) plus every op explicitly marked
// `#remat.phase<forward>`. Every other top-level op
// (except the terminator) is backward. Explicit `remat.phase` marks always
// win: an op keeps its mark whatever the inference says (annotatePhases warns
// where a mark contradicts what the forward outputs alone imply). Ops nested in
// regions are not classified: they belong to the phase of their top-level
// ancestor.
//
// Usage:
//
//   FailureOr<PhaseMap> phases = inferPhases(func, /*forwardResults=*/{0});
//   if (failed(phases))
//     return failure(); // a located error was emitted on `func`
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_ANALYSIS_PHASES_H
#define REMAT_ANALYSIS_PHASES_H

#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"

namespace remat {

/// The phase of each top-level, non-terminator op of a function body.
using PhaseMap = llvm::DenseMap<mlir::Operation *, Phase>;

/// Returns the phase of `op` from its `remat.phase` attribute, if it has one.
std::optional<Phase> getExplicitPhase(mlir::Operation *op);

/// The index of the result of `func` taken as the loss: its first scalar
/// result (a 0-d tensor or an integer/float/index), or 0 if none is scalar.
unsigned findLossResult(mlir::func::FuncOp func);

/// Infers the phase of every top-level op of `func`'s body (see the file
/// comment). `forwardResults` are indices into the function's results; an
/// empty list means {findLossResult(func)}. A declaration has no ops: the
/// result is empty. Fails with a located error on `func` if its body has more
/// than one block, it has no results, or an index is out of range. Does not
/// modify the IR.
mlir::FailureOr<PhaseMap> inferPhases(mlir::func::FuncOp func,
                                      llvm::ArrayRef<unsigned> forwardResults);

/// Runs inferPhases and records each inferred phase as a `remat.phase`
/// attribute on ops that have none. Warns at each op whose explicit mark
/// contradicts what the forward outputs alone imply (an op marked backward
/// that they depend on, or one marked forward that they do not).
mlir::LogicalResult annotatePhases(mlir::func::FuncOp func,
                                   llvm::ArrayRef<unsigned> forwardResults);

} // namespace remat

#endif // REMAT_ANALYSIS_PHASES_H
