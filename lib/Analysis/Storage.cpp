//===- Storage.cpp - which values own storage, and how many bytes ---------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Implements the storage model of Storage.h (docs/CostModel.md, "Bytes").
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/Storage.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace remat;

/// The bytes the LLVM lowering allocates for one element of the scalar or
/// fixed-size vector `type`: its size under `layout` rounded up to its ABI
/// alignment, as LLVM's alloc size (the stride of an array of them) is. An
/// `i24` takes 4 bytes, an `f80` 16, a `vector<3xf32>` 16.
static std::optional<int64_t> getAllocSize(Type type,
                                           const DataLayout &layout) {
  llvm::TypeSize size = layout.getTypeSize(type);
  if (size.isScalable())
    return std::nullopt;
  uint64_t alignment = std::max<uint64_t>(layout.getTypeABIAlignment(type), 1);
  return static_cast<int64_t>(llvm::alignTo(size.getFixedValue(), alignment));
}

std::optional<int64_t> remat::getElementStorageBytes(Type type,
                                                     const DataLayout &layout) {
  if (type.isIntOrIndexOrFloat())
    return getAllocSize(type, layout);
  if (auto complex = dyn_cast<ComplexType>(type)) {
    // Lowered to a struct of two parts, each padded to its alignment.
    std::optional<int64_t> part =
        getElementStorageBytes(complex.getElementType(), layout);
    if (!part)
      return std::nullopt;
    return 2 * *part;
  }
  if (auto vector = dyn_cast<VectorType>(type)) {
    if (vector.isScalable() ||
        !getElementStorageBytes(vector.getElementType(), layout))
      return std::nullopt;
    return getAllocSize(vector, layout);
  }
  return std::nullopt;
}

std::optional<int64_t>
remat::getStorageBytes(Type type, const DataLayout &layout,
                       std::optional<int64_t> dynamicSize) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped)
    return getElementStorageBytes(type, layout);
  if (!shaped.hasRank())
    return std::nullopt;
  std::optional<int64_t> bytes =
      getElementStorageBytes(shaped.getElementType(), layout);
  if (!bytes)
    return std::nullopt;
  bool saturated = false;
  for (int64_t size : shaped.getShape()) {
    if (ShapedType::isDynamic(size)) {
      if (!dynamicSize)
        return std::nullopt;
      size = *dynamicSize;
    }
    // Keep going after an overflow: a later dimension may be dynamic
    // without a size, which makes the size unknown rather than too large.
    if (!saturated && llvm::MulOverflow(*bytes, size, *bytes))
      saturated = true;
  }
  return saturated ? kSaturatedBytes : *bytes;
}

std::optional<int64_t>
remat::getStorageBytes(Type type, Operation *scope,
                       std::optional<int64_t> dynamicSize) {
  return getStorageBytes(type, DataLayout::closest(scope), dynamicSize);
}

bool remat::isViewOp(Operation *op) {
  return isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp,
             tensor::ExtractSliceOp, tensor::CastOp, tensor::ReshapeOp,
             tensor::BitcastOp, bufferization::ToTensorOp, ViewLikeOpInterface>(
      op);
}

Value remat::getViewSource(Operation *op) {
  if (auto view = dyn_cast<ViewLikeOpInterface>(op))
    return view.getViewSource();
  if (isViewOp(op) && op->getNumOperands() > 0)
    return op->getOperand(0);
  return {};
}

bool remat::ownsNoStorage(Operation *op) {
  if (isViewOp(op))
    return true;
  // The buffer of an uninitialized tensor is the one its destination-passing
  // consumer writes into; that consumer's result owns it.
  if (isa<tensor::EmptyOp>(op))
    return true;
  if (auto alloc = dyn_cast<bufferization::AllocTensorOp>(op))
    return !alloc.getCopy();
  // A host copy (docs/Offload.md) holds no device memory.
  if (isa<OffloadOp>(op))
    return true;
  // Constants become read-only globals, not heap buffers.
  return op->hasTrait<OpTrait::ConstantLike>();
}

Value remat::getStorageSource(OpResult result) {
  Operation *op = result.getOwner();
  if (Value source = getViewSource(op))
    return source;
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
    if (OpOperand *tied = dps.getTiedOpOperand(result))
      return tied->get();
  return {};
}
