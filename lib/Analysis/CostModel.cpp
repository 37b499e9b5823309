//===- CostModel.cpp - memory and compute cost of tensor ops --------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Implements the rules documented in CostModel.h and docs/CostModel.md.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/CostModel.h"

#include "remat/Analysis/Communication.h"

#include "remat/Analysis/Storage.h"
#include "remat/Support/JSON.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace remat;

//===----------------------------------------------------------------------===//
// Classification
//===----------------------------------------------------------------------===//

bool remat::producesTensor(Operation *op) {
  return llvm::any_of(op->getResultTypes(),
                      [](Type type) { return isa<TensorType>(type); });
}

bool remat::isCollectiveOp(Operation *op) {
  if (isa_and_present<mpi::MPIDialect>(op->getDialect()))
    return true;
  return isa<shard::AllGatherOp, shard::AllReduceOp, shard::AllSliceOp,
             shard::AllToAllOp, shard::BroadcastOp, shard::GatherOp,
             shard::RecvOp, shard::ReduceOp, shard::ReduceScatterOp,
             shard::ScatterOp, shard::SendOp, shard::ShiftOp,
             shard::UpdateHaloOp>(op);
}

bool remat::isParameterGather(Operation *op) {
  auto gather = dyn_cast<shard::AllGatherOp>(op);
  if (!gather)
    return false;
  auto arg = dyn_cast<BlockArgument>(gather.getInput());
  return arg && arg.getOwner()->isEntryBlock() &&
         isa<func::FuncOp>(arg.getOwner()->getParentOp()) &&
         arg.getOwner() == op->getBlock();
}

FlatSymbolRefAttr remat::getCollectiveGrid(Operation *op) {
  if (!isCollectiveOp(op))
    return nullptr;
  return op->getAttrOfType<FlatSymbolRefAttr>("grid");
}

int64_t remat::getScalarOpFlops(Operation *op) {
  if (!isa_and_present<arith::ArithDialect, math::MathDialect>(
          op->getDialect()))
    return 0;
  // Data movement and type conversion, not arithmetic.
  if (isa<arith::ConstantOp, arith::SelectOp, CastOpInterface>(op))
    return 0;
  // Address arithmetic on indices is not part of the model's computation.
  if (llvm::any_of(op->getResultTypes(), [](Type type) {
        return isa<IndexType>(getElementTypeOrSelf(type));
      }))
    return 0;
  if (isa<math::FmaOp>(op))
    return 2;
  return 1;
}

/// Sums getScalarOpFlops over every op nested in `region`.
static int64_t countPayloadFlops(Region &region) {
  int64_t count = 0;
  region.walk([&](Operation *nested) { count += getScalarOpFlops(nested); });
  return count;
}

//===----------------------------------------------------------------------===//
// computeOpCost
//===----------------------------------------------------------------------===//

namespace {

/// Computes the cost of one op, emitting diagnostics on it.
class OpCostComputer {
public:
  OpCostComputer(Operation *op, const CostModelOptions &options)
      : op(op), options(options) {}

  FailureOr<CostAttr> compute();

private:
  /// Replaces a dynamic `size` by the hint, or fails with an error that says
  /// which size (`what`) is dynamic.
  LogicalResult resolve(int64_t &size, const llvm::Twine &what);
  /// `acc *= factor`, failing on int64_t overflow.
  LogicalResult multiply(int64_t &acc, int64_t factor);
  /// Element count of the shaped `type` (`what` names it in messages).
  FailureOr<int64_t> getNumElements(ShapedType type, const llvm::Twine &what);
  /// Bytes owned by each result.
  LogicalResult computeBytes(SmallVectorImpl<int64_t> &bytes);
  /// FLOPs; std::nullopt if the op is unknown to the model.
  FailureOr<std::optional<int64_t>> computeFlops();
  /// Iteration-domain size x payload op count of a LinalgOp.
  FailureOr<int64_t> computeLinalgFlops(linalg::LinalgOp linalgOp);
  /// FLOPs of one execution of `region`: its ops costed as computeFlops
  /// costs them (scalar ops by getScalarOpFlops); std::nullopt if one of
  /// them is unknown to the model.
  FailureOr<std::optional<int64_t>> computeRegionFlops(Region &region);
  /// scf.for: trip count x body; scf.if: the costlier branch;
  /// scf.execute_region: its body. std::nullopt for any other op.
  FailureOr<std::optional<int64_t>> computeControlFlowFlops();

  Operation *op;
  const CostModelOptions &options;
  bool usedHint = false;
};

} // namespace

LogicalResult OpCostComputer::resolve(int64_t &size, const llvm::Twine &what) {
  if (!ShapedType::isDynamic(size))
    return success();
  if (!options.dynamicSizeHint)
    return op->emitOpError()
           << "has a dynamic " << what
           << "; its cost needs static shapes (set a size hint for dynamic "
              "dimensions with remat-annotate-costs{dynamic-size-hint=N})";
  size = *options.dynamicSizeHint;
  usedHint = true;
  return success();
}

LogicalResult OpCostComputer::multiply(int64_t &acc, int64_t factor) {
  int64_t product;
  if (llvm::MulOverflow(acc, factor, product))
    return op->emitOpError() << "has a cost that overflows a 64-bit integer";
  acc = product;
  return success();
}

FailureOr<int64_t> OpCostComputer::getNumElements(ShapedType type,
                                                  const llvm::Twine &what) {
  if (!type.hasRank())
    return op->emitOpError() << "has an unranked " << what << " (" << type
                             << "); the cost model needs ranked shapes";
  int64_t count = 1;
  for (auto [dim, staticSize] : llvm::enumerate(type.getShape())) {
    int64_t size = staticSize;
    std::string description;
    llvm::raw_string_ostream os(description);
    os << "dimension " << dim << " in " << what << " ('" << type << "')";
    if (failed(resolve(size, description)))
      return failure();
    if (failed(multiply(count, size)))
      return failure();
  }
  return count;
}

LogicalResult OpCostComputer::computeBytes(SmallVectorImpl<int64_t> &bytes) {
  bool noStorage = ownsNoStorage(op);
  DataLayout layout = DataLayout::closest(op);
  for (OpResult result : op->getResults()) {
    auto tensorType = dyn_cast<TensorType>(result.getType());
    // Scalars (and any non-tensor result) live in registers.
    if (!tensorType || noStorage) {
      bytes.push_back(0);
      continue;
    }
    std::string what = "result #" + std::to_string(result.getResultNumber());
    if (!getElementStorageBytes(tensorType.getElementType(), layout))
      return op->emitOpError()
             << "has " << what << " of element type "
             << tensorType.getElementType()
             << " whose size in bytes the cost model does not know";
    // Says which dimension is dynamic or unranked, and takes the hint.
    if (failed(getNumElements(tensorType, what)))
      return failure();
    std::optional<int64_t> size =
        getStorageBytes(tensorType, layout, options.dynamicSizeHint);
    if (!size || isSaturated(*size))
      return op->emitOpError() << "has a cost that overflows a 64-bit integer";
    bytes.push_back(*size);
  }
  return success();
}

FailureOr<int64_t>
OpCostComputer::computeLinalgFlops(linalg::LinalgOp linalgOp) {
  // Each loop's range is the size of an operand dimension indexed by exactly
  // that loop (a pure AffineDimExpr); prefer a static one when several are.
  unsigned numLoops = linalgOp.getNumLoops();
  SmallVector<int64_t> ranges(numLoops, ShapedType::kDynamic);
  SmallVector<bool> indexed(numLoops, false);
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = linalgOp.getMatchingIndexingMap(&operand);
    ArrayRef<int64_t> shape = linalgOp.getShape(&operand);
    for (auto [index, expr] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim || index >= shape.size())
        continue;
      unsigned loop = dim.getPosition();
      indexed[loop] = true;
      if (ShapedType::isDynamic(ranges[loop]))
        ranges[loop] = shape[index];
    }
  }
  int64_t domain = 1;
  for (unsigned loop = 0; loop < numLoops; ++loop) {
    if (!indexed[loop])
      return op->emitOpError()
             << "has loop d" << loop
             << " whose range is not the size of any operand dimension; the "
                "cost model cannot size its iteration domain";
    if (failed(resolve(ranges[loop], "range of loop d" + llvm::Twine(loop))) ||
        failed(multiply(domain, ranges[loop])))
      return failure();
  }
  int64_t flops = domain;
  if (failed(multiply(flops, countPayloadFlops(op->getRegion(0)))))
    return failure();
  return flops;
}

FailureOr<std::optional<int64_t>>
OpCostComputer::computeRegionFlops(Region &region) {
  int64_t total = 0;
  for (Operation &nested : region.getOps()) {
    int64_t flops = getScalarOpFlops(&nested);
    if (producesTensor(&nested) || nested.getNumRegions() > 0) {
      OpCostComputer computer(&nested, options);
      FailureOr<std::optional<int64_t>> nestedFlops = computer.computeFlops();
      usedHint |= computer.usedHint;
      if (failed(nestedFlops))
        return failure();
      // A scalar op with regions (a scalar scf.if, say) only needs a model
      // when it computes tensors.
      if (!nestedFlops->has_value() && producesTensor(&nested))
        return std::optional<int64_t>();
      flops = nestedFlops->value_or(flops);
    }
    if (llvm::AddOverflow(total, flops, total))
      return op->emitOpError() << "has a cost that overflows a 64-bit integer";
  }
  return std::optional<int64_t>(total);
}

FailureOr<std::optional<int64_t>> OpCostComputer::computeControlFlowFlops() {
  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    int64_t trips = ShapedType::kDynamic;
    if (std::optional<APInt> count = forOp.getStaticTripCount())
      trips = count->getSExtValue();
    if (failed(resolve(trips, "trip count")))
      return failure();
    FailureOr<std::optional<int64_t>> body =
        computeRegionFlops(forOp.getRegion());
    if (failed(body) || !body->has_value())
      return body;
    int64_t flops = **body;
    if (failed(multiply(flops, trips)))
      return failure();
    return std::optional<int64_t>(flops);
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    int64_t flops = 0;
    for (Region *branch : {&ifOp.getThenRegion(), &ifOp.getElseRegion()}) {
      FailureOr<std::optional<int64_t>> cost = computeRegionFlops(*branch);
      if (failed(cost) || !cost->has_value())
        return cost;
      flops = std::max(flops, **cost);
    }
    return std::optional<int64_t>(flops);
  }
  if (auto executeRegion = dyn_cast<scf::ExecuteRegionOp>(op)) {
    if (!executeRegion.getRegion().hasOneBlock())
      return std::optional<int64_t>();
    return computeRegionFlops(executeRegion.getRegion());
  }
  return std::optional<int64_t>();
}

FailureOr<std::optional<int64_t>> OpCostComputer::computeFlops() {
  if (isViewOp(op))
    return std::optional<int64_t>(0);

  if (isa<scf::ForOp, scf::IfOp, scf::ExecuteRegionOp>(op))
    return computeControlFlowFlops();

  // Communication moves bytes, it does no arithmetic; computeOpCost gives
  // a collective its time on the link instead (Communication.h).
  if (isCollectiveOp(op))
    return std::optional<int64_t>(0);

  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    FailureOr<int64_t> flops = computeLinalgFlops(linalgOp);
    if (failed(flops))
      return failure();
    return std::optional<int64_t>(*flops);
  }

  // softmax(x) along one dimension = max-reduce, subtract, exp, sum-reduce
  // and divide: 5 operations per element of the output.
  if (auto softmax = dyn_cast<linalg::SoftmaxOp>(op)) {
    FailureOr<int64_t> count = getNumElements(
        cast<ShapedType>(softmax.getOutput().getType()), "output");
    int64_t flops = 5;
    if (failed(count) || failed(multiply(flops, *count)))
      return failure();
    return std::optional<int64_t>(flops);
  }

  // Elementwise arith/math applied to whole tensors.
  if (isa_and_present<arith::ArithDialect, math::MathDialect>(
          op->getDialect()) &&
      !isa<arith::ConstantOp>(op)) {
    if (!op->hasTrait<OpTrait::Elementwise>())
      return std::optional<int64_t>();
    FailureOr<int64_t> count = getNumElements(
        cast<ShapedType>(op->getResult(0).getType()), "result #0");
    int64_t flops = getScalarOpFlops(op);
    if (failed(count) || failed(multiply(flops, *count)))
      return failure();
    return std::optional<int64_t>(flops);
  }

  // tensor.generate evaluates its body once per element.
  if (auto generate = dyn_cast<tensor::GenerateOp>(op)) {
    FailureOr<int64_t> count = getNumElements(generate.getType(), "result #0");
    int64_t flops = countPayloadFlops(generate.getBody());
    if (failed(count) || failed(multiply(flops, *count)))
      return failure();
    return std::optional<int64_t>(flops);
  }

  // Allocation, constants and pure data movement: no arithmetic.
  if (isa<arith::ConstantOp, tensor::EmptyOp, tensor::SplatOp,
          tensor::FromElementsOp, tensor::InsertOp, tensor::InsertSliceOp,
          tensor::PadOp, tensor::ConcatOp, tensor::GatherOp, tensor::ScatterOp,
          linalg::PackOp, linalg::UnPackOp, bufferization::AllocTensorOp,
          bufferization::MaterializeInDestinationOp>(op))
    return std::optional<int64_t>(0);

  return std::optional<int64_t>();
}

FailureOr<CostAttr> OpCostComputer::compute() {
  if (!producesTensor(op))
    return op->emitOpError()
           << "produces no tensor; the cost model only costs tensor results";
  FailureOr<std::optional<int64_t>> flops = computeFlops();
  if (failed(flops))
    return failure();
  bool unknown = !flops->has_value();
  if (isa<CallOpInterface>(op) && !options.allowUnknown)
    return op->emitOpError()
           << "calls a function the cost model cannot see into; inline it "
              "first (--inline; --remat-pipeline does), or attach a "
              "remat.cost by hand";
  if (unknown && !options.allowUnknown)
    return op->emitOpError()
           << "is not supported by the cost model (use "
              "remat-annotate-costs{allow-unknown} to cost it from its result "
              "types with 0 FLOPs, or attach a remat.cost by hand)";

  SmallVector<int64_t> bytes;
  if (failed(computeBytes(bytes)))
    return failure();

  if (options.emitWarnings) {
    if (unknown)
      op->emitWarning() << "'" << op->getName()
                        << "' is not supported by the cost model; assuming "
                           "bytes from its result types and 0 FLOPs";
    if (usedHint)
      op->emitWarning() << "cost assumes every dynamic dimension has size "
                        << *options.dynamicSizeHint;
  }
  return CostAttr::get(op->getContext(), bytes, flops->value_or(0),
                       /*roofline_ps=*/std::nullopt, /*time_ns=*/std::nullopt);
}

FailureOr<CostAttr> remat::addPredictedTime(Operation *op, CostAttr cost,
                                            const CostModelOptions &options) {
  const DeviceSpec *device = getDeviceSpec(options.device);
  if (!device)
    return cost;
  FailureOr<int64_t> picoseconds =
      computeRooflinePs(op, cost.getFlops(), *device, options.dynamicSizeHint);
  if (failed(picoseconds))
    return failure();
  return CostAttr::get(op->getContext(), cost.getBytes(), cost.getFlops(),
                       *picoseconds, cost.getTimeNs());
}

/// `cost` of the collective `op` with its time on `link`: its roofline time
/// with a device, its FLOPs (as FLOP-equivalents) without one.
static FailureOr<CostAttr> addLinkTime(Operation *op, CostAttr cost,
                                       const LinkSpec &link,
                                       const CostModelOptions &options) {
  FailureOr<int64_t> picoseconds =
      computeCommunicationPs(op, link, options.dynamicSizeHint);
  if (failed(picoseconds))
    return failure();
  if (getDeviceSpec(options.device))
    return CostAttr::get(op->getContext(), cost.getBytes(), cost.getFlops(),
                         *picoseconds, cost.getTimeNs());
  auto flops = static_cast<int64_t>(std::llround(
      static_cast<double>(*picoseconds) * kFlopEquivalentsPerPicosecond));
  return CostAttr::get(op->getContext(), cost.getBytes(), flops, std::nullopt,
                       std::nullopt);
}

FailureOr<CostAttr> remat::computeOpCost(Operation *op,
                                         const CostModelOptions &options) {
  FailureOr<CostAttr> cost = OpCostComputer(op, options).compute();
  if (failed(cost))
    return failure();
  if (const LinkSpec *link = getLinkSpec(options.link);
      link && isCollectiveOp(op))
    return addLinkTime(op, *cost, *link, options);
  return addPredictedTime(op, *cost, options);
}

std::optional<std::string> remat::getUnderstatedCostBytes(Operation *op,
                                                          CostAttr cost) {
  if (ownsNoStorage(op))
    return std::nullopt;
  for (auto [result, bytes] : llvm::zip(op->getResults(), cost.getBytes())) {
    auto type = dyn_cast<ShapedType>(result.getType());
    if (!type || !isa<TensorType, BaseMemRefType>(type) ||
        !type.hasStaticShape())
      continue;
    std::optional<int64_t> least = getStorageBytes(type, op);
    // 0 says that the result shares another value's buffer (an in-place
    // update, an alias): it owns none, which the docs allow.
    if (bytes == 0 || !least || isSaturated(*least) || bytes >= *least)
      continue;
    return llvm::formatv("has a 'remat.cost' of {0} bytes for result #{1} "
                         "({2}), which takes {3} bytes: a cost may overstate "
                         "a statically shaped result, never understate it",
                         bytes, result.getResultNumber(), type, *least)
        .str();
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// CostProfile
//===----------------------------------------------------------------------===//

static llvm::Error makeProfileError(llvm::StringRef path,
                                    const llvm::Twine &message) {
  return llvm::make_error<llvm::StringError>(
      "profile '" + path + "': " + message, llvm::inconvertibleErrorCode());
}

llvm::Expected<CostProfile> CostProfile::load(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return makeProfileError(path, "cannot read the file: " +
                                      buffer.getError().message());
  return parse((*buffer)->getBuffer(), path);
}

namespace {
/// One entry of a profile as written; a null member counts as absent.
struct ProfileEntry {
  std::optional<std::string> loc, name;
  JSONNumber timeNs;
};

bool fromJSON(const llvm::json::Value &value, ProfileEntry &out,
              llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  return o && o.mapOptional("loc", out.loc) &&
         o.mapOptional("name", out.name) && o.map("time_ns", out.timeNs);
}
} // namespace

/// Adds the entry `value` (at `path`) to `byLoc` or `byName`, or records
/// what is wrong with it in `errors`.
static bool addProfileEntry(const llvm::json::Value &value,
                            llvm::json::Path path, JSONErrors &errors,
                            llvm::StringMap<int64_t> &byLoc,
                            llvm::StringMap<int64_t> &byName) {
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return errors.fail(path, "expected an object");
  if (!object->get("loc") == !object->get("name"))
    return errors.fail(path, "expected exactly one of \"loc\" and \"name\"");
  ProfileEntry entry;
  if (!requireKeys(*object, {"time_ns"}, path, errors) ||
      !fromJSON(value, entry, path))
    return false;
  const char *keyName = entry.loc ? "loc" : "name";
  std::string key = entry.loc ? *entry.loc : *entry.name;
  if (key.empty())
    return errors.fail(path.field(keyName), "must be a non-empty string");
  double time = entry.timeNs.value;
  if (time < 0 || time > 9.0e18)
    return errors.fail(path.field("time_ns"),
                       "must be a non-negative number below 9e18");
  llvm::StringMap<int64_t> &map = entry.loc ? byLoc : byName;
  if (!map.try_emplace(key, static_cast<int64_t>(std::llround(time))).second)
    return errors.fail(path, "duplicate entry for \"" + key + "\"");
  return true;
}

llvm::Expected<CostProfile> CostProfile::parse(llvm::StringRef contents,
                                               llvm::StringRef path) {
  llvm::Expected<llvm::json::Value> root = parseJSON(contents);
  if (!root)
    return makeProfileError(path, llvm::toString(root.takeError()));
  const llvm::json::Object *object = root->getAsObject();
  if (!object)
    return makeProfileError(path, "expected a JSON object with an \"ops\" "
                                  "array at the top level");
  const llvm::json::Array *ops = object->getArray("ops");
  if (!ops)
    return makeProfileError(path, "expected an \"ops\" array at the top level");

  CostProfile profile;
  JSONErrors errors;
  // A json::Path refers to its parent: keep every level in a variable.
  llvm::json::Path rootPath = errors.root();
  llvm::json::Path opsPath = rootPath.field("ops");
  for (auto [index, entry] : llvm::enumerate(*ops))
    if (!addProfileEntry(entry, opsPath.index(index), errors, profile.byLoc,
                         profile.byName))
      return makeProfileError(path, errors.getMessage());
  return profile;
}

std::optional<int64_t> CostProfile::lookup(Operation *op) const {
  SmallVector<FileLineColLoc> fileLocs;
  SmallVector<StringRef> names;
  LocationAttr(op->getLoc()).walk([&](Location loc) {
    if (auto fileLoc = dyn_cast<FileLineColLoc>(loc))
      fileLocs.push_back(fileLoc);
    else if (auto nameLoc = dyn_cast<NameLoc>(loc))
      names.push_back(nameLoc.getName().getValue());
    return WalkResult::advance();
  });

  auto find = [](const llvm::StringMap<int64_t> &map,
                 StringRef key) -> std::optional<int64_t> {
    auto it = map.find(key);
    if (it == map.end())
      return std::nullopt;
    return it->second;
  };

  // Exact "file:line:col" first, then "file:line".
  for (bool withColumn : {true, false}) {
    for (FileLineColLoc fileLoc : fileLocs) {
      SmallString<128> key;
      llvm::raw_svector_ostream os(key);
      os << fileLoc.getFilename().getValue() << ':' << fileLoc.getLine();
      if (withColumn)
        os << ':' << fileLoc.getColumn();
      if (std::optional<int64_t> time = find(byLoc, key))
        return time;
    }
  }
  for (StringRef name : names)
    if (std::optional<int64_t> time = find(byName, name))
      return time;
  return find(byName, op->getName().getStringRef());
}

//===----------------------------------------------------------------------===//
// Dynamic-size hint
//===----------------------------------------------------------------------===//

std::optional<int64_t> remat::getDynamicSizeHint(func::FuncOp func) {
  if (auto hint = func->getAttrOfType<IntegerAttr>(
          RematDialect::kDynamicSizeHintAttrName))
    return hint.getInt();
  return std::nullopt;
}
