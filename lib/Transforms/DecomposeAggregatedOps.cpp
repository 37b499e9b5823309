//===- DecomposeAggregatedOps.cpp - decompose linalg.softmax & co ---------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The `remat-decompose-aggregated-ops` pass: a thin shell over
// remat::decomposeAggregatedOps, which applies the upstream
// AggregatedOpInterface::decomposeOperation to every op that implements it.
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace remat {
#define GEN_PASS_DEF_REMATDECOMPOSEAGGREGATEDOPS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;

LogicalResult remat::decomposeAggregatedOps(Operation *root) {
  SmallVector<linalg::AggregatedOpInterface> aggregated;
  root->walk(
      [&](linalg::AggregatedOpInterface op) { aggregated.push_back(op); });
  IRRewriter rewriter(root->getContext());
  for (linalg::AggregatedOpInterface op : aggregated) {
    rewriter.setInsertionPoint(op);
    FailureOr<SmallVector<Value>> results = op.decomposeOperation(rewriter);
    if (failed(results))
      return op->emitOpError() << "could not be decomposed into linalg ops";
    rewriter.replaceOp(op, *results);
  }
  return success();
}

namespace {
struct DecomposeAggregatedOpsPass
    : public remat::impl::RematDecomposeAggregatedOpsBase<
          DecomposeAggregatedOpsPass> {
  void runOnOperation() override {
    if (failed(remat::decomposeAggregatedOps(getOperation())))
      signalPassFailure();
  }
};
} // namespace
