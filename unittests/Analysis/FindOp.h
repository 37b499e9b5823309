//===- FindOp.h - the first op of a name in parsed test IR ------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_UNITTESTS_ANALYSIS_FINDOP_H
#define REMAT_UNITTESTS_ANALYSIS_FINDOP_H

#include "mlir/IR/Operation.h"

namespace remat::test {

/// The first op named `name` under `root` (pre-order walk), or null.
inline mlir::Operation *findFirstOp(mlir::Operation *root,
                                    llvm::StringRef name) {
  mlir::Operation *found = nullptr;
  root->walk<mlir::WalkOrder::PreOrder>([&](mlir::Operation *op) {
    if (op->getName().getStringRef() != name)
      return mlir::WalkResult::advance();
    found = op;
    return mlir::WalkResult::interrupt();
  });
  return found;
}

} // namespace remat::test

#endif // REMAT_UNITTESTS_ANALYSIS_FINDOP_H
