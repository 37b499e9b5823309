//===- Phases.cpp - forward/backward phase inference ----------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/Phases.h"

#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace remat;

std::optional<Phase> remat::getExplicitPhase(Operation *op) {
  if (auto phase = op->getAttrOfType<PhaseAttr>(RematDialect::kPhaseAttrName))
    return phase.getValue();
  return std::nullopt;
}

FailureOr<PhaseMap> remat::inferPhases(func::FuncOp func,
                                       ArrayRef<unsigned> forwardResults) {
  PhaseMap phases;
  if (func.isDeclaration())
    return phases;
  if (!func.getBody().hasOneBlock())
    return mlir::emitError(func.getLoc()) << "'func.func' op "
           << "has " << func.getBlocks().size()
           << " blocks; phase inference expects a single-block training step";

  Block &body = func.getBody().front();
  Operation *terminator = body.getTerminator();
  unsigned numResults = func.getNumResults();
  if (numResults == 0)
    return mlir::emitError(func.getLoc()) << "'func.func' op "
           << "has no results; phase inference needs the forward outputs "
              "(e.g. the loss) among the returned values";

  SmallVector<unsigned> indices(forwardResults);
  if (indices.empty())
    indices.push_back(0);
  for (unsigned index : indices)
    if (index >= numResults)
      return mlir::emitError(func.getLoc()) << "'func.func' op "
             << "has " << numResults << " result(s); forward result index "
             << index << " is out of range";

  // Backward slice, on top-level ops, of the forward outputs and of the ops
  // explicitly marked forward (anything a forward op reads is forward).
  llvm::SetVector<Operation *> forward;
  SmallVector<Operation *> worklist;
  auto visitValue = [&](Value value) {
    Operation *def = value.getDefiningOp();
    if (!def)
      return; // A function argument, or a block argument of a nested region.
    Operation *topLevel = body.findAncestorOpInBlock(*def);
    if (topLevel && topLevel != terminator && forward.insert(topLevel))
      worklist.push_back(topLevel);
  };
  for (unsigned index : indices)
    visitValue(terminator->getOperand(index));
  for (Operation &op : body.without_terminator())
    if (getExplicitPhase(&op) == Phase::Forward && forward.insert(&op))
      worklist.push_back(&op);

  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    for (Value operand : op->getOperands())
      visitValue(operand);
    if (op->getNumRegions() == 0)
      continue;
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(op->getRegions(), captured);
    for (Value value : captured)
      visitValue(value);
  }

  for (Operation &op : body.without_terminator()) {
    if (std::optional<Phase> explicitPhase = getExplicitPhase(&op))
      phases[&op] = *explicitPhase;
    else
      phases[&op] = forward.contains(&op) ? Phase::Forward : Phase::Backward;
  }
  return phases;
}

LogicalResult remat::annotatePhases(func::FuncOp func,
                                    ArrayRef<unsigned> forwardResults) {
  FailureOr<PhaseMap> phases = inferPhases(func, forwardResults);
  if (failed(phases))
    return failure();
  MLIRContext *context = func.getContext();
  for (Operation &op : func.getBody().getOps()) {
    auto it = phases->find(&op);
    if (it == phases->end() || getExplicitPhase(&op))
      continue;
    op.setAttr(RematDialect::kPhaseAttrName,
               PhaseAttr::get(context, it->second));
  }
  return success();
}
