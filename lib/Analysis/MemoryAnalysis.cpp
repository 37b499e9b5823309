//===- MemoryAnalysis.cpp - liveness and peak memory of a function --------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The memory model is documented in docs/Rationale.md ("Memory model") and
// matches include/remat/Solver/Core/Problem.h.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/MemoryAnalysis.h"

#include "remat/Analysis/CostModel.h"

#include "remat/Analysis/Storage.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Solver/Core/Problem.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/BufferViewFlowAnalysis.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace remat;

//===----------------------------------------------------------------------===//
// Sizes
//===----------------------------------------------------------------------===//

/// Bytes of `result` recorded by `remat.cost`, if its op has one; fails the
/// analysis when that cost understates a result (getUnderstatedCostBytes).
std::optional<int64_t> MemoryAnalysis::getCheckedCostBytes(OpResult result) {
  Operation *op = result.getOwner();
  auto cost = op->getAttrOfType<CostAttr>(RematDialect::kCostAttrName);
  if (cost)
    if (std::optional<std::string> why = getUnderstatedCostBytes(op, cost)) {
      fail(op, *why);
      return std::nullopt;
    }
  if (!cost || result.getResultNumber() >= cost.getBytes().size())
    return std::nullopt;
  return cost.getBytes()[result.getResultNumber()];
}

//===----------------------------------------------------------------------===//
// Control flow helpers
//===----------------------------------------------------------------------===//

/// Whether `freeOp` certainly runs, once, every time `allocOp` ran: every op
/// between `freeOp` and the innermost region holding `allocOp` is an
/// `scf.if` whose constant condition selects `freeOp`'s branch, or an op
/// that runs its region exactly once.
static bool certainlyRunsAfter(Operation *freeOp, Operation *allocOp) {
  Region *region = freeOp->getParentRegion();
  while (region && !region->findAncestorOpInRegion(*allocOp)) {
    Operation *parent = region->getParentOp();
    if (auto ifOp = dyn_cast<scf::IfOp>(parent)) {
      bool inThen = region == &ifOp.getThenRegion();
      if (inThen ? !matchPattern(ifOp.getCondition(), m_One())
                 : !matchPattern(ifOp.getCondition(), m_Zero()))
        return false;
    } else if (!isa<scf::ExecuteRegionOp, memref::AllocaScopeOp>(parent)) {
      return false;
    }
    region = parent->getParentRegion();
  }
  return region != nullptr;
}

//===----------------------------------------------------------------------===//
// MemoryAnalysis
//===----------------------------------------------------------------------===//

MemoryAnalysis::MemoryAnalysis(Operation *op)
    : MemoryAnalysis(op, MemoryAnalysisOptions()) {}

MemoryAnalysis::MemoryAnalysis(Operation *op,
                               const MemoryAnalysisOptions &options)
    : function(op), options(options) {
  analyse();
  storageOf.clear();
  if (error) {
    ops.clear();
    indexOf.clear();
    timeline.clear();
    transientBytes.clear();
    buffers.clear();
    peakBytes = residentBytes = totalBytes = 0;
    unsizedArguments = 0;
    peakIndex = 0;
  }
}

LogicalResult MemoryAnalysis::emitError() const {
  if (!error)
    return success();
  // At the op's location, without printing the op: for a function that
  // would be the whole body in generic form.
  return mlir::emitError(error->op->getLoc())
         << "'" << error->op->getName() << "' op " << error->message;
}

void MemoryAnalysis::attachPeakNotes(mlir::InFlightDiagnostic &diag,
                                     llvm::StringRef what,
                                     unsigned maxValues) const {
  Operation *peakOp = getPeakOp();
  if (!succeeded() || !peakOp)
    return;
  diag.attachNote(peakOp->getLoc())
      << what << " of " << peakBytes << " bytes is reached at this '"
      << peakOp->getName() << "' (" << residentBytes
      << " bytes of it are arguments)";
  unsigned shown = 0;
  for (const BufferLiveRange *buffer : getLiveBuffers(peakIndex)) {
    if (shown == maxValues)
      break;
    if (buffer->kind == BufferLiveRange::Kind::Argument)
      continue;
    Location loc = buffer->op ? buffer->op->getLoc() : function->getLoc();
    Diagnostic &note = diag.attachNote(loc);
    note << "live there: " << buffer->bytes << " bytes of type "
         << buffer->value.getType();
    if (buffer->op)
      note << ", result of '" << buffer->op->getName() << "'";
    ++shown;
  }
}

std::optional<std::string> MemoryAnalysis::getErrorMessage() const {
  if (!error)
    return std::nullopt;
  return error->message;
}

std::optional<unsigned> MemoryAnalysis::getIndex(Operation *op) const {
  auto it = indexOf.find(op);
  if (it == indexOf.end())
    return std::nullopt;
  return it->second;
}

std::optional<int64_t> MemoryAnalysis::getLiveBytes(Operation *op) const {
  if (std::optional<unsigned> index = getIndex(op))
    return timeline[*index];
  return std::nullopt;
}

/// Whether `buffer` is a tensor defined in a region of the top-level op it
/// is live at, and so transient there.
static bool isTransient(const BufferLiveRange &buffer,
                        ArrayRef<Operation *> ops) {
  return buffer.kind == BufferLiveRange::Kind::Tensor && buffer.op &&
         buffer.op != ops[buffer.begin];
}

int64_t MemoryAnalysis::getLargestTransientBytes(int64_t alignment) const {
  SmallVector<int64_t> aligned(ops.size(), 0);
  for (const BufferLiveRange &buffer : buffers)
    if (isTransient(buffer, ops))
      aligned[buffer.begin] += llvm::alignTo(buffer.bytes, alignment);
  int64_t largest = 0;
  for (int64_t bytes : aligned)
    largest = std::max(largest, bytes);
  return largest;
}

int64_t MemoryAnalysis::getTransientBytes(unsigned index) const {
  return index < transientBytes.size() ? transientBytes[index] : 0;
}

SmallVector<const BufferLiveRange *>
MemoryAnalysis::getLiveBuffers(unsigned index) const {
  SmallVector<const BufferLiveRange *> live;
  for (const BufferLiveRange &buffer : buffers)
    if (buffer.begin <= index && index <= buffer.end)
      live.push_back(&buffer);
  std::stable_sort(live.begin(), live.end(),
                   [](const BufferLiveRange *a, const BufferLiveRange *b) {
                     return a->bytes > b->bytes;
                   });
  return live;
}

/// Whether `result` is a fresh allocation, and whether it is released when
/// its automatic allocation scope ends (alloca) rather than by a dealloc.
static bool isAllocation(OpResult result, bool &scoped) {
  if (!isa<BaseMemRefType>(result.getType()))
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(result.getOwner());
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffectsOnValue(result, instances);
  for (const MemoryEffects::EffectInstance &instance : instances) {
    if (!isa<MemoryEffects::Allocate>(instance.getEffect()))
      continue;
    scoped = isa<SideEffects::AutomaticAllocationScopeResource>(
        instance.getResource());
    return true;
  }
  return false;
}

void MemoryAnalysis::fail(Operation *op, const Twine &message) {
  if (!error)
    error = Error{op, message.str()};
}

Block *MemoryAnalysis::getBody() {
  auto func = dyn_cast<FunctionOpInterface>(function);
  if (!func) {
    fail(function, "is not a function: the memory analysis runs on "
                   "functions (func.func)");
    return nullptr;
  }
  if (func.isExternal())
    return nullptr;
  Region &body = func.getFunctionBody();
  if (!body.hasOneBlock()) {
    fail(function,
         llvm::formatv("has a body of {0} blocks: the memory analysis "
                       "supports single-block bodies (structured "
                       "control flow) only",
                       body.getBlocks().size()));
    return nullptr;
  }
  return &body.front();
}

void MemoryAnalysis::analyse() {
  Block *block = getBody();
  if (!block)
    return;
  for (Operation &op : *block)
    ops.push_back(&op);
  if (ops.empty())
    return;
  for (auto [index, op] : llvm::enumerate(ops))
    indexOf[op] = index;
  if (options.countArguments)
    addArgumentBuffers(*block);
  if (failed(addResultBuffers()))
    return;
  extendTensorLiveness();
  if (llvm::any_of(buffers, [](const BufferLiveRange &buffer) {
        return buffer.kind == BufferLiveRange::Kind::Allocation;
      }))
    applyDeallocations(*block);
  buildTimeline();
}

unsigned MemoryAnalysis::topIndex(Operation *op) const {
  Block *block = ops.front()->getBlock();
  return indexOf.lookup(block->findAncestorOpInBlock(*op));
}

void MemoryAnalysis::addBuffer(BufferLiveRange::Kind kind, Value value,
                               Operation *op, int64_t bytes, unsigned begin,
                               unsigned end) {
  buffers.push_back({kind, value, op, bytes, begin, end});
  storageOf[value] = buffers.size() - 1;
}

/// Arguments: resident for the whole function. A dynamically shaped
/// argument cannot be sized: it is not counted, and reported as unsized.
void MemoryAnalysis::addArgumentBuffers(Block &block) {
  const unsigned last = ops.size() - 1;
  for (BlockArgument arg : block.getArguments()) {
    // Scalars and vectors live in registers.
    if (!isa<TensorType, BaseMemRefType>(arg.getType()))
      continue;
    std::optional<int64_t> bytes = getStorageBytes(arg.getType(), function);
    if (!bytes) {
      ++unsizedArguments;
      continue;
    }
    if (*bytes > 0)
      addBuffer(BufferLiveRange::Kind::Argument, arg, nullptr, *bytes, 0, last);
  }
}

/// Bytes a tensor result owns: `remat.cost`, else the fallback rules.
std::optional<int64_t> MemoryAnalysis::getTensorBytes(OpResult result) {
  Operation *op = result.getOwner();
  if (std::optional<int64_t> bytes = getCheckedCostBytes(result))
    return bytes;
  if (error)
    return std::nullopt;
  // Constants are static data, not heap (Problem.h: constants are free).
  if (op->hasTrait<OpTrait::ConstantLike>())
    return 0;
  if (options.requireCosts) {
    fail(op, "produces a tensor but has no 'remat.cost' attribute (run "
             "--remat-annotate-costs first)");
    return std::nullopt;
  }
  // Views own nothing; a tensor.empty's (or an alloc_tensor's without
  // copy, which --remat-rematerialize makes) storage is counted on the
  // destination-style op that writes into it; a to_tensor's on the memref
  // it wraps.
  if (ownsNoStorage(op))
    return 0;
  if (std::optional<int64_t> bytes = getStorageBytes(result.getType(), op))
    return bytes;
  fail(op, llvm::formatv("result #{0} of type {1} has no 'remat.cost' "
                         "attribute and no static size: the memory "
                         "analysis needs static shapes or a cost",
                         result.getResultNumber(), result.getType()));
  return std::nullopt;
}

/// Bytes a memref allocation owns: a `remat.cost` size hint, else its type.
std::optional<int64_t> MemoryAnalysis::getAllocationBytes(OpResult result) {
  Operation *op = result.getOwner();
  std::optional<int64_t> bytes = getCheckedCostBytes(result);
  if (error)
    return std::nullopt;
  if (!bytes)
    bytes =
        getStorageBytes(result.getType(), op,
                        options.dynamicSizeHint > 0
                            ? std::optional<int64_t>(options.dynamicSizeHint)
                            : std::nullopt);
  if (!bytes) {
    fail(op, llvm::formatv("allocates {0}, which has no static size: the "
                           "memory analysis needs static shapes, a "
                           "'remat.cost' size hint or a dynamic-size hint",
                           result.getType()));
    return std::nullopt;
  }
  if (options.countAlignmentPadding)
    if (auto alignment = op->getAttrOfType<IntegerAttr>("alignment"))
      if (llvm::AddOverflow(*bytes, alignment.getInt(), *bytes))
        *bytes = std::numeric_limits<int64_t>::max();
  return bytes;
}

/// Pass 1: tensor results and allocations, in program order. A zero-byte
/// top-level tensor shares its storage source's buffer.
LogicalResult MemoryAnalysis::addResultBuffers() {
  const unsigned last = ops.size() - 1;
  for (auto [index, top] : llvm::enumerate(ops)) {
    WalkResult walk = top->walk<WalkOrder::PreOrder>([&](Operation *op) {
      bool nested = op != top;
      for (OpResult result : op->getResults()) {
        bool scoped = false;
        if (isa<TensorType>(result.getType())) {
          std::optional<int64_t> bytes = getTensorBytes(result);
          if (!bytes)
            return WalkResult::interrupt();
          if (*bytes > 0) {
            addBuffer(BufferLiveRange::Kind::Tensor, result, op, *bytes, index,
                      index);
          } else if (!nested) {
            if (Value source = getStorageSource(result)) {
              auto it = storageOf.find(source);
              if (it != storageOf.end())
                storageOf[result] = it->second;
            }
          }
        } else if (isAllocation(result, scoped)) {
          std::optional<int64_t> bytes = getAllocationBytes(result);
          if (!bytes)
            return WalkResult::interrupt();
          unsigned end = last;
          if (scoped) {
            Operation *scope =
                op->getParentWithTrait<OpTrait::AutomaticAllocationScope>();
            if (scope && scope != function)
              end = index;
          }
          if (*bytes > 0)
            addBuffer(BufferLiveRange::Kind::Allocation, result, op, *bytes,
                      index, end);
        }
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
  }
  return success();
}

/// Tensor liveness: a top-level value keeps its storage live until its last
/// use (uses in nested regions count at the enclosing top-level op). Values
/// defined in nested regions are transient at their top-level op.
void MemoryAnalysis::extendTensorLiveness() {
  for (Operation *top : ops) {
    for (Value result : top->getResults()) {
      auto it = storageOf.find(result);
      if (it == storageOf.end())
        continue;
      BufferLiveRange &buffer = buffers[it->second];
      if (buffer.kind != BufferLiveRange::Kind::Tensor)
        continue;
      for (Operation *user : result.getUsers())
        buffer.end = std::max(buffer.end, topIndex(user));
    }
  }
}

/// Pass 2: an allocation certainly freed (a dealloc, or an op with a free
/// effect, that runs whenever it was allocated) ends its live range there.
void MemoryAnalysis::applyDeallocations(Block &block) {
  BufferViewFlowAnalysis aliases(function);
  // The single allocation `value` may come from, if there is one.
  auto uniqueAllocation = [&](Value value) -> std::optional<unsigned> {
    std::optional<unsigned> found;
    for (Value origin : aliases.resolveReverse(value)) {
      if (isa<BlockArgument>(origin) &&
          cast<BlockArgument>(origin).getOwner() == &block)
        return std::nullopt; // may be a function argument
      auto it = storageOf.find(origin);
      if (it == storageOf.end() ||
          buffers[it->second].kind != BufferLiveRange::Kind::Allocation)
        continue;
      if (found && *found != it->second)
        return std::nullopt;
      found = it->second;
    }
    return found;
  };
  auto release = [&](Operation *freeOp, Value memref) {
    std::optional<unsigned> id = uniqueAllocation(memref);
    if (!id)
      return;
    BufferLiveRange &buffer = buffers[*id];
    unsigned at = topIndex(freeOp);
    if (at < buffer.begin || !certainlyRunsAfter(freeOp, buffer.op))
      return;
    // Freed by a later top-level op: live up to the op before it. Freed
    // within the op that allocated it: live at that op only.
    buffer.end = std::min(buffer.end, at == buffer.begin ? at : at - 1);
  };
  function->walk([&](Operation *op) {
    if (auto dealloc = dyn_cast<bufferization::DeallocOp>(op)) {
      for (auto [memref, condition] :
           llvm::zip(dealloc.getMemrefs(), dealloc.getConditions()))
        if (matchPattern(condition, m_One()))
          release(op, memref);
      return;
    }
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return;
    for (OpOperand &operand : op->getOpOperands()) {
      if (!isa<BaseMemRefType>(operand.get().getType()))
        continue;
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffectsOnValue(operand.get(), instances);
      if (llvm::any_of(instances, [](const auto &instance) {
            return isa<MemoryEffects::Free>(instance.getEffect());
          }))
        release(op, operand.get());
    }
  });
}

/// The timeline (a difference array over [begin, end] ranges), the peak,
/// the resident bytes and each op's transient bytes.
void MemoryAnalysis::buildTimeline() {
  SmallVector<int64_t> delta(ops.size() + 1, 0);
  transientBytes.assign(ops.size(), 0);
  for (const BufferLiveRange &buffer : buffers) {
    if (!addBytes(totalBytes, buffer.bytes)) {
      totalBytes = 0;
      return fail(
          buffer.op ? buffer.op : function,
          "brings the sizes of the function's buffers to more than 2^62 "
          "bytes (4 EiB): sizes this large cannot be represented");
    }
    delta[buffer.begin] += buffer.bytes;
    delta[buffer.end + 1] -= buffer.bytes;
    if (buffer.kind == BufferLiveRange::Kind::Argument)
      residentBytes += buffer.bytes;
    if (isTransient(buffer, ops))
      transientBytes[buffer.begin] += buffer.bytes;
  }
  int64_t live = 0;
  for (unsigned index = 0; index < ops.size(); ++index) {
    live += delta[index];
    timeline.push_back(live);
    if (live > peakBytes) {
      peakBytes = live;
      peakIndex = index;
    }
  }
}

//===----------------------------------------------------------------------===//
// Arena problems
//===----------------------------------------------------------------------===//

int64_t remat::getArenaLimit(Operation *scope) {
  DataLayout layout = DataLayout::closest(scope);
  uint64_t bits = layout.getTypeSizeInBits(IndexType::get(scope->getContext()));
  if (bits == 0 || bits >= 64)
    return kMaxTotalBytes;
  return std::min<int64_t>(kMaxTotalBytes, (int64_t(1) << (bits - 1)) - 1);
}

ArenaProblem
remat::getArenaProblem(const MemoryAnalysis &analysis, int64_t alignment,
                       function_ref<bool(const BufferLiveRange &)> select,
                       SmallVectorImpl<const BufferLiveRange *> *selected) {
  ArenaProblem problem;
  problem.alignment = alignment;
  problem.maxBytes = getArenaLimit(analysis.getFunction());
  for (const BufferLiveRange &buffer : analysis.getBuffers()) {
    if (!select(buffer))
      continue;
    problem.buffers.push_back({buffer.bytes, static_cast<int>(buffer.begin),
                               static_cast<int>(buffer.end)});
    if (selected)
      selected->push_back(&buffer);
  }
  return problem;
}

//===----------------------------------------------------------------------===//
// JSON report
//===----------------------------------------------------------------------===//

/// "file:line:col" of `loc` (the first file location inside it), or "".
static std::string formatLocation(Location loc) {
  if (auto file = loc->findInstanceOf<FileLineColLoc>())
    return llvm::formatv("{0}:{1}:{2}", file.getFilename().getValue(),
                         file.getLine(), file.getColumn())
        .str();
  return "";
}

void MemoryAnalysis::writeJSON(llvm::json::OStream &json) const {
  std::string name;
  if (auto symbol =
          function->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
    name = symbol.str();
  AsmState state(function, OpPrintingFlags().useLocalScope());
  auto printValue = [&](Value value) {
    std::string text;
    llvm::raw_string_ostream os(text);
    value.printAsOperand(os, state);
    return text;
  };

  json.object([&] {
    json.attribute("name", name);
    json.attribute("peak_bytes", peakBytes);
    json.attribute("peak_op_index", static_cast<int64_t>(peakIndex));
    json.attribute("peak_op",
                   ops.empty() ? std::string()
                               : getPeakOp()->getName().getStringRef().str());
    json.attribute("peak_loc", ops.empty()
                                   ? std::string()
                                   : formatLocation(getPeakOp()->getLoc()));
    json.attribute("resident_bytes", residentBytes);
    json.attribute("total_bytes", totalBytes);
    json.attribute("unsized_arguments", static_cast<int64_t>(unsizedArguments));
    json.attributeArray("timeline", [&] {
      for (auto [index, op] : llvm::enumerate(ops)) {
        json.object([&] {
          json.attribute("index", static_cast<int64_t>(index));
          json.attribute("op", op->getName().getStringRef());
          json.attribute("live_bytes", timeline[index]);
        });
      }
    });
    json.attributeArray("live_at_peak", [&] {
      if (ops.empty())
        return;
      for (const BufferLiveRange *buffer : getLiveBuffers(peakIndex)) {
        json.object([&] {
          json.attribute("value", printValue(buffer->value));
          json.attribute("op", buffer->op ? buffer->op->getName().getStringRef()
                                          : StringRef("argument"));
          json.attribute("loc",
                         formatLocation(buffer->op ? buffer->op->getLoc()
                                                   : buffer->value.getLoc()));
          json.attribute("bytes", buffer->bytes);
        });
      }
    });
  });
}

void remat::writeMemoryReport(ArrayRef<const MemoryAnalysis *> analyses,
                              llvm::raw_ostream &os) {
  llvm::json::OStream json(os, /*IndentSize=*/2);
  json.object([&] {
    json.attributeArray("functions", [&] {
      for (const MemoryAnalysis *analysis : analyses)
        if (analysis->succeeded())
          analysis->writeJSON(json);
    });
  });
  os << "\n";
}
