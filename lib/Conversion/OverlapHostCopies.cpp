//===- OverlapHostCopies.cpp - Host copies on streams of their own -------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Implements `remat-overlap-host-copies` (Passes.td): after gpu-async-region
// has put a step's kernels, frees and copies on one stream, each copy to or
// from page-locked host memory moves to a stream of its own that forks from
// the compute stream where the copy was, and the compute stream joins it
// (an event, `gpu.wait async` on both) right before the first later op that
// touches memory the copy touches. The copies stay in program order among
// themselves, as the planner's copy queue has them.
//
//===----------------------------------------------------------------------===//

#include "remat/Conversion/Passes.h"

#include "remat/Analysis/Storage.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <deque>

namespace remat {
#define GEN_PASS_DEF_REMATOVERLAPHOSTCOPIES
#include "remat/Conversion/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {

/// The memory a buffer lies in: its root (an allocation or a block
/// argument) and the bytes [begin, end) of it, or all of it (end = -1).
struct Footprint {
  Value root;
  int64_t begin = 0;
  int64_t end = -1;

  /// Whether two footprints may share a byte. Block arguments may alias
  /// one another; distinct allocations do not.
  bool overlaps(const Footprint &other) const {
    if (root != other.root)
      return isa<BlockArgument>(root) && isa<BlockArgument>(other.root);
    return end < 0 || other.end < 0 ||
           (begin < other.end && other.begin < end);
  }
};

/// Where `buffer` lies: up through views and casts to its root; the bytes
/// of a `memref.view` at a constant shift into the root, of static shape,
/// are known, those of anything else are all of the root.
Footprint getFootprint(Value buffer) {
  Footprint footprint;
  bool ranged = false;
  Value current = buffer;
  while (Operation *def = current.getDefiningOp()) {
    Value source = getViewSource(def);
    if (!source)
      break;
    std::optional<int64_t> shift, bytes;
    auto view = dyn_cast<memref::ViewOp>(def);
    if (view && view.getSizes().empty()) {
      shift = getConstantIntValue(view.getByteShift());
      bytes = getStorageBytes(view.getType(), view);
    }
    // A view's bytes are relative to its source: they are those of the root
    // only when the source is the root.
    if (!ranged && shift && bytes && !isSaturated(*bytes)) {
      footprint.begin = *shift;
      footprint.end = *shift + *bytes;
      ranged = true;
    } else if (ranged && !isa<CastOpInterface>(def)) {
      footprint.begin = 0;
      footprint.end = -1;
    }
    current = source;
  }
  footprint.root = current;
  return footprint;
}

/// The footprints of the memref operands of `op`.
SmallVector<Footprint> getFootprints(Operation *op) {
  SmallVector<Footprint> footprints;
  for (Value operand : op->getOperands())
    if (isa<BaseMemRefType>(operand.getType()))
      footprints.push_back(getFootprint(operand));
  return footprints;
}

/// Whether `buffer` lies in page-locked host memory
/// (remat-host-alloc-to-gpu).
bool isPinnedHost(Value buffer) {
  Operation *root = getFootprint(buffer).root.getDefiningOp();
  return root && root->hasAttr(RematDialect::kPinnedHostAttrName);
}

/// A copy between device and page-locked host memory that
/// gpu-async-region chained on the compute stream (one dependency).
bool isHostCopy(Operation *op) {
  auto copy = dyn_cast<gpu::MemcpyOp>(op);
  return copy && copy.getAsyncToken() &&
         copy.getAsyncDependencies().size() == 1 &&
         (isPinnedHost(copy.getSrc()) || isPinnedHost(copy.getDst()));
}

/// Whether `token` is that of a `gpu.wait async` without dependencies: a
/// new stream with nothing on it, which canonicalization drops from the
/// dependencies of a `gpu.wait`.
bool isFreshStream(Value token) {
  auto wait = token.getDefiningOp<gpu::WaitOp>();
  return wait && wait.getAsyncDependencies().empty();
}

/// Creates, before `op`, a new stream that waits for `dependencies` (a
/// `gpu.wait async`, which the lowering turns into an event recorded after
/// each and a new stream waiting for them). Fresh streams are left out, and
/// a single dependency is listed twice: canonicalization would otherwise
/// fold the new stream into it, and the copy would not run on a stream of
/// its own.
Value createStream(OpBuilder &builder, Operation *op,
                   ArrayRef<Value> dependencies) {
  SmallVector<Value> kept;
  for (Value token : dependencies)
    if (!isFreshStream(token))
      kept.push_back(token);
  if (kept.size() == 1)
    kept.push_back(kept.front());
  builder.setInsertionPoint(op);
  return gpu::WaitOp::create(builder, op->getLoc(),
                             builder.getType<gpu::AsyncTokenType>(), kept)
      .getAsyncToken();
}

/// Sets the only async dependency of `op` to `token`.
void setDependency(gpu::AsyncOpInterface op, Value token) {
  unsigned index = op.getAsyncDependencies().getBeginOperandIndex();
  op->setOperand(index, token);
}

/// One copy on its own stream.
struct CopyStream {
  /// The last token on the stream: the copy, or a free moved after it.
  Value tail;
  /// The token of the copy itself, which the compute stream joins.
  Value copy;
  SmallVector<Footprint> footprints;
  /// The compute stream has not waited for the copy yet.
  bool pending = true;
  /// A synchronous `gpu.wait` destroyed the stream.
  bool destroyed = false;
};

/// Moves the host copies of one block to streams of their own.
class CopyScheduler {
public:
  explicit CopyScheduler(MLIRContext *context) : builder(context) {}

  void run(Block &block);

private:
  void fork(gpu::MemcpyOp copy);
  /// The pending copies that `op` touches memory of.
  SmallVector<CopyStream *> getConflicts(Operation *op);
  /// Makes `op`, which touches memory of `conflicts`, wait for them.
  void join(Operation *op, ArrayRef<CopyStream *> conflicts);
  /// Moves the free `dealloc` after the copy on `stream`.
  void moveAfter(gpu::DeallocOp dealloc, CopyStream &stream);
  /// Waits synchronously for `streams` before `op`, destroying them.
  void waitFor(Operation *op, ArrayRef<CopyStream *> streams);
  void finish(Operation *terminator);

  OpBuilder builder;
  std::deque<CopyStream> streams;
  /// The copy stream the next copy forks after (keeps copies in order).
  CopyStream *last = nullptr;
  /// Tokens of compute streams a join left, destroyed at the end.
  SmallVector<Value> leftStreams;
};

void CopyScheduler::fork(gpu::MemcpyOp copy) {
  Value compute = copy.getAsyncDependencies().front();
  SmallVector<Value> dependencies{compute};
  if (last && !last->destroyed)
    dependencies.push_back(last->tail);
  Value start = createStream(builder, copy, dependencies);
  Value token = copy.getAsyncToken();
  token.replaceAllUsesWith(compute);
  setDependency(copy, start);
  streams.push_back({token, token, getFootprints(copy)});
  last = &streams.back();
}

SmallVector<CopyStream *> CopyScheduler::getConflicts(Operation *op) {
  SmallVector<CopyStream *> conflicts;
  if (isa<gpu::WaitOp>(op) || isMemoryEffectFree(op))
    return conflicts;
  SmallVector<Footprint> footprints = getFootprints(op);
  // Ops with regions are not looked into: they wait for every copy.
  bool all = op->getNumRegions() > 0;
  for (CopyStream &stream : streams) {
    if (!stream.pending)
      continue;
    bool touches = all || llvm::any_of(footprints, [&](const Footprint &f) {
                     return llvm::any_of(stream.footprints,
                                         [&](const Footprint &g) {
                                           return f.overlaps(g);
                                         });
                   });
    if (touches)
      conflicts.push_back(&stream);
  }
  return conflicts;
}

void CopyScheduler::moveAfter(gpu::DeallocOp dealloc, CopyStream &stream) {
  Value compute = dealloc.getAsyncDependencies().front();
  dealloc.getAsyncToken().replaceAllUsesWith(compute);
  setDependency(dealloc, stream.tail);
  stream.tail = dealloc.getAsyncToken();
}

void CopyScheduler::waitFor(Operation *op, ArrayRef<CopyStream *> conflicts) {
  SmallVector<Value> tails;
  for (CopyStream *stream : conflicts) {
    tails.push_back(stream->tail);
    stream->pending = false;
    stream->destroyed = true;
  }
  builder.setInsertionPoint(op);
  gpu::WaitOp::create(builder, op->getLoc(), Type(), tails);
}

void CopyScheduler::join(Operation *op, ArrayRef<CopyStream *> conflicts) {
  auto async = dyn_cast<gpu::AsyncOpInterface>(op);
  if (!async || !async.getAsyncToken() ||
      async.getAsyncDependencies().size() != 1)
    return waitFor(op, conflicts);
  // A free of what one copy reads or writes follows that copy on its
  // stream: the compute stream goes on.
  auto dealloc = dyn_cast<gpu::DeallocOp>(op);
  if (dealloc && conflicts.size() == 1)
    return moveAfter(dealloc, *conflicts.front());
  Value compute = async.getAsyncDependencies().front();
  SmallVector<Value> dependencies{compute};
  for (CopyStream *stream : conflicts) {
    dependencies.push_back(stream->copy);
    stream->pending = false;
  }
  setDependency(async, createStream(builder, op, dependencies));
  // The compute stream left is destroyed at the end; a fresh one, which
  // nothing else uses, is not created at all.
  if (!isFreshStream(compute))
    leftStreams.push_back(compute);
  else if (compute.use_empty())
    compute.getDefiningOp()->erase();
}

void CopyScheduler::finish(Operation *terminator) {
  SmallVector<Value> tokens = leftStreams;
  for (CopyStream &stream : streams)
    if (!stream.destroyed)
      tokens.push_back(stream.tail);
  if (tokens.empty())
    return;
  builder.setInsertionPoint(terminator);
  gpu::WaitOp::create(builder, terminator->getLoc(), Type(), tokens);
}

void CopyScheduler::run(Block &block) {
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      return finish(&op);
    if (isHostCopy(&op)) {
      fork(cast<gpu::MemcpyOp>(op));
      continue;
    }
    SmallVector<CopyStream *> conflicts = getConflicts(&op);
    if (!conflicts.empty())
      join(&op, conflicts);
  }
}

struct RematOverlapHostCopiesPass
    : public remat::impl::RematOverlapHostCopiesBase<
          RematOverlapHostCopiesPass> {
  void runOnOperation() override {
    overlapHostCopies(getOperation());
  }
};

} // namespace

void remat::overlapHostCopies(func::FuncOp func) {
  // Copies in a function of several blocks stay on the compute stream: the
  // joins would have to follow its branches.
  if (func.isExternal() || !func.getBody().hasOneBlock())
    return;
  CopyScheduler(func.getContext()).run(func.getBody().front());
}
