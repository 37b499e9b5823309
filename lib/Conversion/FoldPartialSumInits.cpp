//===- FoldPartialSumInits.cpp - drop rank-dependent zero inits -----------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Implements `remat-fold-partial-sum-inits`: upstream shard-partition gives a
// reduction over a split dimension the original init on one rank and the
// neutral element elsewhere, through an `scf.if` on the process index. When
// the init already is that neutral element (a fill of the same constant),
// both branches are the same value and the `scf.if` only costs memory.
//
//===----------------------------------------------------------------------===//

#include "remat/Conversion/Passes.h"

#include "mlir/IR/Matchers.h"

namespace remat {
#define GEN_PASS_DEF_REMATFOLDPARTIALSUMINITS
#include "remat/Conversion/Passes.h.inc"
} // namespace remat

using namespace mlir;

namespace {

struct RematFoldPartialSumInitsPass
    : public remat::impl::RematFoldPartialSumInitsBase<
          RematFoldPartialSumInitsPass> {
  void runOnOperation() override { remat::foldPartialSumInits(getOperation()); }
};

/// The constant a `linalg.fill` of `value` writes, or null.
Attribute getFillConstant(Value value) {
  auto fill = value.getDefiningOp<linalg::FillOp>();
  Attribute constant;
  if (!fill || !matchPattern(fill.getInputs()[0], m_Constant(&constant)))
    return nullptr;
  return constant;
}

/// The value both branches of `ifOp` (one result) yield, when the then
/// branch yields a fill of a constant defined above and the else branch
/// only fills a new tensor with the same constant; else null.
Value getSameFill(scf::IfOp ifOp) {
  if (ifOp.getNumResults() != 1 || ifOp.getElseRegion().empty())
    return nullptr;
  Block *thenBlock = ifOp.thenBlock(), *elseBlock = ifOp.elseBlock();
  if (!llvm::hasSingleElement(*thenBlock))
    return nullptr;
  Value init = thenBlock->getTerminator()->getOperand(0);
  Value neutral = elseBlock->getTerminator()->getOperand(0);
  if (init.getType() != neutral.getType())
    return nullptr;
  for (Operation &op : elseBlock->without_terminator())
    if (!isa<tensor::EmptyOp, arith::ConstantOp, linalg::FillOp>(op))
      return nullptr;
  Attribute constant = getFillConstant(init);
  if (!constant || constant != getFillConstant(neutral))
    return nullptr;
  return init;
}

} // namespace

unsigned remat::foldPartialSumInits(func::FuncOp func) {
  SmallVector<std::pair<scf::IfOp, Value>> folds;
  func.walk([&](scf::IfOp ifOp) {
    if (Value init = getSameFill(ifOp))
      folds.push_back({ifOp, init});
  });
  for (auto [ifOp, init] : folds) {
    ifOp.getResult(0).replaceAllUsesWith(init);
    ifOp.erase();
  }
  return folds.size();
}
