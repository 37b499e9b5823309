//===- LowerGatherScatter.cpp - all_gather/reduce_scatter to MPI calls ----===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Implements `remat-lower-gather-scatter`: the `shard.all_gather` and
// `shard.reduce_scatter` of a fully sharded data-parallel step become calls
// of the runners' MPI_Allgather / MPI_Reduce_scatter_block wrappers on flat
// buffers (upstream convert-shard-to-mpi lowers neither). See
// docs/Distributed.md.
//
//===----------------------------------------------------------------------===//

#include "remat/Conversion/Passes.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/SymbolTable.h"

namespace remat {
#define GEN_PASS_DEF_REMATLOWERGATHERSCATTER
#include "remat/Conversion/Passes.h.inc"
} // namespace remat

using namespace mlir;

namespace {

struct RematLowerGatherScatterPass
    : public remat::impl::RematLowerGatherScatterBase<
          RematLowerGatherScatterPass> {
  void runOnOperation() override {
    if (failed(remat::lowerGatherScatter(getOperation())))
      signalPassFailure();
  }
};

/// The C function (without the `_mlir_ciface_` prefix) `op` calls.
StringRef getCallee(Operation *op) {
  return isa<shard::AllGatherOp>(op) ? "remat_mpi_all_gather_f32"
                                     : "remat_mpi_reduce_scatter_f32";
}

/// Emits a located error and fails unless `op` (an all_gather or a
/// reduce_scatter) runs over the whole of a 1-D grid, along dimension 0, on
/// f32 tensors, summing.
LogicalResult checkLowerable(Operation *op, shard::GridOp grid,
                             ArrayRef<int16_t> gridAxes, int64_t axis) {
  auto type = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (!grid || grid.getRank() != 1 || gridAxes.size() != 1)
    return op->emitError()
           << "only a collective over the whole of a 1-D grid can be lowered "
              "to MPI_COMM_WORLD";
  if (axis != 0)
    return op->emitError() << "only gathering or scattering along dimension "
                              "0 can be lowered to MPI (got "
                           << axis << ")";
  if (!type || !type.hasStaticShape() || !type.getElementType().isF32())
    return op->emitError()
           << "only static f32 tensors can be gathered or scattered over MPI";
  if (auto scatter = dyn_cast<shard::ReduceScatterOp>(op))
    if (scatter.getReduction() != shard::ReductionKind::Sum)
      return op->emitError() << "only a sum can be reduce-scattered over MPI";
  return success();
}

/// Checks every all_gather and reduce_scatter of `module`; collects them.
LogicalResult collect(ModuleOp module, SymbolTableCollection &symbols,
                      SmallVectorImpl<Operation *> &ops) {
  bool ok = true;
  module.walk([&](Operation *op) {
    LogicalResult checked = success();
    if (auto gather = dyn_cast<shard::AllGatherOp>(op))
      checked = checkLowerable(
          op, shard::getGridOrNull(gather, gather.getGridAttr(), symbols),
          gather.getGridAxes(), gather.getGatherAxis().getSExtValue());
    else if (auto scatter = dyn_cast<shard::ReduceScatterOp>(op))
      checked = checkLowerable(
          op, shard::getGridOrNull(scatter, scatter.getGridAttr(), symbols),
          scatter.getGridAxes(), scatter.getScatterAxis().getSExtValue());
    else
      return;
    ok &= succeeded(checked);
    ops.push_back(op);
  });
  return success(ok);
}

/// Declares `name(memref<?xf32>, memref<?xf32>)` with a C interface in
/// `module` unless it is already there.
void declareCallee(ModuleOp module, StringRef name) {
  if (module.lookupSymbol(name))
    return;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto flat = MemRefType::get({ShapedType::kDynamic}, b.getF32Type());
  auto callee = func::FuncOp::create(b, module.getLoc(), name,
                                     b.getFunctionType({flat, flat}, {}));
  callee.setPrivate();
  callee->setAttr("llvm.emit_c_interface", b.getUnitAttr());
}

/// The collapse of a static tensor into one dimension.
SmallVector<ReassociationIndices> getFlatGroups(int64_t rank) {
  ReassociationIndices all;
  for (int64_t d = 0; d < rank; ++d)
    all.push_back(d);
  return {all};
}

/// Replaces `op` by the call of its C function on flat buffers.
void lowerOne(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  auto inType = cast<RankedTensorType>(op->getOperand(0).getType());
  auto outType = cast<RankedTensorType>(op->getResult(0).getType());
  auto flatIn = RankedTensorType::get({inType.getNumElements()},
                                      inType.getElementType());
  auto flatOut = RankedTensorType::get({outType.getNumElements()},
                                       outType.getElementType());
  auto dynamic = MemRefType::get({ShapedType::kDynamic}, b.getF32Type());
  Value in = tensor::CollapseShapeOp::create(b, loc, flatIn, op->getOperand(0),
                                             getFlatGroups(inType.getRank()));
  auto inBuffer = bufferization::ToBufferOp::create(
      b, loc, MemRefType::get(flatIn.getShape(), b.getF32Type()), in,
      /*readOnly=*/true);
  auto outMemRef = MemRefType::get(flatOut.getShape(), b.getF32Type());
  Value out = memref::AllocOp::create(b, loc, outMemRef);
  func::CallOp::create(
      b, loc, getCallee(op), TypeRange{},
      ValueRange{memref::CastOp::create(b, loc, dynamic, inBuffer),
                 memref::CastOp::create(b, loc, dynamic, out)});
  Value flat = bufferization::ToTensorOp::create(b, loc, flatOut, out,
                                                 /*restrict=*/true,
                                                 /*writable=*/true);
  Value result = tensor::ExpandShapeOp::create(
      b, loc, outType, flat, getFlatGroups(outType.getRank()));
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
}

} // namespace

LogicalResult remat::lowerGatherScatter(ModuleOp module) {
  SymbolTableCollection symbols;
  SmallVector<Operation *> ops;
  if (failed(collect(module, symbols, ops)))
    return failure();
  for (Operation *op : ops) {
    declareCallee(module, getCallee(op));
    lowerOne(op);
  }
  return success();
}
