//===- AnnotateCosts.cpp - attach #remat.cost to tensor ops ---------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The `remat-annotate-costs` pass: a thin shell over remat::annotateCosts.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/CostModel.h"
#include "remat/Transforms/FunctionFilter.h"
#include "remat/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <memory>

namespace remat {
#define GEN_PASS_DEF_REMATANNOTATECOSTS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {

struct RematAnnotateCostsPass
    : public SelectedFunctionsPass<
          remat::impl::RematAnnotateCostsBase<RematAnnotateCostsPass>> {
  using SelectedFunctionsPass::SelectedFunctionsPass;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    // guardDynamicSizes creates arith, tensor and cf ops.
    registry.insert<arith::ArithDialect, cf::ControlFlowDialect,
                    tensor::TensorDialect>();
  }

  LogicalResult initialize(MLIRContext *context) override {
    // Read the profile once; errors are reported on each function, where a
    // located diagnostic can be emitted.
    profile.reset();
    profileError.clear();
    if (profilePath.empty())
      return success();
    llvm::Expected<CostProfile> loaded = CostProfile::load(profilePath);
    if (!loaded) {
      profileError = llvm::toString(loaded.takeError());
      return success();
    }
    profile = std::make_shared<const CostProfile>(std::move(*loaded));
    return success();
  }

  void runOnSelectedFunction(func::FuncOp func) override {
    if (!profileError.empty()) {
      mlir::emitError(func.getLoc()) << profileError;
      return signalPassFailure();
    }
    int64_t hint = dynamicSizeHint;
    if (hint < 0) {
      mlir::emitError(func.getLoc()) << "remat-annotate-costs: dynamic-size-hint must be "
                          "positive (or 0 for none), got "
                       << hint;
      return signalPassFailure();
    }
    CostModelOptions options;
    if (hint > 0) {
      options.dynamicSizeHint = hint;
      guardDynamicSizes(func, hint);
    }
    options.allowUnknown = allowUnknown;
    options.emitWarnings = warnings;
    options.device = device;
    options.link = link;
    if (const DeviceSpec *spec = getDeviceSpec(device))
      func->setAttr(RematDialect::kCostDeviceAttrName,
                    StringAttr::get(func.getContext(), spec->name));
    if (failed(annotateCosts(func, options, profile.get())))
      return signalPassFailure();
  }

  std::shared_ptr<const CostProfile> profile;
  std::string profileError;
};

} // namespace
