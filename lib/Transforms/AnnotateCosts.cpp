//===- AnnotateCosts.cpp - attach #remat.cost to tensor ops ---------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// annotateCosts, guardDynamicSizes and resizeDynamicSizes (AnnotateCosts.h),
// and the `remat-annotate-costs` pass, a thin shell over them.
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/AnnotateCosts.h"

#include "remat/Transforms/FunctionFilter.h"
#include "remat/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/Support/FormatVariadic.h"

#include <memory>

namespace remat {
#define GEN_PASS_DEF_REMATANNOTATECOSTS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

//===----------------------------------------------------------------------===//
// annotateCosts
//===----------------------------------------------------------------------===//

LogicalResult remat::annotateCosts(Operation *root,
                                   const CostModelOptions &options,
                                   const CostProfile *profile) {
  bool anyFailed = false;
  root->walk([&](Operation *op) {
    if (!producesTensor(op))
      return;
    auto cost = op->getAttrOfType<CostAttr>(RematDialect::kCostAttrName);
    if (std::optional<std::string> why =
            cost ? getUnderstatedCostBytes(op, cost) : std::nullopt) {
      op->emitOpError() << *why;
      anyFailed = true;
      return;
    }
    // A cost the op has keeps its bytes and FLOPs; the device prices it.
    FailureOr<CostAttr> computed =
        cost ? addPredictedTime(op, cost, options) : computeOpCost(op, options);
    if (failed(computed)) {
      anyFailed = true;
      return;
    }
    cost = *computed;
    if (profile)
      if (std::optional<int64_t> timeNs = profile->lookup(op))
        cost = CostAttr::get(op->getContext(), cost.getBytes(), cost.getFlops(),
                             cost.getRooflinePs(), *timeNs);
    op->setAttr(RematDialect::kCostAttrName, cost);
  });
  return failure(anyFailed);
}

//===----------------------------------------------------------------------===//
// Dynamic-size guards
//===----------------------------------------------------------------------===//

/// The message of the guard on dimension `dim` of argument #`argNumber`.
static std::string getGuardMessage(int64_t dim, unsigned argNumber,
                                   int64_t hint) {
  return llvm::formatv("dimension {0} of argument #{1} exceeds {2}, the "
                       "dynamic-size hint the rematerialization plan assumed",
                       dim, argNumber, hint)
      .str();
}

void remat::guardDynamicSizes(func::FuncOp func, int64_t hint) {
  if (func.isExternal() || getDynamicSizeHint(func))
    return;
  bool dynamicArgument = llvm::any_of(func.getArgumentTypes(), [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && !tensor.hasStaticShape();
  });
  if (!dynamicArgument)
    return;
  MLIRContext *context = func.getContext();
  func->setAttr(RematDialect::kDynamicSizeHintAttrName,
                IntegerAttr::get(IntegerType::get(context, 64), hint));
  Block &entry = func.getBody().front();
  auto builder = OpBuilder::atBlockBegin(&entry);
  Location loc = func.getLoc();
  Value bound;
  for (BlockArgument arg : entry.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type)
      continue;
    for (int64_t dim = 0; dim < type.getRank(); ++dim) {
      if (!type.isDynamicDim(dim))
        continue;
      if (!bound)
        bound = arith::ConstantIndexOp::create(builder, loc, hint);
      Value size = tensor::DimOp::create(builder, loc, arg, dim);
      Value fits = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::ule, size, bound);
      auto check = cf::AssertOp::create(
          builder, loc, fits, getGuardMessage(dim, arg.getArgNumber(), hint));
      check->setAttr(RematDialect::kPhaseAttrName,
                     PhaseAttr::get(context, Phase::Forward));
    }
  }
}

LogicalResult remat::resizeDynamicSizes(func::FuncOp func, int64_t hint) {
  std::optional<int64_t> old = getDynamicSizeHint(func);
  if (!old)
    return mlir::emitError(func.getLoc())
           << "internal error: '" << func.getSymName()
           << "' records no dynamic-size hint to resize";
  Block &entry = func.getBody().front();
  auto builder = OpBuilder::atBlockBegin(&entry);
  Value bound = arith::ConstantIndexOp::create(builder, func.getLoc(), hint);
  // The guards guardDynamicSizes wrote: assert(dim(arg, d) <= old).
  for (auto check : entry.getOps<cf::AssertOp>()) {
    auto cmp = check.getArg().getDefiningOp<arith::CmpIOp>();
    auto dimOp = cmp ? cmp.getLhs().getDefiningOp<tensor::DimOp>() : nullptr;
    auto arg =
        dimOp ? dyn_cast<BlockArgument>(dimOp.getSource()) : BlockArgument();
    std::optional<int64_t> dim =
        dimOp ? dimOp.getConstantIndex() : std::optional<int64_t>();
    if (!arg || !dim || cmp.getPredicate() != arith::CmpIPredicate::ule ||
        getConstantIntValue(cmp.getRhs()) != *old)
      continue;
    Operation *oldBound = cmp.getRhs().getDefiningOp();
    cmp.getRhsMutable().assign(bound);
    if (oldBound && oldBound->use_empty())
      oldBound->erase();
    check.setMsg(getGuardMessage(*dim, arg.getArgNumber(), hint));
  }
  func->setAttr(RematDialect::kDynamicSizeHintAttrName,
                builder.getI64IntegerAttr(hint));
  // Every cost again at the new size; ops that got a cost before get one
  // now, by the model's fallback if need be.
  func.walk([](Operation *op) { op->removeAttr(RematDialect::kCostAttrName); });
  CostModelOptions options;
  options.dynamicSizeHint = hint;
  options.allowUnknown = true;
  options.emitWarnings = false;
  if (auto device =
          func->getAttrOfType<StringAttr>(RematDialect::kCostDeviceAttrName))
    if (const DeviceSpec *spec = lookupDevice(device.getValue()))
      options.device = spec->device;
  return annotateCosts(func, options);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

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
