//===- Phases.cpp - forward/backward phase inference ----------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/Phases.h"

#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

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

SmallVector<unsigned> remat::findLossCandidates(func::FuncOp func) {
  SmallVector<unsigned> floats, others;
  for (auto [index, type] : llvm::enumerate(func.getResultTypes())) {
    if (!isScalarType(type))
      continue;
    if (isa<FloatType>(getElementTypeOrSelf(type)))
      floats.push_back(index);
    else
      others.push_back(index);
  }
  return floats.empty() ? others : floats;
}

/// "#1 (tensor<f32>), #2 (tensor<f32>)": the results of `func` at `indices`.
static std::string describeResults(func::FuncOp func,
                                   ArrayRef<unsigned> indices) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(indices, os, [&](unsigned index) {
    os << "#" << index << " (" << func.getResultTypes()[index] << ")";
  });
  return text;
}

/// The inferred loss of `func` (the first loss candidate, else result 0);
/// warns on `func` when several results could be the loss.
static unsigned inferLoss(func::FuncOp func) {
  SmallVector<unsigned> candidates = findLossCandidates(func);
  if (candidates.size() > 1)
    mlir::emitWarning(func.getLoc())
        << "'func.func' op has " << candidates.size()
        << " results that could be the loss: "
        << describeResults(func, candidates) << "; taking #"
        << candidates.front()
        << ", the first (name the loss with loss=<index>, or the forward "
           "outputs with forward-results=)";
  return candidates.empty() ? 0 : candidates.front();
}

/// Checks that result `loss` of `func` exists and is a scalar.
static LogicalResult checkLoss(func::FuncOp func, int64_t loss) {
  unsigned numResults = func.getNumResults();
  if (loss < 0 || loss >= static_cast<int64_t>(numResults))
    return mlir::emitError(func.getLoc())
           << "'func.func' op has " << numResults << " result(s); loss index "
           << loss << " is out of range";
  Type type = func.getResultTypes()[loss];
  if (!isScalarType(type))
    return mlir::emitError(func.getLoc())
           << "'func.func' op result #" << loss << " (" << type
           << ") cannot be the loss: a loss is a scalar (a 0-d tensor or an "
              "integer/float)";
  return success();
}

FailureOr<SmallVector<unsigned>>
remat::resolveForwardOutputs(func::FuncOp func, const ForwardOutputs &outputs) {
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
  for (unsigned index : outputs.results)
    if (index >= numResults)
      return mlir::emitError(func.getLoc())
             << "'func.func' op "
             << "has " << numResults << " result(s); forward result index "
             << index << " is out of range";
  if (outputs.loss && failed(checkLoss(func, *outputs.loss)))
    return failure();
  SmallVector<unsigned> indices(outputs.results);
  if (outputs.loss)
    indices.push_back(*outputs.loss);
  if (indices.empty())
    indices.push_back(inferLoss(func));
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

/// The phase of every top-level op of `body` when the results at `indices`
/// are the forward outputs.
static PhaseMap computePhases(Block &body, ArrayRef<unsigned> indices) {
  llvm::SetVector<Operation *> forward =
      computeForwardSlice(body, indices, /*seedExplicit=*/true);
  PhaseMap phases;
  for (Operation &op : body.without_terminator()) {
    if (std::optional<Phase> explicitPhase = getExplicitPhase(&op))
      phases[&op] = *explicitPhase;
    else
      phases[&op] = forward.contains(&op) ? Phase::Forward : Phase::Backward;
  }
  return phases;
}

FailureOr<PhaseMap> remat::inferPhases(func::FuncOp func,
                                       const ForwardOutputs &outputs) {
  if (func.isDeclaration())
    return PhaseMap();
  FailureOr<SmallVector<unsigned>> indices =
      resolveForwardOutputs(func, outputs);
  if (failed(indices))
    return failure();
  return computePhases(func.getBody().front(), *indices);
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
                                    const ForwardOutputs &outputs) {
  if (func.isDeclaration())
    return success();
  FailureOr<SmallVector<unsigned>> indices =
      resolveForwardOutputs(func, outputs);
  if (failed(indices))
    return failure();
  warnContradictingMarks(func, *indices);
  Block &body = func.getBody().front();
  PhaseMap phases = computePhases(body, *indices);
  MLIRContext *context = func.getContext();
  for (Operation &op : body.without_terminator())
    if (!getExplicitPhase(&op))
      op.setAttr(RematDialect::kPhaseAttrName,
                 PhaseAttr::get(context, phases.lookup(&op)));
  return success();
}
