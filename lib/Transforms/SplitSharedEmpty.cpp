//===- SplitSharedEmpty.cpp - one tensor.empty per destination ------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The `remat-split-shared-empty` pass: a thin shell over
// remat::splitSharedEmpties.
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/Passes.h"

namespace remat {
#define GEN_PASS_DEF_REMATSPLITSHAREDEMPTY
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;

/// Gives each use of `empty` its own clone, right before the op of the
/// empty's block that holds the use, and erases `empty`.
static void splitEmpty(tensor::EmptyOp empty, OpBuilder &builder) {
  Block *block = empty->getBlock();
  for (OpOperand &use : llvm::make_early_inc_range(empty->getUses())) {
    builder.setInsertionPoint(block->findAncestorOpInBlock(*use.getOwner()));
    use.set(builder.clone(*empty)->getResult(0));
  }
  empty.erase();
}

unsigned remat::splitSharedEmpties(Operation *root) {
  SmallVector<tensor::EmptyOp> shared;
  root->walk([&](tensor::EmptyOp empty) {
    if (!empty->use_empty() && !empty->hasOneUse())
      shared.push_back(empty);
  });
  OpBuilder builder(root->getContext());
  for (tensor::EmptyOp empty : shared)
    splitEmpty(empty, builder);
  return shared.size();
}

namespace {
struct SplitSharedEmptyPass
    : public remat::impl::RematSplitSharedEmptyBase<SplitSharedEmptyPass> {
  void runOnOperation() override {
    if (remat::splitSharedEmpties(getOperation()) == 0)
      markAllAnalysesPreserved();
  }
};
} // namespace
