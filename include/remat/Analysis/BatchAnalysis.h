//===- BatchAnalysis.h - which values carry the batch -----------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Follows the batch dimension of a training step from its data arguments
// through its ops, so that the problem graph can say which bytes and which
// work grow with the batch (Solver/Core/Problem.h, "Batch scaling"; the rules are
// in docs/Rematerialization.md, "Batch scaling from IR shapes").
//
// The batch is the leading dimension of every ranked tensor among the data
// arguments (isDataArgument: those marked `remat.data`, else the first
// `numDataArgs`); they must agree on its size (static, or the
// dynamic-size hint for `?`). Each tensor value then carries the batch in one
// dimension, carries none (parameters, their gradients, reductions over the
// batch), or scales in a dimension the analysis cannot name:
//   * Linalg ops: the loop that an operand's batch dimension indexes is the
//     batch loop; a result carries the batch where its indexing map has that
//     loop, and none when the loop is reduced away. The work scales when the
//     op has a batch loop. A result that carries the batch makes its init
//     carry it too (a `linalg.fill` of a static `tensor.empty`).
//   * `tensor.dim` of the batch dimension is the batch size, and a
//     `tensor.empty` sized by it carries the batch there.
//   * Elementwise ops, `tensor.cast`, `remat.barrier`, reshapes (the group
//     holding the batch; expand_shape: its outermost non-unit dimension),
//     `tensor.insert_slice` (its destination) and `tensor.extract_slice`
//     that keeps the batch dimension whole keep the dimension.
//   * Any other op (region ops included) with an operand that carries the
//     batch gives all its tensor results "scales, dimension unknown": they
//     are counted as growing with the batch, which may overestimate memory
//     but never underestimates it; ops fed by them inherit that state.
//
// Usage:
//   BatchAnalysis batch(func, /*numDataArgs=*/1, getDynamicSizeHint(func));
//   if (batch.getBatchSize() == 0) ... batch.getProblem() says why ...
//   if (batch.scales(value)) ...
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_ANALYSIS_BATCHANALYSIS_H
#define REMAT_ANALYSIS_BATCHANALYSIS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>
#include <string>

namespace remat {

/// The argument attribute that marks a data argument (input, labels, masks:
/// values with a leading batch dimension), for steps whose data arguments do
/// not come first.
inline constexpr llvm::StringLiteral kDataArgAttrName = "remat.data";

/// Whether argument `argNumber` of `func` holds data: when any argument is
/// marked `remat.data`, exactly the marked ones; otherwise the first
/// `numDataArgs` (the passes' `data-args` option).
bool isDataArgument(mlir::func::FuncOp func, unsigned argNumber,
                    unsigned numDataArgs);

class BatchAnalysis {
public:
  /// The state of a value that does not carry the batch.
  static constexpr int kFixed = -1;
  /// The state of a value that scales with the batch in a dimension the
  /// analysis cannot name.
  static constexpr int kUnknownDim = -2;

  /// Analyses the entry block of `func`, whose dynamic dimensions are
  /// `dynamicSize` (the dynamic-size hint) when given.
  BatchAnalysis(mlir::func::FuncOp func, unsigned numDataArgs,
                std::optional<int64_t> dynamicSize);

  /// Samples in the batch the IR's shapes describe; 0 when the step has no
  /// batch (`getProblem` says why).
  int64_t getBatchSize() const { return batchSize; }
  /// Why the step has no batch; empty when it has one.
  const std::string &getProblem() const { return problem; }

  /// The dimension of `value` that carries the batch, kFixed or
  /// kUnknownDim.
  int getBatchDim(mlir::Value value) const;
  /// Whether `value`'s size grows with the batch.
  bool scales(mlir::Value value) const { return getBatchDim(value) != kFixed; }
  /// Whether the work of `op` (one op of the entry block) grows with the
  /// batch.
  bool scalesWork(mlir::Operation *op) const { return scaledWork.contains(op); }

private:
  void seedArguments(mlir::func::FuncOp func, unsigned numDataArgs,
                     std::optional<int64_t> dynamicSize);
  /// Forward rules on `op`; returns whether a state changed.
  bool visitForward(mlir::Operation *op);
  /// The init rule on a linalg op; returns whether a state changed.
  bool visitBackward(mlir::Operation *op);
  /// Joins `dim` into the state of `value`; returns whether it changed.
  bool join(mlir::Value value, int dim);

  int64_t batchSize = 0;
  std::string problem;
  llvm::DenseMap<mlir::Value, int> dims;
  /// Index values equal to the batch size (`tensor.dim` of a batch dim).
  llvm::DenseSet<mlir::Value> batchSizes;
  llvm::DenseSet<mlir::Operation *> scaledWork;
};

} // namespace remat

#endif // REMAT_ANALYSIS_BATCHANALYSIS_H
