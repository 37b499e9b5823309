//===- IndexBounds.cpp - integer inputs that index tensors ----------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Runner/IndexBounds.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Runner/Inputs.h"
#include "remat/Runner/RunnerError.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace remat;

namespace {
/// Follows the values of one integer argument, all in [0, bound), to the
/// indices they become, and reports every index into a smaller dimension.
class IndexTracker {
public:
  IndexTracker(func::FuncOp entry, BlockArgument arg, const ValueSpec &spec)
      : entry(entry), arg(arg), spec(spec), bound(getInputBound(spec)) {}

  /// Fails when some index may lie past its dimension (diagnosed).
  LogicalResult run();

private:
  void follow(Value value);
  LogicalResult visitUse(OpOperand &use);
  LogicalResult checkIndex(Operation *op, Type indexed, unsigned dim);
  bool isNegativeWrap(arith::SelectOp select, Value value);

  func::FuncOp entry;
  BlockArgument arg;
  const ValueSpec &spec;
  int64_t bound;
  SmallVector<Value> worklist;
  llvm::DenseSet<Value> seen;
};
} // namespace

LogicalResult IndexTracker::run() {
  follow(arg);
  bool ok = true;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses())
      ok &= succeeded(visitUse(use));
  }
  return success(ok);
}

void IndexTracker::follow(Value value) {
  if (seen.insert(value).second)
    worklist.push_back(value);
}

/// Whether `select` is `select(value < 0, value + n, value)`: PyTorch's
/// negative index counted from the end, which is `value` itself for the
/// non-negative values of an argument.
bool IndexTracker::isNegativeWrap(arith::SelectOp select, Value value) {
  auto compare = select.getCondition().getDefiningOp<arith::CmpIOp>();
  return compare && select.getFalseValue() == value &&
         compare.getPredicate() == arith::CmpIPredicate::slt &&
         compare.getLhs() == value && isZeroInteger(compare.getRhs());
}

LogicalResult IndexTracker::visitUse(OpOperand &use) {
  Operation *user = use.getOwner();
  unsigned n = use.getOperandNumber();
  return llvm::TypeSwitch<Operation *, LogicalResult>(user)
      .Case<tensor::CollapseShapeOp, tensor::ExpandShapeOp, tensor::ReshapeOp,
            tensor::CastOp, tensor::ExtractSliceOp, arith::IndexCastOp,
            arith::IndexCastUIOp, arith::ExtSIOp, arith::ExtUIOp>(
          [&](Operation *op) {
            if (n == 0)
              follow(op->getResult(0));
            return success();
          })
      .Case([&](tensor::ExtractOp op) {
        if (n == 0) {
          follow(op.getResult());
          return success();
        }
        return checkIndex(op, op.getTensor().getType(), n - 1);
      })
      .Case([&](tensor::InsertOp op) {
        return n < 2 ? success()
                     : checkIndex(op, op.getDest().getType(), n - 2);
      })
      .Case([&](memref::LoadOp op) {
        return n == 0 ? success()
                      : checkIndex(op, op.getMemRef().getType(), n - 1);
      })
      .Case([&](linalg::LinalgOp op) {
        if (BlockArgument payload = op.getMatchingBlockArgument(&use))
          follow(payload);
        return success();
      })
      .Case([&](linalg::YieldOp op) {
        if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op->getParentOp()))
          if (n < linalgOp->getNumResults())
            follow(linalgOp->getResult(n));
        return success();
      })
      .Case([&](arith::SelectOp op) {
        if (isNegativeWrap(op, use.get()))
          follow(op.getResult());
        return success();
      })
      .Default([](Operation *) { return success(); });
}

LogicalResult IndexTracker::checkIndex(Operation *op, Type indexed,
                                       unsigned dim) {
  auto shaped = cast<ShapedType>(indexed);
  if (shaped.isDynamicDim(dim) || bound <= shaped.getDimSize(dim))
    return success();
  InFlightDiagnostic diag =
      mlir::emitError(op->getLoc())
      << "argument #" << arg.getArgNumber() << " of '" << entry.getName()
      << "' indexes dimension " << dim << " of " << indexed << " ("
      << shaped.getDimSize(dim) << " elements) with values up to " << bound - 1
      << ": the step would read out of bounds";
  // At the argument when it has a place in the file (the importer's are
  // named, `loc("idx")`), else at the function.
  Location argLoc = arg.getLoc();
  if (!argLoc->findInstanceOf<FileLineColLoc>())
    argLoc = entry.getLoc();
  std::string high = RematDialect::kHighAttrName.str();
  diag.attachNote(argLoc) << "argument #" << arg.getArgNumber()
                          << " is drawn from [0, " << bound << ") ("
                          << (spec.high ? "its '" + high + "'"
                                        : "integers without '" + high + "'")
                          << "); give it a '" << high << "' of at most "
                          << shaped.getDimSize(dim);
  return failure();
}

llvm::Error remat::checkIndexBounds(func::FuncOp entry,
                                    ArrayRef<ValueSpec> argSpecs) {
  bool ok = true;
  for (auto [arg, spec] : llvm::zip(entry.getArguments(), argSpecs))
    if (spec.kind == ElemKind::I32 || spec.kind == ElemKind::I64)
      ok &= succeeded(IndexTracker(entry, arg, spec).run());
  if (ok)
    return llvm::Error::success();
  return makeRunnerError("'" + entry.getName() +
                         "' would index out of bounds with its inputs (see "
                         "the diagnostics above)");
}
