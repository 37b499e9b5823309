//===- BatchAnalysis.cpp - which values carry the batch -------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/BatchAnalysis.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace remat;

namespace {
/// What an op does with the batch: the state of each result and whether
/// its work grows with the batch.
struct Transfer {
  SmallVector<int> results;
  bool work = false;
};
} // namespace

/// Joins two states: kFixed < a dimension < kUnknownDim; two different
/// dimensions join to kUnknownDim.
static int joinDims(int a, int b) {
  if (a == BatchAnalysis::kFixed)
    return b;
  if (b == BatchAnalysis::kFixed || a == b)
    return a;
  return BatchAnalysis::kUnknownDim;
}

BatchAnalysis::BatchAnalysis(func::FuncOp func, unsigned numDataArgs,
                             std::optional<int64_t> dynamicSize) {
  seedArguments(func, numDataArgs, dynamicSize);
  if (batchSize == 0 || func.isExternal())
    return;
  Block &body = func.getBody().front();
  // Every change raises a state in a finite lattice: this ends.
  bool changed = true;
  while (changed) {
    changed = false;
    for (Operation &op : body.without_terminator())
      changed |= visitForward(&op);
    for (Operation &op : llvm::reverse(body.without_terminator()))
      changed |= visitBackward(&op);
  }
}

bool remat::isDataArgument(func::FuncOp func, unsigned argNumber,
                           unsigned numDataArgs) {
  bool anyMarked = false;
  for (unsigned i = 0, e = func.getNumArguments(); i < e && !anyMarked; ++i)
    anyMarked = static_cast<bool>(func.getArgAttr(i, kDataArgAttrName));
  if (anyMarked)
    return static_cast<bool>(func.getArgAttr(argNumber, kDataArgAttrName));
  return argNumber < numDataArgs;
}

void BatchAnalysis::seedArguments(func::FuncOp func, unsigned numDataArgs,
                                  std::optional<int64_t> dynamicSize) {
  if (func.isExternal()) {
    problem = "the function has no body";
    return;
  }
  Block &body = func.getBody().front();
  SmallVector<BlockArgument> carriers;
  for (BlockArgument arg : body.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!isDataArgument(func, arg.getArgNumber(), numDataArgs) || !type ||
        type.getRank() == 0)
      continue;
    int64_t size = type.getDimSize(0);
    if (ShapedType::isDynamic(size)) {
      if (!dynamicSize) {
        problem = "the batch dimension of argument #" +
                  std::to_string(arg.getArgNumber()) +
                  " is dynamic and no dynamic-size hint sizes it";
        return;
      }
      size = *dynamicSize;
    }
    if (batchSize != 0 && size != batchSize) {
      problem = "the data arguments disagree on the batch size (" +
                std::to_string(batchSize) + " vs " + std::to_string(size) +
                " in argument #" + std::to_string(arg.getArgNumber()) + ")";
      batchSize = 0;
      return;
    }
    batchSize = size;
    carriers.push_back(arg);
  }
  if (carriers.empty()) {
    problem = "no data argument (data-args=" + std::to_string(numDataArgs) +
              " or arguments marked remat.data) is a tensor with a leading "
              "batch dimension";
    return;
  }
  if (batchSize <= 0) {
    problem = "the batch dimension has size 0";
    batchSize = 0;
    return;
  }
  for (BlockArgument arg : carriers)
    dims[arg] = 0;
}

int BatchAnalysis::getBatchDim(Value value) const {
  auto it = dims.find(value);
  return it == dims.end() ? kFixed : it->second;
}

bool BatchAnalysis::join(Value value, int dim) {
  int old = getBatchDim(value);
  int joined = joinDims(old, dim);
  if (joined == old)
    return false;
  dims[value] = joined;
  return true;
}

/// The state of the results of a linalg op: the batch loop is the one that
/// the operands' batch dimensions index; a result carries it where its
/// indexing map does.
static Transfer transferLinalg(linalg::LinalgOp op,
                               function_ref<int(Value)> dimOf) {
  Transfer transfer;
  int loop = BatchAnalysis::kFixed;
  for (OpOperand &operand : op->getOpOperands()) {
    int dim = dimOf(operand.get());
    if (dim == BatchAnalysis::kFixed)
      continue;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    int position = BatchAnalysis::kUnknownDim;
    if (dim >= 0 && dim < static_cast<int>(map.getNumResults()))
      if (auto expr = dyn_cast<AffineDimExpr>(map.getResult(dim)))
        position = static_cast<int>(expr.getPosition());
    loop = loop == BatchAnalysis::kFixed || loop == position
               ? position
               : BatchAnalysis::kUnknownDim;
  }
  transfer.work = loop != BatchAnalysis::kFixed;
  for (OpResult result : op->getResults()) {
    int dim = loop;
    if (loop >= 0) {
      AffineMap map = op.getIndexingMapMatchingResult(result);
      dim = BatchAnalysis::kFixed;
      for (auto [index, expr] : llvm::enumerate(map.getResults()))
        if (auto d = dyn_cast<AffineDimExpr>(expr))
          if (static_cast<int>(d.getPosition()) == loop)
            dim = static_cast<int>(index);
    }
    transfer.results.push_back(dim);
  }
  return transfer;
}

/// A `tensor.empty` or `bufferization.alloc_tensor` carries the batch in the
/// dynamic dimension that a batch size sizes.
static int getEmptyDim(RankedTensorType type, ValueRange dynamicSizes,
                       const llvm::DenseSet<Value> &batchSizes) {
  int dim = BatchAnalysis::kFixed;
  unsigned next = 0;
  for (int64_t index = 0; index < type.getRank(); ++index) {
    if (!type.isDynamicDim(index))
      continue;
    if (next < dynamicSizes.size() && batchSizes.contains(dynamicSizes[next]))
      dim = joinDims(dim, static_cast<int>(index));
    ++next;
  }
  return dim;
}

/// The result dimension of a reshape that holds the source's batch
/// dimension `dim`: its group (collapse), or the group's outermost non-unit
/// dimension (expand).
static int getReshapeDim(Operation *op, int dim) {
  if (dim < 0)
    return dim;
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
    for (auto [index, group] :
         llvm::enumerate(collapse.getReassociationIndices()))
      if (llvm::is_contained(group, dim))
        return static_cast<int>(index);
  } else if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
    auto groups = expand.getReassociationIndices();
    if (dim < static_cast<int>(groups.size()))
      for (int64_t index : groups[dim])
        if (expand.getResultType().getDimSize(index) != 1)
          return static_cast<int>(index);
  }
  return BatchAnalysis::kUnknownDim;
}

/// An extract_slice keeps the batch dimension when it keeps it whole.
static int getSliceDim(tensor::ExtractSliceOp op, int dim) {
  if (dim < 0)
    return dim;
  RankedTensorType source = op.getSourceType();
  RankedTensorType result = op.getResultType();
  if (result.getRank() != source.getRank() || source.isDynamicDim(dim) ||
      result.getDimSize(dim) != source.getDimSize(dim))
    return BatchAnalysis::kUnknownDim;
  return dim;
}

/// An insert_slice keeps its destination's state; a destination that does
/// not carry the batch, filled from one that does, scales somewhere.
static int getInsertDim(int dest, int source) {
  if (source == BatchAnalysis::kFixed || dest != BatchAnalysis::kFixed)
    return dest;
  return BatchAnalysis::kUnknownDim;
}

/// The join of the states of `values`.
static int joinAll(ValueRange values, function_ref<int(Value)> dimOf) {
  int dim = BatchAnalysis::kFixed;
  for (Value value : values)
    dim = joinDims(dim, dimOf(value));
  return dim;
}

/// Ops other than linalg ops and `tensor.dim`.
static Transfer transferOther(Operation *op, function_ref<int(Value)> dimOf,
                              const llvm::DenseSet<Value> &batchSizes) {
  Transfer transfer;
  llvm::SetVector<Value> used(op->operand_begin(), op->operand_end());
  getUsedValuesDefinedAbove(op->getRegions(), used);
  int any = joinAll(used.getArrayRef(), dimOf) == BatchAnalysis::kFixed
                ? BatchAnalysis::kFixed
                : BatchAnalysis::kUnknownDim;
  int dim = any;
  if (auto empty = dyn_cast<tensor::EmptyOp>(op))
    dim = getEmptyDim(empty.getType(), empty.getDynamicSizes(), batchSizes);
  else if (auto alloc = dyn_cast<bufferization::AllocTensorOp>(op))
    dim = alloc.getCopy() ? dimOf(alloc.getCopy())
                          : getEmptyDim(alloc.getType(),
                                        alloc.getDynamicSizes(), batchSizes);
  else if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op))
    dim = getReshapeDim(op, dimOf(op->getOperand(0)));
  else if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
    dim = getSliceDim(slice, dimOf(slice.getSource()));
  else if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
    dim = getInsertDim(dimOf(insert.getDest()), dimOf(insert.getSource()));
  else if (isa<tensor::CastOp, BarrierOp>(op) ||
           op->hasTrait<OpTrait::Elementwise>() ||
           op->hasTrait<OpTrait::SameOperandsAndResultShape>())
    dim = joinAll(op->getOperands(), dimOf);
  transfer.work = any != BatchAnalysis::kFixed || dim != BatchAnalysis::kFixed;
  for (Value result : op->getResults())
    transfer.results.push_back(
        isa<TensorType>(result.getType()) ? dim : BatchAnalysis::kFixed);
  return transfer;
}

bool BatchAnalysis::visitForward(Operation *op) {
  auto dimOf = [&](Value value) { return getBatchDim(value); };
  if (auto dimOp = dyn_cast<tensor::DimOp>(op)) {
    std::optional<int64_t> index = dimOp.getConstantIndex();
    int dim = getBatchDim(dimOp.getSource());
    return index && dim >= 0 && *index == dim &&
           batchSizes.insert(dimOp.getResult()).second;
  }
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  Transfer transfer = linalgOp && linalgOp.hasPureTensorSemantics()
                          ? transferLinalg(linalgOp, dimOf)
                          : transferOther(op, dimOf, batchSizes);
  bool changed = false;
  for (auto [result, dim] : llvm::zip(op->getResults(), transfer.results))
    changed |= join(result, dim);
  if (transfer.work)
    changed |= scaledWork.insert(op).second;
  return changed;
}

bool BatchAnalysis::visitBackward(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureTensorSemantics())
    return false;
  bool changed = false;
  for (OpResult result : op->getResults()) {
    int dim = getBatchDim(result);
    Value init = linalgOp.getDpsInitOperand(result.getResultNumber())->get();
    // Arguments keep their state: parameters never carry the batch.
    if (dim >= 0 && init.getDefiningOp())
      changed |= join(init, dim);
  }
  return changed;
}
