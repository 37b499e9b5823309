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
// values that ForwardOutputs names (the loss and any further results), or,
// when it names none, the inferred loss (findLossCandidates: the first
// floating-point scalar result; a warning names the others that could be the
// loss), plus every op explicitly marked `#remat.phase<forward>`. Every other
// top-level op (except the terminator) is backward. Explicit `remat.phase`
// marks always win: an op keeps its mark whatever the inference says
// (annotatePhases warns where a mark contradicts what the forward outputs
// alone imply). Ops nested in regions are not classified: they belong to the
// phase of their top-level ancestor.
//
// Usage:
//
//   ForwardOutputs outputs;
//   outputs.loss = 2; // (w', b', loss): result 2 is the loss
//   FailureOr<PhaseMap> phases = inferPhases(func, outputs);
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
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>

namespace remat {

/// The phase of each top-level, non-terminator op of a function body.
using PhaseMap = llvm::DenseMap<mlir::Operation *, Phase>;

/// Returns the phase of `op` from its `remat.phase` attribute, if it has one.
std::optional<Phase> getExplicitPhase(mlir::Operation *op);

/// Which results of a training step are its forward outputs: the results
/// whose computation is the forward pass (every op they depend on is
/// forward). The other results are outputs of the backward pass and update.
struct ForwardOutputs {
  /// The index of the loss result, which must be a scalar (a 0-d tensor or
  /// an integer/float/index). None: not named.
  std::optional<int64_t> loss;
  /// Indices of further forward outputs (a metric next to the loss, an
  /// activation returned for inspection).
  llvm::SmallVector<unsigned> results;
};

/// The results of `func` that could be its loss: its floating-point scalar
/// results (0-d float tensors, floats), or, when it has none, its integer and
/// index scalar results (a counter such as num_batches_tracked is no loss
/// next to a float). The inferred loss is the first of them.
llvm::SmallVector<unsigned> findLossCandidates(mlir::func::FuncOp func);

/// The indices of the forward outputs of `func` that `outputs` names: its
/// loss and results; when it names neither, the inferred loss (the first of
/// findLossCandidates, else result 0), with a warning on `func` naming the
/// candidates when there are several. Fails with a located error on `func`
/// if its body has more than one block, it has no results, an index is out
/// of range or the named loss is not a scalar.
mlir::FailureOr<llvm::SmallVector<unsigned>>
resolveForwardOutputs(mlir::func::FuncOp func, const ForwardOutputs &outputs);

/// Infers the phase of every top-level op of `func`'s body (see the file
/// comment), after resolveForwardOutputs (whose errors and warning it
/// emits). A declaration has no ops: the result is empty. Does not modify
/// the IR.
mlir::FailureOr<PhaseMap> inferPhases(mlir::func::FuncOp func,
                                      const ForwardOutputs &outputs);

/// Runs inferPhases and records each inferred phase as a `remat.phase`
/// attribute on ops that have none. Warns at each op whose explicit mark
/// contradicts what the forward outputs alone imply (an op marked backward
/// that they depend on, or one marked forward that they do not).
mlir::LogicalResult annotatePhases(mlir::func::FuncOp func,
                                   const ForwardOutputs &outputs);

} // namespace remat

#endif // REMAT_ANALYSIS_PHASES_H
