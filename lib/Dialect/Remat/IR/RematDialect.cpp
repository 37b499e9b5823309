//===- RematDialect.cpp - remat dialect -----------------------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "remat/Analysis/Devices.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

using namespace mlir;
using namespace remat;

#include "remat/Dialect/Remat/IR/RematDialect.cpp.inc"

/// The optional times of `#remat.cost`, each `, key = N`, in this order:
/// `roofline_ps`, then `time_ns` (a custom directive: two optional groups
/// that both start with a comma cannot be told apart by the generated
/// parser).
static ParseResult parseCostTimes(AsmParser &parser,
                                  std::optional<int64_t> &rooflinePs,
                                  std::optional<int64_t> &timeNs) {
  bool sawTime = false;
  while (succeeded(parser.parseOptionalComma())) {
    llvm::SMLoc loc = parser.getCurrentLocation();
    StringRef key;
    int64_t value;
    if (parser.parseKeyword(&key) || parser.parseEqual() ||
        parser.parseInteger(value))
      return failure();
    if (key == "roofline_ps" && !sawTime && !rooflinePs) {
      rooflinePs = value;
    } else if (key == "time_ns" && !sawTime) {
      timeNs = value;
      sawTime = true;
    } else {
      return parser.emitError(loc, "expected 'roofline_ps' or 'time_ns' "
                                   "(once each, in this order), got '")
             << key << "'";
    }
  }
  return success();
}

static void printCostTimes(AsmPrinter &printer,
                           std::optional<int64_t> rooflinePs,
                           std::optional<int64_t> timeNs) {
  if (rooflinePs)
    printer << ", roofline_ps = " << *rooflinePs;
  if (timeNs)
    printer << ", time_ns = " << *timeNs;
}
#include "remat/Dialect/Remat/IR/RematEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "remat/Dialect/Remat/IR/RematAttributes.cpp.inc"

#define GET_OP_CLASSES
#include "remat/Dialect/Remat/IR/RematOps.cpp.inc"

void RematDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "remat/Dialect/Remat/IR/RematOps.cpp.inc"
      >();
  registerBufferizationModels();
}

void RematDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "remat/Dialect/Remat/IR/RematAttributes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// CostAttr
//===----------------------------------------------------------------------===//

LogicalResult CostAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> bytes, int64_t flops,
                               std::optional<int64_t> rooflinePs,
                               std::optional<int64_t> timeNs) {
  for (auto [index, size] : llvm::enumerate(bytes))
    if (size < 0)
      return emitError() << "remat.cost: bytes of result #" << index
                         << " must be non-negative, got " << size;
  if (flops < 0)
    return emitError() << "remat.cost: flops must be non-negative, got "
                       << flops;
  if (rooflinePs && *rooflinePs < 0)
    return emitError() << "remat.cost: roofline_ps must be non-negative, got "
                       << *rooflinePs;
  if (timeNs && *timeNs < 0)
    return emitError() << "remat.cost: time_ns must be non-negative, got "
                       << *timeNs;
  return success();
}

int64_t CostAttr::getTotalBytes() const {
  int64_t total = 0;
  for (int64_t size : getBytes())
    total += size;
  return total;
}

double CostAttr::getComputeCost() const {
  if (std::optional<int64_t> timeNs = getTimeNs())
    return static_cast<double>(*timeNs) * kPicosecondsPerNanosecond;
  if (std::optional<int64_t> rooflinePs = getRooflinePs())
    return static_cast<double>(*rooflinePs);
  return static_cast<double>(getFlops());
}

//===----------------------------------------------------------------------===//
// PlanAttr
//===----------------------------------------------------------------------===//

LogicalResult PlanAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               StringRef solver, StringRef mode,
                               StringRef status, int64_t budget,
                               int64_t predictedPeak, int64_t baselinePeak,
                               int64_t cost, int64_t baselineCost,
                               std::optional<int64_t> lowerBound,
                               std::optional<int64_t> arena) {
  if (solver.empty())
    return emitError() << "remat.plan: solver must not be empty";
  if (!llvm::is_contained({"optimal", "feasible"}, status))
    return emitError() << "remat.plan: status must be \"optimal\" or "
                          "\"feasible\" (a plan is only recorded when the "
                          "solver found one), got \""
                       << status << "\"";
  for (auto [name, value] : {std::pair<StringRef, int64_t>{"budget", budget},
                             {"predicted_peak", predictedPeak},
                             {"baseline_peak", baselinePeak},
                             {"cost", cost},
                             {"baseline_cost", baselineCost}})
    if (value < 0)
      return emitError() << "remat.plan: " << name
                         << " must be non-negative, got " << value;
  if (lowerBound && *lowerBound < 0)
    return emitError() << "remat.plan: lower_bound must be non-negative, got "
                       << *lowerBound;
  if (arena && *arena < 0)
    return emitError() << "remat.plan: arena must be non-negative, got "
                       << *arena;
  return success();
}

//===----------------------------------------------------------------------===//
// Discardable attribute verification
//===----------------------------------------------------------------------===//

#define REMAT_DEVICE_NAME(Id, Name, ...) llvm::StringRef(Name),
/// The devices a `remat.cost_device` may name (Analysis/Devices.h).
static const llvm::StringRef kDeviceNames[] = {
    REMAT_DEVICES(REMAT_DEVICE_NAME)};
#undef REMAT_DEVICE_NAME

LogicalResult remat::verifyOffloadSteps(Operation *op,
                                        ArrayRef<int64_t> triples,
                                        ArrayRef<int64_t> steps) {
  StringRef name = RematDialect::kOffloadsAttrName;
  if (triples.empty() || triples.size() % 3)
    return op->emitError() << "'" << name
                           << "' must be a non-empty array<i64> of step "
                              "triples (offload after, wait before, prefetch "
                              "before)";
  if (op->getNumResults() != 1 ||
      !isa<RankedTensorType>(op->getResult(0).getType()))
    return op->emitError() << "'" << name
                           << "' is on an op without one ranked tensor result";
  int64_t previous = -1;
  for (size_t i = 0; i < triples.size(); i += 3) {
    int64_t after = triples[i], wait = triples[i + 1], before = triples[i + 2];
    if (after < previous || before <= after || wait <= after)
      return op->emitError() << "'" << name
                             << "' must hold triples (a, w, p) with a < w and "
                                "a < p, each after the last";
    previous = before;
    if (steps.empty() || steps.front() > after)
      return op->emitError()
             << "'" << name << "' offloads after step " << after << ", before '"
             << RematDialect::kStepsAttrName << "' computes the op";
    for (int64_t step : steps)
      if (step > after && step < before)
        return op->emitError()
               << "'" << name << "' offloads the value after step " << after
               << " and prefetches it before step " << before << ", but '"
               << RematDialect::kStepsAttrName << "' computes it again at step "
               << step << ": an offloaded value is prefetched, not recomputed";
  }
  return success();
}

LogicalResult RematDialect::verifyOperationAttribute(Operation *op,
                                                     NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  Attribute value = attr.getValue();
  if (name == kCostAttrName) {
    auto cost = dyn_cast<CostAttr>(value);
    if (!cost)
      return op->emitError()
             << "'" << name << "' must be a #remat.cost attribute, got "
             << value;
    if (cost.getBytes().size() != op->getNumResults())
      return op->emitError()
             << "'" << name << "' lists " << cost.getBytes().size()
             << " result size(s) but the op has " << op->getNumResults()
             << " result(s)";
    return success();
  }
  if (name == kPhaseAttrName) {
    if (!isa<PhaseAttr>(value))
      return op->emitError()
             << "'" << name << "' must be a #remat.phase attribute, got "
             << value;
    return success();
  }
  if (name == kKeepAttrName) {
    if (!isa<KeepAttr>(value))
      return op->emitError()
             << "'" << name << "' must be a #remat.keep attribute, got "
             << value;
    return success();
  }
  if (name == kPlanAttrName) {
    if (!isa<PlanAttr>(value))
      return op->emitError()
             << "'" << name << "' must be a #remat.plan attribute, got "
             << value;
    return success();
  }
  if (name == kStepsAttrName) {
    auto steps = dyn_cast<DenseI64ArrayAttr>(value);
    if (!steps || steps.empty())
      return op->emitError() << "'" << name
                             << "' must be a non-empty array<i64> of schedule "
                                "steps, got "
                             << value;
    int64_t previous = -1;
    for (int64_t step : steps.asArrayRef()) {
      if (step <= previous)
        return op->emitError()
               << "'" << name
               << "' must list non-negative steps in strictly increasing "
                  "order, got "
               << value;
      previous = step;
    }
    return success();
  }
  if (name == kOffloadsAttrName) {
    auto pairs = dyn_cast<DenseI64ArrayAttr>(value);
    if (!pairs)
      return op->emitError()
             << "'" << name << "' must be an array<i64> of step triples, got "
             << value;
    auto steps = op->getAttrOfType<DenseI64ArrayAttr>(kStepsAttrName);
    return verifyOffloadSteps(op, pairs.asArrayRef(),
                              steps ? steps.asArrayRef() : ArrayRef<int64_t>());
  }
  if (name == kRecomputedAttrName || name == kPinnedHostAttrName) {
    if (!isa<UnitAttr>(value))
      return op->emitError()
             << "'" << name << "' must be a unit attribute, got " << value;
    return success();
  }
  if (name == kDynamicSizeHintAttrName || name == kBatchAttrName) {
    auto hint = dyn_cast<IntegerAttr>(value);
    if (!hint || !hint.getType().isInteger(64) || hint.getInt() <= 0)
      return op->emitError()
             << "'" << name << "' must be a positive i64, got " << value;
    return success();
  }
  if (name == kArenaBytesAttrName || name == kPlannedArenaAttrName) {
    auto bytes = dyn_cast<IntegerAttr>(value);
    if (!bytes || !bytes.getType().isInteger(64) || bytes.getInt() < 0)
      return op->emitError()
             << "'" << name << "' must be a non-negative i64, got " << value;
    return success();
  }
  if (name == kHostCopiesAttrName) {
    auto counts = dyn_cast<DenseI64ArrayAttr>(value);
    if (!counts || counts.size() != 3 ||
        llvm::any_of(counts.asArrayRef(), [](int64_t v) { return v < 0; }))
      return op->emitError() << "'" << name
                             << "' must be array<i64: host peak bytes, "
                                "copies, bytes moved>, none negative, got "
                             << value;
    return success();
  }
  if (name == kCostDeviceAttrName) {
    auto device = dyn_cast<StringAttr>(value);
    if (!device || !llvm::is_contained(kDeviceNames, device.getValue()))
      return op->emitError()
             << "'" << name
             << "' must name a device of the roofline cost model ("
             << llvm::join(llvm::ArrayRef(kDeviceNames), ", ") << "), got "
             << value;
    return success();
  }
  return op->emitError() << "unknown remat dialect attribute '" << name << "'";
}

/// The largest `remat.high` of an argument of element type `type`: the
/// runners draw its values from [0, high) and read them as signed integers
/// (i1: 0 and 1; ui<w>: all 2^w values), so [0, high) must fit `type`.
/// Capped at the largest i64, the type of `remat.high`.
static int64_t getLargestHigh(IntegerType type) {
  unsigned valueBits = type.isUnsigned() || type.getWidth() == 1
                           ? type.getWidth()
                           : type.getWidth() - 1;
  return valueBits >= 63 ? std::numeric_limits<int64_t>::max()
                         : int64_t(1) << valueBits;
}

LogicalResult RematDialect::verifyRegionArgAttribute(Operation *op,
                                                     unsigned regionIndex,
                                                     unsigned argIndex,
                                                     NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name != kHighAttrName)
    return success();
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!func)
    return op->emitError() << "'" << name << "' must be on a function argument";
  Type argType = func.getArgumentTypes()[argIndex];
  auto elementType = dyn_cast<IntegerType>(getElementTypeOrSelf(argType));
  if (!elementType)
    return op->emitError() << "'" << name << "' of argument #" << argIndex
                           << " must be on an integer argument, got "
                           << argType;
  auto high = dyn_cast<IntegerAttr>(attr.getValue());
  if (!high || !high.getType().isSignlessInteger(64) || high.getInt() <= 0)
    return op->emitError() << "'" << name << "' of argument #" << argIndex
                           << " must be a positive i64, got "
                           << attr.getValue();
  int64_t largest = getLargestHigh(elementType);
  if (high.getInt() > largest)
    return op->emitError() << "'" << name << "' = " << high.getInt()
                           << " of argument #" << argIndex << " does not fit "
                           << argType
                           << ": its values [0, high) need high <= " << largest;
  return success();
}

//===----------------------------------------------------------------------===//
// OffloadOp, PrefetchOp
//===----------------------------------------------------------------------===//

LogicalResult OffloadOp::verify() {
  for (Operation *user : getResult().getUsers())
    if (!isa<PrefetchOp>(user))
      return emitOpError() << "result is read by '" << user->getName()
                           << "'; only a 'remat.prefetch' may read a host "
                              "copy";
  if (!getResult().hasOneUse())
    return emitOpError() << "result must have exactly one use, a "
                            "'remat.prefetch' (a host copy is not read "
                            "otherwise), found "
                         << std::distance(getResult().use_begin(),
                                          getResult().use_end());
  if (getResult().user_begin()->getBlock() != getOperation()->getBlock())
    return emitOpError() << "result must be prefetched in its own block";
  return success();
}

LogicalResult PrefetchOp::verify() {
  if (!getHost().getDefiningOp<OffloadOp>())
    return emitOpError() << "operand must be the host copy a 'remat.offload' "
                            "made";
  return success();
}

namespace {
/// What `remat.wait` writes: nothing at run time; the write only keeps
/// upstream passes from dropping, merging or moving the op.
struct HostCopyResource : public SideEffects::Resource::Base<HostCopyResource> {
  StringRef getName() final { return "remat::HostCopy"; }
};
} // namespace

LogicalResult WaitOp::verify() {
  Value input = getInput();
  if (!isa<TensorType>(input.getType()))
    return success(); // Bufferized: the offload is a copy by now.
  auto isOffload = [&](Operation *user) {
    return isa<OffloadOp>(user) &&
           user->getBlock() == getOperation()->getBlock() &&
           user->isBeforeInBlock(getOperation());
  };
  if (llvm::none_of(input.getUsers(), isOffload))
    return emitOpError() << "operand must be a value that a 'remat.offload' "
                            "earlier in the same block copies to the host";
  auto isEarlierWait = [&](Operation *user) {
    return isa<WaitOp>(user) && user != getOperation() &&
           user->getBlock() == getOperation()->getBlock() &&
           user->isBeforeInBlock(getOperation());
  };
  if (llvm::any_of(input.getUsers(), isEarlierWait))
    return emitOpError() << "operand is waited for already: one "
                            "'remat.wait' per offloaded value";
  return success();
}

void WaitOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (isa<BaseMemRefType>(getInput().getType()))
    effects.emplace_back(MemoryEffects::Read::get(), &getInputMutable());
  effects.emplace_back(MemoryEffects::Write::get(), HostCopyResource::get());
}

//===----------------------------------------------------------------------===//
// Bufferization of the host copies
//===----------------------------------------------------------------------===//
//
// How one-shot bufferization lowers `remat.offload` and `remat.prefetch`
// (docs/Offload.md): each copies its operand into a new buffer, the
// offload's in host memory (`getHostMemorySpace`), the prefetch's in the
// default (device) one. Neither result aliases its operand, so the operand's
// buffer dies at its last use, the copy, as the memory model counts it.

Attribute remat::getHostMemorySpace(MLIRContext *context) {
  return IntegerAttr::get(IntegerType::get(context, 64), 1);
}

bool remat::isHostMemorySpace(Attribute memorySpace) {
  return memorySpace &&
         memorySpace == getHostMemorySpace(memorySpace.getContext());
}

using namespace mlir::bufferization;

namespace {
/// An op that reads its operand, writes none and aliases none.
template <typename ConcreteModel, typename OpTy>
struct ReadsOperandModel
    : public BufferizableOpInterface::ExternalModel<ConcreteModel, OpTy> {
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
};

/// A copy into a new buffer of the operand's shape, in host memory (`Host`)
/// or the default one.
template <typename OpTy, bool Host>
struct CopyOpInterface
    : public ReadsOperandModel<CopyOpInterface<OpTy, Host>, OpTy> {
  bool bufferizesToAllocation(Operation *, Value) const { return true; }

  FailureOr<BufferLikeType> getBufferType(Operation *op, Value value,
                                          const BufferizationOptions &,
                                          const BufferizationState &,
                                          SmallVector<Value> &) const {
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
        dynamicSizes.push_back(
            memref::DimOp::create(rewriter, loc, *source, dim));
    SmallVector<Value> stack;
    FailureOr<BufferLikeType> type =
        getBufferType(op, op->getResult(0), options, state, stack);
    auto copy = memref::AllocOp::create(rewriter, loc, cast<MemRefType>(*type),
                                        dynamicSizes);
    memref::CopyOp::create(rewriter, loc, *source, copy);
    replaceOpWithBufferizedValues(rewriter, op, copy.getResult());
    return success();
  }
};

/// `remat.wait` on the operand's buffer: it reads it (so that the buffer
/// is freed after it), writes nothing and aliases nothing.
struct WaitOpInterface : public ReadsOperandModel<WaitOpInterface, WaitOp> {

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    FailureOr<Value> buffer =
        getBuffer(rewriter, op->getOperand(0), options, state);
    if (failed(buffer))
      return failure();
    rewriter.modifyOpInPlace(op, [&] { op->setOperand(0, *buffer); });
    return success();
  }
};
} // namespace

void RematDialect::registerBufferizationModels() {
  OffloadOp::attachInterface<CopyOpInterface<OffloadOp, true>>(*getContext());
  PrefetchOp::attachInterface<CopyOpInterface<PrefetchOp, false>>(
      *getContext());
  WaitOp::attachInterface<WaitOpInterface>(*getContext());
}
