//===- WrapSerialLinalg.cpp - Run serial linalg ops as GPU kernels --------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Implements `remat-wrap-serial-linalg`: a linalg op without parallel
// iterators would otherwise be lowered to host loops over device buffers.
//
//===----------------------------------------------------------------------===//

#include "remat/Conversion/Passes.h"

namespace remat {
#define GEN_PASS_DEF_REMATWRAPSERIALLINALG
#include "remat/Conversion/Passes.h.inc"
} // namespace remat

using namespace mlir;

namespace {

struct RematWrapSerialLinalgPass
    : public remat::impl::RematWrapSerialLinalgBase<RematWrapSerialLinalgPass> {
  void runOnOperation() override { remat::wrapSerialLinalgOps(getOperation()); }
};

} // namespace

unsigned remat::wrapSerialLinalgOps(func::FuncOp func) {
  SmallVector<linalg::LinalgOp> serial;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<scf::ParallelOp, gpu::LaunchOp>(op))
      return WalkResult::skip();
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp)
      return WalkResult::advance();
    if (linalgOp.hasPureBufferSemantics() &&
        linalgOp.getNumParallelLoops() == 0)
      serial.push_back(linalgOp);
    return WalkResult::skip();
  });

  OpBuilder b(func.getContext());
  for (linalg::LinalgOp op : serial) {
    Location loc = op.getLoc();
    b.setInsertionPoint(op);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto parallel = scf::ParallelOp::create(b, loc, ValueRange{zero},
                                            ValueRange{one}, ValueRange{one});
    // The body holds only the terminator: move the op in front of it.
    op->moveBefore(parallel.getBody()->getTerminator());
  }
  return serial.size();
}
