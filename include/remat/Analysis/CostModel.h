//===- CostModel.h - memory and compute cost of tensor ops ------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The cost model behind `#remat.cost`: for one tensor-producing operation, the
// bytes of storage each result owns once bufferized and the FLOPs the
// operation performs, plus an optional measured time from a profile file.
//
// The rules (docs/CostModel.md gives the rationale for each):
//   * bytes of a tensor result = its storage bytes (getStorageBytes of
//     Analysis/Storage.h: element count x element bytes under the data
//     layout); non-tensor results take 0, and so do the results of ops that
//     own no storage (ownsNoStorage: views, tensor.empty, constants, ...);
//   * FLOPs of a LinalgOp (named or generic) = iteration-domain size x
//     arithmetic ops in its payload: matmul = 2*M*N*K, conv_2d_nhwc_hwcf =
//     2*N*OH*OW*F*KH*KW*C, fill/copy/transpose/broadcast = 0;
//   * FLOPs of an elementwise arith/math op on tensors = elements x the same
//     per-op weight as in a payload (1, math.fma 2, casts and selects 0);
//   * with a device, the time predicted on it (Roofline.h):
//     max(flops / peak, bytes moved / bandwidth) in picoseconds;
//   * with a link, a collective's communication time (Communication.h), in
//     picoseconds with a device and FLOP-equivalents without.
//
// Usage:
//
//   CostModelOptions options;
//   options.dynamicSizeHint = 128;
//   FailureOr<CostAttr> cost = computeOpCost(op, options);
//   if (failed(cost))
//     return failure(); // a located error was emitted on `op`
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_ANALYSIS_COSTMODEL_H
#define REMAT_ANALYSIS_COSTMODEL_H

#include "remat/Analysis/Communication.h"
#include "remat/Analysis/Roofline.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <optional>

namespace remat {

/// Knobs of the cost model.
struct CostModelOptions {
  /// Size assumed for every dynamic dimension. Without it, an op whose cost
  /// depends on a dynamic dimension is an error.
  std::optional<int64_t> dynamicSizeHint;
  /// Give ops the model does not know bytes from their result types and
  /// 0 FLOPs (with a warning) instead of failing.
  bool allowUnknown = false;
  /// Emit a warning on each op whose cost used `dynamicSizeHint` or the
  /// `allowUnknown` fallback. Errors are always emitted.
  bool emitWarnings = true;
  /// Predict each op's time on this device (`roofline_ps`, Roofline.h);
  /// None: FLOPs only.
  Device device = Device::None;
  /// Cost each collective by its time on this link (Communication.h): in
  /// picoseconds with a device, in FLOP-equivalents without; None: 0.
  Link link = Link::None;
};

/// Returns true if `op` produces at least one tensor (ranked or not), i.e. if
/// the cost model gives it a `#remat.cost`.
bool producesTensor(mlir::Operation *op);

/// Returns true if `op` communicates between ranks: a collective or
/// point-to-point op of the `shard` dialect (`shard.all_reduce`,
/// `shard.all_gather`, ..., `shard.send`, `shard.recv`, `shard.update_halo`)
/// or any op of the `mpi` dialect. Upstream marks most `shard` collectives
/// `Pure`, but every rank must run each of them exactly once and in the same
/// order: the planner pins them, except the all-gather of a parameter
/// shard, which it may gather again (see GraphBuilder.h). The cost model
/// gives them the bytes of their results and their time on the link of the
/// options (Communication.h; 0 without one).
bool isCollectiveOp(mlir::Operation *op);

/// Returns true if `op` is a `shard.all_gather` of an argument of the
/// function whose body holds it (FSDP's gather of a parameter shard): every
/// rank can run it again at the same program point to get the same value,
/// so the planner may free its result and gather again (GraphBuilder.h).
bool isParameterGather(mlir::Operation *op);

/// The grid a `shard` collective runs on (its `grid` symbol), or null for an
/// op without one (`mpi` ops name a communicator value instead).
mlir::FlatSymbolRefAttr getCollectiveGrid(mlir::Operation *op);

/// Returns the FLOPs one execution of the scalar operation `op` (found in a
/// linalg payload, or applied elementwise to tensors) counts for: 0 for
/// constants, casts, selects, index arithmetic and ops outside the arith and
/// math dialects, 2 for `math.fma`, 1 for any other arith/math op.
int64_t getScalarOpFlops(mlir::Operation *op);

/// Computes the cost of the tensor-producing operation `op`. On failure (an
/// op the model does not know, a dynamic shape without a size hint, a size
/// that overflows int64_t, or an op that produces no tensor: see
/// producesTensor) emits a located error on `op` and returns failure.
mlir::FailureOr<CostAttr> computeOpCost(mlir::Operation *op,
                                        const CostModelOptions &options);

/// `cost` with the roofline time (`roofline_ps`) of `op` on the device of
/// `options`, from the cost's FLOPs; `cost` as it is without a device.
/// Fails as computeRooflinePs does (Roofline.h), with a located error.
mlir::FailureOr<CostAttr> addPredictedTime(mlir::Operation *op, CostAttr cost,
                                           const CostModelOptions &options);

/// Measured execution times, read from a JSON profile of the form
///
///   {"ops": [{"loc": "model.mlir:12:8", "time_ns": 1500},
///            {"name": "fc1", "time_ns": 800},
///            {"name": "linalg.matmul", "time_ns": 1200}]}
///
/// Each entry has exactly one key of `loc` ("file:line:col" or "file:line")
/// or `name` (a NameLoc name, or an operation name as a per-kind default),
/// and a non-negative number `time_ns` (rounded to the nearest integer).
class CostProfile {
public:
  /// Reads and validates the profile at `path`. The error message names the
  /// path and, for a malformed entry, its index.
  static llvm::Expected<CostProfile> load(llvm::StringRef path);

  /// Parses a profile from `contents`; `path` is only used in messages.
  static llvm::Expected<CostProfile> parse(llvm::StringRef contents,
                                           llvm::StringRef path);

  /// Returns the measured time of `op`: first a `loc` entry matching one of
  /// the file locations in `op`'s location (exact "file:line:col", then
  /// "file:line"), then a `name` entry matching one of its NameLoc names,
  /// then a `name` entry equal to the operation name.
  std::optional<int64_t> lookup(mlir::Operation *op) const;

  /// Number of entries read.
  size_t size() const { return byLoc.size() + byName.size(); }

private:
  llvm::StringMap<int64_t> byLoc;
  llvm::StringMap<int64_t> byName;
};

/// The hint recorded on `func` by guardDynamicSizes
/// (`RematDialect::kDynamicSizeHintAttrName`, Transforms/AnnotateCosts.h),
/// if any.
std::optional<int64_t> getDynamicSizeHint(mlir::func::FuncOp func);

/// Why the bytes `cost` records for `op` understate one of its results, or
/// std::nullopt when none does. A cost may overstate what a result owns but
/// never understate it: every peak, budget and arena built on it would be
/// below what the lowering allocates. Checked are the statically shaped
/// tensor and memref results of ops that own storage (not views, empty
/// tensors or constants), against getStorageBytes of their type; 0 bytes is
/// accepted, as the cost of a result that shares another value's buffer.
std::optional<std::string> getUnderstatedCostBytes(mlir::Operation *op,
                                                   CostAttr cost);

} // namespace remat

#endif // REMAT_ANALYSIS_COSTMODEL_H
