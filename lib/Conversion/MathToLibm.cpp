//===- MathToLibm.cpp - C library calls for math ops LLVM cannot lower ----===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Implements `remat-math-to-libm`: upstream's libm patterns applied to the
// math ops that convert-to-llvm has no lowering for, and to no other.
//
//===----------------------------------------------------------------------===//

#include "remat/Conversion/Passes.h"

#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"

namespace remat {
#define GEN_PASS_DEF_REMATMATHTOLIBM
#include "remat/Conversion/Passes.h.inc"
} // namespace remat

using namespace mlir;

namespace {

struct RematMathToLibmPass
    : public remat::impl::RematMathToLibmBase<RematMathToLibmPass> {
  void runOnOperation() override {
    if (failed(remat::lowerMathToLibm(getOperation())))
      signalPassFailure();
  }
};

} // namespace

LogicalResult remat::lowerMathToLibm(ModuleOp module) {
  MLIRContext *context = module.getContext();
  RewritePatternSet patterns(context);
  populateMathToLibmConversionPatterns(patterns);
  ConversionTarget target(*context);
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  target.addIllegalOp<math::ErfOp, math::ErfcOp>();
  return applyPartialConversion(module, target, std::move(patterns));
}
