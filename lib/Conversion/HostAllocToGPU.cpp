//===- HostAllocToGPU.cpp - Place a function's buffers on the GPU ---------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Implements `remat-host-alloc-to-gpu`: after bufferization, every buffer of
// a training step becomes device memory, so that the frees the
// rematerialization plan placed become device frees.
//
//===----------------------------------------------------------------------===//

#include "remat/Conversion/Passes.h"

#include "remat/Analysis/Storage.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Solver/Arena/Arena.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

namespace remat {
#define GEN_PASS_DEF_REMATHOSTALLOCTOGPU
#include "remat/Conversion/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {

/// Returns true when `op` is the first op of a region that runs on the
/// device or only on scalars (linalg payloads, GPU launches), whose body the
/// host checks must not look into.
bool isOpaqueToHostChecks(Operation *op) {
  return isa<linalg::LinalgOp, gpu::LaunchOp>(op);
}

/// Emits an error at `op` if it reads or writes a memref on the host.
/// Returns failure when it did.
LogicalResult checkNoHostAccess(Operation *op) {
  // MPI calls (the collectives of a data-parallel step) take device
  // buffers when the MPI library is CUDA-aware; remat-gpu-run checks that
  // it is before running.
  if (isa<linalg::LinalgOp, memref::CopyOp, memref::DeallocOp>(op) ||
      isa_and_nonnull<gpu::GPUDialect, mpi::MPIDialect>(op->getDialect()))
    return success();
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return success();
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  for (const MemoryEffects::EffectInstance &instance : instances) {
    if (!isa<MemoryEffects::Read, MemoryEffects::Write>(instance.getEffect()))
      continue;
    Value value = instance.getValue();
    if (!value || !isa<BaseMemRefType>(value.getType()))
      continue;
    return op->emitOpError()
           << (isa<MemoryEffects::Read>(instance.getEffect()) ? "reads"
                                                              : "writes")
           << " a buffer on the host, but remat-host-alloc-to-gpu places "
              "every buffer in device memory; only linalg ops, memref.copy "
              "and GPU ops may access buffers";
  }
  return success();
}

/// Checks that every op of `func` can live with device buffers. Emits one
/// error per offending op.
LogicalResult checkFunction(func::FuncOp func) {
  bool hasError = false;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<memref::AllocaOp>(op)) {
      op->emitOpError("is a host stack buffer; remat-host-alloc-to-gpu "
                      "supports heap buffers only (bufferize with "
                      "memref.alloc)");
      hasError = true;
    } else if (isa<memref::ReallocOp>(op)) {
      op->emitOpError("cannot resize a device buffer");
      hasError = true;
    } else if (isa_and_nonnull<bufferization::BufferizationDialect>(
                   op->getDialect()) &&
               llvm::any_of(op->getOperandTypes(),
                            llvm::IsaPred<BaseMemRefType>)) {
      op->emitOpError("still holds buffers; run "
                      "convert-bufferization-to-memref before "
                      "remat-host-alloc-to-gpu");
      hasError = true;
    } else if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
      if (!global.getType().getLayout().isIdentity()) {
        op->emitOpError("reads a global with a non-identity layout, which "
                        "cannot be uploaded with gpu.memcpy");
        hasError = true;
      }
    } else if (failed(checkNoHostAccess(op))) {
      hasError = true;
    }
    return isOpaqueToHostChecks(op) ? WalkResult::skip()
                                    : WalkResult::advance();
  });
  return failure(hasError);
}

/// Replaces `memref.get_global` by a device buffer holding a copy of the
/// global, released before every return unless it is returned itself.
void uploadGlobal(memref::GetGlobalOp global,
                  ArrayRef<func::ReturnOp> returns) {
  if (global->use_empty())
    return;
  OpBuilder b(global->getContext());
  b.setInsertionPointAfter(global);
  Location loc = global.getLoc();
  auto alloc = gpu::AllocOp::create(b, loc, global.getType(), Type(),
                                    ValueRange(), ValueRange(), ValueRange());
  Value device = alloc.getMemref();
  global.getResult().replaceAllUsesWith(device);
  gpu::MemcpyOp::create(b, loc, Type(), ValueRange(), device,
                        global.getResult());
  for (func::ReturnOp ret : returns) {
    if (llvm::is_contained(ret.getOperands(), device))
      continue;
    b.setInsertionPoint(ret);
    gpu::DeallocOp::create(b, loc, Type(), ValueRange(), device);
  }
}

/// `value` as an unranked memref, what gpu.host_register takes.
Value getUnranked(OpBuilder &b, Value value) {
  auto type = cast<MemRefType>(value.getType());
  return memref::CastOp::create(
      b, value.getLoc(),
      UnrankedMemRefType::get(type.getElementType(), type.getMemorySpace()),
      value);
}

/// `type` in the default memory space, what the LLVM lowering takes.
MemRefType getDefaultSpaceType(MemRefType type) {
  return MemRefType::get(type.getShape(), type.getElementType(),
                         type.getLayout());
}

/// Keeps the host copy `alloc` in host memory, in the default memory space
/// for the LLVM lowering, registered with the driver (page-locked, so that
/// copies to and from it run asynchronously at the link's speed) until its
/// free; returns the new buffer.
Value pinHostCopy(OpBuilder &b, memref::AllocOp alloc) {
  auto host = memref::AllocOp::create(
      b, alloc.getLoc(), getDefaultSpaceType(alloc.getType()),
      alloc.getDynamicSizes(), alloc.getSymbolOperands(),
      alloc.getAlignmentAttr());
  host->setAttr(RematDialect::kPinnedHostAttrName, b.getUnitAttr());
  gpu::HostRegisterOp::create(b, alloc.getLoc(), getUnranked(b, host));
  alloc.getResult().replaceAllUsesWith(host.getResult());
  alloc.erase();
  return host;
}

/// The alignment of host copies in the host arena: a cache line, which
/// covers every element type.
constexpr int64_t kHostArenaAlignment = 64;

/// The host copies of `func` when one host arena can hold them all: each
/// in the function's only block, of static shape and identity layout, its
/// bytes known; empty otherwise (each is then pinned on its own).
SmallVector<memref::AllocOp> getArenaHostCopies(func::FuncOp func) {
  SmallVector<memref::AllocOp> copies;
  if (!func.getBody().hasOneBlock())
    return {};
  Block &body = func.getBody().front();
  bool packable = true;
  func.walk([&](memref::AllocOp alloc) {
    if (!isHostBuffer(alloc))
      return;
    MemRefType type = alloc.getType();
    packable &= alloc->getBlock() == &body && type.hasStaticShape() &&
                type.getLayout().isIdentity() &&
                getStorageBytes(type, func).has_value();
    copies.push_back(alloc);
  });
  return packable ? copies : SmallVector<memref::AllocOp>();
}

/// The steps of the function's block during which `alloc` is live: from
/// its own to that of its last user (through views and casts).
ArenaBuffer getHostLifetime(memref::AllocOp alloc,
                            const DenseMap<Operation *, int> &steps) {
  Block *body = alloc->getBlock();
  ArenaBuffer buffer;
  buffer.bytes = *getStorageBytes(alloc.getType(), alloc);
  buffer.begin = buffer.end = steps.lookup(alloc);
  SmallVector<Value> worklist{alloc.getResult()};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (Operation *step = body->findAncestorOpInBlock(*user))
        buffer.end = std::max(buffer.end, steps.lookup(step));
      if (isViewOp(user))
        llvm::append_range(worklist, user->getResults());
    }
  }
  return buffer;
}

/// Places the host copies `copies` of `func` (getArenaHostCopies) at
/// offsets of one host buffer, page-locked at the function's entry and
/// released before each return, so that no host call between the kernels
/// stops their copies from overlapping them; copies live at different times
/// share bytes. The recorded host peak becomes the arena's bytes. Returns
/// the views that replace them.
SmallVector<Value> packHostCopies(func::FuncOp func,
                                  ArrayRef<memref::AllocOp> copies) {
  Block &body = func.getBody().front();
  DenseMap<Operation *, int> steps;
  for (Operation &op : body)
    steps[&op] = steps.size();
  ArenaProblem problem;
  problem.alignment = kHostArenaAlignment;
  for (memref::AllocOp alloc : copies)
    problem.buffers.push_back(getHostLifetime(alloc, steps));
  ArenaOptions options;
  options.exact = false;
  ArenaPlan plan = planArena(problem, options);
  assert(plan.valid() && "host copies fit in int64 bytes");

  OpBuilder b = OpBuilder::atBlockBegin(&body);
  Location loc = func.getLoc();
  auto arenaType =
      MemRefType::get({std::max<int64_t>(plan.bytes, 1)}, b.getI8Type());
  auto arena = memref::AllocOp::create(b, loc, arenaType);
  arena->setAttr(RematDialect::kPinnedHostAttrName, b.getUnitAttr());
  arena.setAlignment(kHostArenaAlignment);
  gpu::HostRegisterOp::create(b, loc, getUnranked(b, arena));
  SmallVector<Value> views;
  for (auto [index, copy] : llvm::enumerate(copies)) {
    memref::AllocOp alloc = copy;
    int64_t offset = plan.offsets[index];
    b.setInsertionPoint(alloc);
    Value shift = arith::ConstantIndexOp::create(b, alloc.getLoc(), offset);
    auto view = memref::ViewOp::create(b, alloc.getLoc(),
                                       getDefaultSpaceType(alloc.getType()),
                                       arena, shift, ValueRange());
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        user->erase();
    alloc.getResult().replaceAllUsesWith(view.getResult());
    alloc.erase();
    views.push_back(view);
  }
  // The frees become gpu.host_unregister and the free, as for any pinned
  // host copy.
  func.walk([&](func::ReturnOp ret) {
    b.setInsertionPoint(ret);
    memref::DeallocOp::create(b, loc, arena);
  });
  if (auto counts = func->getAttrOfType<DenseI64ArrayAttr>(
          RematDialect::kHostCopiesAttrName)) {
    SmallVector<int64_t> values(counts.asArrayRef());
    values[0] = std::max(values[0], plan.bytes);
    func->setAttr(RematDialect::kHostCopiesAttrName,
                  b.getDenseI64ArrayAttr(values));
  }
  return views;
}

struct RematHostAllocToGPUPass
    : public remat::impl::RematHostAllocToGPUBase<RematHostAllocToGPUPass> {
  void runOnOperation() override {
    if (failed(remat::moveHostAllocationsToGPU(getOperation())))
      signalPassFailure();
  }
};

} // namespace

LogicalResult remat::moveHostAllocationsToGPU(func::FuncOp func) {
  eraseCopyWaits(func);
  if (failed(checkFunction(func)) || failed(recordHostCopies(func)))
    return failure();
  llvm::DenseSet<Value> pinned;
  SmallVector<memref::AllocOp> arenaCopies = getArenaHostCopies(func);
  if (!arenaCopies.empty())
    pinned.insert_range(packHostCopies(func, arenaCopies));

  SmallVector<memref::AllocOp> allocs;
  SmallVector<memref::DeallocOp> deallocs;
  SmallVector<memref::CopyOp> copies;
  SmallVector<memref::GetGlobalOp> globals;
  SmallVector<func::ReturnOp> returns;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op))
      allocs.push_back(alloc);
    else if (auto dealloc = dyn_cast<memref::DeallocOp>(op))
      deallocs.push_back(dealloc);
    else if (auto copy = dyn_cast<memref::CopyOp>(op))
      copies.push_back(copy);
    else if (auto global = dyn_cast<memref::GetGlobalOp>(op))
      globals.push_back(global);
    else if (auto ret = dyn_cast<func::ReturnOp>(op))
      returns.push_back(ret);
    return isOpaqueToHostChecks(op) ? WalkResult::skip()
                                    : WalkResult::advance();
  });

  OpBuilder b(func.getContext());
  auto isPinned = [&](Value value) { return pinned.contains(value); };
  for (memref::AllocOp alloc : allocs) {
    b.setInsertionPoint(alloc);
    if (alloc->hasAttr(RematDialect::kPinnedHostAttrName)) {
      pinned.insert(alloc);
      continue;
    }
    if (isHostBuffer(alloc)) {
      pinned.insert(pinHostCopy(b, alloc));
      continue;
    }
    auto device = gpu::AllocOp::create(
        b, alloc.getLoc(), alloc.getType(), Type(), ValueRange(),
        alloc.getDynamicSizes(), alloc.getSymbolOperands());
    alloc.getResult().replaceAllUsesWith(device.getMemref());
    alloc.erase();
  }
  for (memref::DeallocOp dealloc : deallocs) {
    b.setInsertionPoint(dealloc);
    if (isPinned(dealloc.getMemref())) {
      gpu::HostUnregisterOp::create(b, dealloc.getLoc(),
                                    getUnranked(b, dealloc.getMemref()));
      continue;
    }
    gpu::DeallocOp::create(b, dealloc.getLoc(), Type(), ValueRange(),
                           dealloc.getMemref());
    dealloc.erase();
  }
  for (memref::CopyOp copy : copies) {
    b.setInsertionPoint(copy);
    if (isPinned(copy.getSource()) || isPinned(copy.getTarget()))
      gpu::MemcpyOp::create(b, copy.getLoc(), Type(), ValueRange(),
                            copy.getTarget(), copy.getSource());
    else
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
    copy.erase();
  }
  for (memref::GetGlobalOp global : globals)
    uploadGlobal(global, returns);
  return success();
}
