//===- Phases.cpp - forward/backward phase inference ----------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/Phases.h"

#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

#include <string>

using namespace mlir;
using namespace remat;

std::optional<Phase> remat::getExplicitPhase(Operation *op) {
  if (auto phase = op->getAttrOfType<PhaseAttr>(RematDialect::kPhaseAttrName))
    return phase.getValue();
  return std::nullopt;
}

/// Whether `type` is a scalar: a 0-d tensor or an integer/float/index value,
/// as a loss is.
static bool isScalarType(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getRank() == 0;
  return type.isIntOrIndexOrFloat();
}

unsigned remat::findLossResult(func::FuncOp func) {
  for (auto [index, type] : llvm::enumerate(func.getResultTypes()))
    if (isScalarType(type))
      return index;
  return 0;
}

/// Checks `func` and returns the forward result indices: `forwardResults`, or
/// the loss when it is empty.
static FailureOr<SmallVector<unsigned>>
getForwardResults(func::FuncOp func, ArrayRef<unsigned> forwardResults) {
  if (!func.getBody().hasOneBlock())
    return mlir::emitError(func.getLoc())
           << "'func.func' op "
           << "has " << func.getBlocks().size()
           << " blocks; phase inference expects a single-block training step";
  unsigned numResults = func.getNumResults();
  if (numResults == 0)
    return mlir::emitError(func.getLoc())
           << "'func.func' op "
           << "has no results; phase inference needs the forward outputs "
              "(e.g. the loss) among the returned values";
  SmallVector<unsigned> indices(forwardResults);
  if (indices.empty())
    indices.push_back(findLossResult(func));
  for (unsigned index : indices)
    if (index >= numResults)
      return mlir::emitError(func.getLoc()) << "'func.func' op "
             << "has " << numResults << " result(s); forward result index "
             << index << " is out of range";
  return indices;
}

/// The top-level ops of `body` that the results at `indices` depend on,
/// through operands and values captured by regions; with `seedExplicit`, also
/// those the ops explicitly marked forward depend on (and those ops).
static llvm::SetVector<Operation *>
computeForwardSlice(Block &body, ArrayRef<unsigned> indices,
                    bool seedExplicit) {
  Operation *terminator = body.getTerminator();
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
  if (seedExplicit)
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
  return forward;
}

FailureOr<PhaseMap> remat::inferPhases(func::FuncOp func,
                                       ArrayRef<unsigned> forwardResults) {
  PhaseMap phases;
  if (func.isDeclaration())
    return phases;
  FailureOr<SmallVector<unsigned>> indices =
      getForwardResults(func, forwardResults);
  if (failed(indices))
    return failure();
  Block &body = func.getBody().front();
  llvm::SetVector<Operation *> forward =
      computeForwardSlice(body, *indices, /*seedExplicit=*/true);
  for (Operation &op : body.without_terminator()) {
    if (std::optional<Phase> explicitPhase = getExplicitPhase(&op))
      phases[&op] = *explicitPhase;
    else
      phases[&op] = forward.contains(&op) ? Phase::Forward : Phase::Backward;
  }
  return phases;
}

/// Warns at every op whose explicit `remat.phase` differs from what the
/// forward outputs at `indices` alone imply.
static void warnContradictingMarks(func::FuncOp func,
                                   ArrayRef<unsigned> indices) {
  Block &body = func.getBody().front();
  llvm::SetVector<Operation *> inferred =
      computeForwardSlice(body, indices, /*seedExplicit=*/false);
  std::string outputs = llvm::join(
      llvm::map_range(
          indices, [](unsigned index) { return "#" + std::to_string(index); }),
      ", ");
  for (Operation &op : body.without_terminator()) {
    // An op without results (an assert, a store) can never be something
    // the outputs depend on: a forward mark is the only way to place it.
    std::optional<Phase> explicitPhase = getExplicitPhase(&op);
    if (!explicitPhase || op.getNumResults() == 0)
      continue;
    bool isForward = inferred.contains(&op);
    if ((*explicitPhase == Phase::Forward) == isForward)
      continue;
    op.emitWarning() << "explicit remat.phase<"
                     << (isForward ? "backward" : "forward")
                     << "> contradicts phase inference: forward output(s) "
                     << outputs << " of the function "
                     << (isForward ? "depend" : "do not depend")
                     << " on this op; keeping the explicit mark";
  }
}

LogicalResult remat::annotatePhases(func::FuncOp func,
                                    ArrayRef<unsigned> forwardResults) {
  FailureOr<PhaseMap> phases = inferPhases(func, forwardResults);
  if (failed(phases))
    return failure();
  if (func.isDeclaration())
    return success();
  SmallVector<unsigned> indices(forwardResults);
  if (indices.empty())
    indices.push_back(findLossResult(func));
  warnContradictingMarks(func, indices);
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
