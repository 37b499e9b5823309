//===- LowerHostMemory.cpp - host copies of a CPU step --------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Implements `remat-lower-host-memory` (Passes.td): counts the host copies
// of a bufferized step, records the counts, and moves the host buffers to the
// default memory space for the CPU's LLVM lowering.
//
//===----------------------------------------------------------------------===//

#include "remat/Conversion/Passes.h"

#include "remat/Analysis/Storage.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace remat {
#define GEN_PASS_DEF_REMATLOWERHOSTMEMORY
#include "remat/Conversion/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

bool remat::isHostBuffer(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  return type && isHostMemorySpace(type.getMemorySpace());
}

namespace {
/// The host copies of a function: the host bytes live in program order and
/// their peak, the copies and the bytes they move.
struct HostCounts {
  int64_t live = 0, peak = 0, copies = 0, bytesMoved = 0;
};
} // namespace

/// Counts the host buffers and copies of `func`; a located error for a host
/// buffer whose bytes are not known.
static FailureOr<HostCounts> countHostCopies(func::FuncOp func) {
  HostCounts counts;
  // A dynamic dimension counts at the function's size hint, as its plan.
  std::optional<int64_t> hint;
  if (auto attr = func->getAttrOfType<IntegerAttr>(
          RematDialect::kDynamicSizeHintAttrName))
    hint = attr.getInt();
  auto bytesOf = [&](Value buffer) {
    return getStorageBytes(buffer.getType(), func, hint).value_or(0);
  };
  WalkResult walk = func.walk([&](Operation *op) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op);
        alloc && isHostBuffer(alloc)) {
      std::optional<int64_t> bytes = getStorageBytes(alloc.getType(), op, hint);
      if (!bytes || isSaturated(*bytes)) {
        op->emitError() << "host copy of unknown size: a dynamic shape "
                           "needs the function's '"
                        << RematDialect::kDynamicSizeHintAttrName
                        << "' (remat-annotate-costs{dynamic-size-hint=N})";
        return WalkResult::interrupt();
      }
      counts.live += *bytes;
      counts.peak = std::max(counts.peak, counts.live);
    } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op);
               dealloc && isHostBuffer(dealloc.getMemref())) {
      counts.live -= bytesOf(dealloc.getMemref());
    } else if (auto copy = dyn_cast<memref::CopyOp>(op);
               copy && (isHostBuffer(copy.getSource()) ||
                        isHostBuffer(copy.getTarget()))) {
      ++counts.copies;
      counts.bytesMoved += bytesOf(copy.getSource());
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return counts;
}

/// Moves every host buffer of `func` to the default memory space.
static void moveToDefaultSpace(func::FuncOp func) {
  func.walk([](Operation *op) {
    for (OpResult result : op->getResults())
      if (isHostBuffer(result)) {
        auto type = cast<MemRefType>(result.getType());
        result.setType(MemRefType::get(type.getShape(), type.getElementType(),
                                       type.getLayout()));
      }
  });
}

LogicalResult remat::recordHostCopies(func::FuncOp func) {
  FailureOr<HostCounts> counts = countHostCopies(func);
  if (failed(counts))
    return failure();
  if (counts->copies > 0)
    func->setAttr(
        RematDialect::kHostCopiesAttrName,
        DenseI64ArrayAttr::get(func.getContext(), {counts->peak, counts->copies,
                                                   counts->bytesMoved}));
  return success();
}

void remat::eraseCopyWaits(func::FuncOp func) {
  func.walk([](WaitOp wait) { wait.erase(); });
}

namespace {
struct LowerHostMemoryPass
    : public remat::impl::RematLowerHostMemoryBase<LowerHostMemoryPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (failed(recordHostCopies(func)))
      return signalPassFailure();
    eraseCopyWaits(func);
    moveToDefaultSpace(func);
  }
};
} // namespace
