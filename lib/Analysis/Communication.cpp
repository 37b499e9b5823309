//===- Communication.cpp - time of a collective on a link -----------------===//
//
// Part of the remat-opt project.
//
// Implements the ring model documented in Communication.h and
// docs/Distributed.md.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/Communication.h"

#include "remat/Analysis/Storage.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/SymbolTable.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace remat;

static const LinkSpec kLinks[] = {
    {Link::NVLink, "nvlink", 450e9, 2e-6},
    {Link::PCIe, "pcie", 32e9, 5e-6},
};

const LinkSpec *remat::getLinkSpec(Link link) {
  for (const LinkSpec &spec : kLinks)
    if (spec.link == link)
      return &spec;
  return nullptr;
}

namespace {
/// What a ring collective sends: `steps` steps of one chunk each.
struct RingShape {
  int64_t steps = 0;
  Value chunkValue;
  /// The chunk is `chunkValue`'s bytes divided by this.
  int64_t chunkDivisor = 1;
};
} // namespace

/// The ring steps and chunk of `op` over `ranks` ranks; no steps for a
/// collective the model gives no time.
static RingShape getRingShape(Operation *op, int64_t ranks) {
  if (auto gather = dyn_cast<shard::AllGatherOp>(op))
    return {ranks - 1, gather.getInput(), 1};
  if (auto scatter = dyn_cast<shard::ReduceScatterOp>(op))
    return {ranks - 1, scatter.getResult(), 1};
  if (auto reduce = dyn_cast<shard::AllReduceOp>(op))
    return {2 * (ranks - 1), reduce.getInput(), ranks};
  return {};
}

/// The ranks the `shard` collective `op` runs over, or 0 when its grid is
/// missing (an error is emitted) and 1 for an op without a grid.
static int64_t getGroupSize(Operation *op) {
  auto gridAttr = op->getAttrOfType<FlatSymbolRefAttr>("grid");
  auto axes = op->getAttrOfType<DenseI16ArrayAttr>("grid_axes");
  if (!gridAttr || !axes)
    return 1;
  auto grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(op, gridAttr);
  if (!grid) {
    op->emitError() << "cannot cost the communication: grid " << gridAttr
                    << " not found";
    return 0;
  }
  int64_t size = shard::collectiveProcessGroupSize(axes.asArrayRef(), grid);
  return size > 0 ? size : 1;
}

FailureOr<int64_t>
remat::computeCommunicationPs(Operation *op, const LinkSpec &link,
                              std::optional<int64_t> dynamicSize) {
  int64_t ranks = getGroupSize(op);
  if (ranks == 0)
    return failure();
  RingShape ring = getRingShape(op, ranks);
  if (ring.steps <= 0)
    return 0;
  std::optional<int64_t> bytes =
      getStorageBytes(ring.chunkValue.getType(), op, dynamicSize);
  if (!bytes || isSaturated(*bytes))
    return op->emitError() << "cannot cost the communication: the size of "
                           << ring.chunkValue.getType() << " is unknown";
  double chunk = static_cast<double>(*bytes) / ring.chunkDivisor;
  double seconds = static_cast<double>(ring.steps) *
                   (link.latencySeconds + chunk / link.bytesPerSecond);
  double picoseconds = std::round(seconds * 1e12);
  if (picoseconds >= static_cast<double>(std::numeric_limits<int64_t>::max()))
    return op->emitError() << "communication time beyond int64_t picoseconds";
  return static_cast<int64_t>(picoseconds);
}
