//===- FreeAfterLastUse.cpp - free each buffer right after its last use ---===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The `remat-free-after-last-use` pass: a thin shell over
// remat::freeAfterLastUse, upstream's optimize-allocation-liveness without
// its fault on calls (see the pass description).
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/BufferViewFlowAnalysis.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace remat {
#define GEN_PASS_DEF_REMATFREEAFTERLASTUSE
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;

/// Whether `value` can hold a buffer. BufferViewFlowAnalysis links every
/// result of a call to every operand, an f32 result included; a scalar holds
/// no buffer, so its users do not keep one alive.
static bool mayHoldBuffer(Value value) {
  Type type = value.getType();
  return !type.isIntOrIndexOrFloat() && !isa<ComplexType, VectorType>(type);
}

/// The only user of `alloc` that frees memory, if there is exactly one.
static Operation *getOnlyFree(Value alloc) {
  Operation *free = nullptr;
  for (Operation *user : alloc.getUsers()) {
    if (!hasEffect<MemoryEffects::Free>(user))
      continue;
    if (free && free != user)
      return nullptr;
    free = user;
  }
  return free;
}

/// The op of `block` holding the last use of `alloc`'s buffer, through any
/// value that may hold it, `free` aside; null when there is none, or when a
/// use lies outside `block`.
static Operation *getLastUse(Value alloc, Operation *free, Block *block,
                             BufferViewFlowAnalysis &flow) {
  Operation *last = nullptr;
  for (Value dep : flow.resolve(alloc)) {
    if (!mayHoldBuffer(dep))
      continue;
    for (Operation *user : dep.getUsers()) {
      if (user == free)
        continue;
      Operation *top = block->findAncestorOpInBlock(*user);
      if (!top)
        return nullptr;
      if (!last || last->isBeforeInBlock(top))
        last = top;
    }
  }
  return last;
}

/// Moves the free of the buffer `alloc` right after its last use, when the
/// free is its only one, in the same block, and that use is no terminator.
static void moveFree(OpResult alloc, BufferViewFlowAnalysis &flow) {
  Operation *free = getOnlyFree(alloc);
  Block *block = alloc.getOwner()->getBlock();
  if (!free || free->getBlock() != block)
    return;
  Operation *last = getLastUse(alloc, free, block, flow);
  if (last && last->isBeforeInBlock(free) &&
      !last->hasTrait<OpTrait::IsTerminator>())
    free->moveAfter(last);
}

void remat::freeAfterLastUse(func::FuncOp func) {
  if (func.isExternal())
    return;
  SmallVector<OpResult> allocs;
  func.walk([&](Operation *op) {
    for (OpResult result : op->getResults())
      if (isa<BaseMemRefType>(result.getType()) &&
          hasEffect<MemoryEffects::Allocate>(op, result))
        allocs.push_back(result);
  });
  BufferViewFlowAnalysis flow(func);
  for (OpResult alloc : allocs)
    moveFree(alloc, flow);
}

namespace {
struct FreeAfterLastUsePass
    : public remat::impl::RematFreeAfterLastUseBase<FreeAfterLastUsePass> {
  void runOnOperation() override { remat::freeAfterLastUse(getOperation()); }
};
} // namespace
