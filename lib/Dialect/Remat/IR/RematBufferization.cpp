//===- RematBufferization.cpp - bufferizing offloads and prefetches -------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// How one-shot bufferization lowers `remat.offload` and `remat.prefetch`
// (docs/Offload.md): each copies its operand into a new buffer, the
// offload's in host memory (`getHostMemorySpace`), the prefetch's in the
// default (device) one. Neither result aliases its operand, so the operand's
// buffer dies at its last use, the copy, as the memory model counts it.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::bufferization;
using namespace remat;

Attribute remat::getHostMemorySpace(MLIRContext *context) {
  return IntegerAttr::get(IntegerType::get(context, 64), 1);
}

bool remat::isHostMemorySpace(Attribute memorySpace) {
  return memorySpace && memorySpace == getHostMemorySpace(
                                           memorySpace.getContext());
}

namespace {
/// A copy into a new buffer of the operand's shape, in host memory (`Host`)
/// or the default one.
template <typename OpTy, bool Host>
struct CopyOpInterface
    : public BufferizableOpInterface::ExternalModel<CopyOpInterface<OpTy, Host>,
                                                    OpTy> {
  bool bufferizesToAllocation(Operation *, Value) const { return true; }
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return false;
  }
  AliasingValueList getAliasingValues(Operation *, OpOperand &,
                                      const AnalysisState &) const {
    return {};
  }

  FailureOr<BufferLikeType>
  getBufferType(Operation *op, Value value, const BufferizationOptions &,
                const BufferizationState &, SmallVector<Value> &) const {
    Attribute space = Host ? getHostMemorySpace(op->getContext()) : nullptr;
    return cast<BufferLikeType>(getMemRefTypeWithStaticIdentityLayout(
        cast<TensorType>(value.getType()), space));
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    Location loc = op->getLoc();
    FailureOr<Value> source =
        getBuffer(rewriter, op->getOperand(0), options, state);
    if (failed(source))
      return failure();
    SmallVector<Value> dynamicSizes;
    auto sourceType = cast<MemRefType>(source->getType());
    for (int64_t dim = 0; dim < sourceType.getRank(); ++dim)
      if (sourceType.isDynamicDim(dim))
        dynamicSizes.push_back(memref::DimOp::create(rewriter, loc, *source,
                                                     dim));
    SmallVector<Value> stack;
    FailureOr<BufferLikeType> type =
        getBufferType(op, op->getResult(0), options, state, stack);
    auto copy = memref::AllocOp::create(rewriter, loc,
                                        cast<MemRefType>(*type), dynamicSizes);
    memref::CopyOp::create(rewriter, loc, *source, copy);
    replaceOpWithBufferizedValues(rewriter, op, copy.getResult());
    return success();
  }
};
} // namespace

void RematDialect::registerBufferizationModels() {
  OffloadOp::attachInterface<CopyOpInterface<OffloadOp, true>>(
      *getContext());
  PrefetchOp::attachInterface<CopyOpInterface<PrefetchOp, false>>(
      *getContext());
}
