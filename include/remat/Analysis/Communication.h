//===- Communication.h - time of a collective on a link ---------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The communication cost of a collective of a per-rank step: the time a
// ring algorithm takes on a link of bandwidth β (bytes/s per direction) and
// latency α (seconds per step), over the N ranks of the grid axes the
// collective runs on. With c the bytes of one rank's chunk:
//
//   all_gather      (N - 1) (α + c / β),   c = the operand (the rank's shard)
//   reduce_scatter  (N - 1) (α + c / β),   c = the result (the rank's shard)
//   all_reduce     2(N - 1) (α + c / β),   c = the operand / N
//
// Every other collective (and every `mpi` op) costs 0: none of them is
// recomputed, so their time only shifts the predicted step time. One rank
// (N = 1) costs 0. docs/Distributed.md ("Communication cost") states the
// presets and that they are assumptions: no multi-GPU machine measured them.
//
// The unit is the cost model's: picoseconds when the costs are times on a
// device (`roofline_ps`), FLOP-equivalents otherwise, at
// kFlopEquivalentsPerPicosecond (10 FLOP/ps: 10 TFLOP/s).
//
// Usage:
//
//   const LinkSpec *nvlink = getLinkSpec(Link::NVLink);
//   FailureOr<int64_t> ps = computeCommunicationPs(op, *nvlink, std::nullopt);
//   if (failed(ps))
//     return failure(); // a located error was emitted on `op`
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_ANALYSIS_COMMUNICATION_H
#define REMAT_ANALYSIS_COMMUNICATION_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace remat {

/// The links a step's collectives may be costed on (`link=` options).
enum class Link { None, NVLink, PCIe };

/// The `llvm::cl::values` of a Link option.
#define REMAT_LINK_CL_VALUES                                                   \
  ::llvm::cl::values(                                                          \
      clEnumValN(::remat::Link::None, "none",                                  \
                 "communication is free (collectives cost 0)"),                \
      clEnumValN(::remat::Link::NVLink, "nvlink",                              \
                 "NVLink 4 (H100): 450 GB/s per direction, 2 us a step"),      \
      clEnumValN(::remat::Link::PCIe, "pcie",                                  \
                 "PCIe 4.0 x16: 32 GB/s per direction, 5 us a step"))

/// One link preset.
struct LinkSpec {
  Link link;
  /// The option value (`nvlink`).
  llvm::StringRef name;
  /// Bytes per second, per direction.
  double bytesPerSecond;
  /// Seconds per step of the ring.
  double latencySeconds;
};

/// What one picosecond of communication counts for when the costs are
/// FLOPs: 10 TFLOP/s.
inline constexpr double kFlopEquivalentsPerPicosecond = 10.0;

/// The preset of `link`; null for Link::None.
const LinkSpec *getLinkSpec(Link link);

/// The time of collective `op` on `link` (the rules above), in picoseconds
/// rounded to the nearest. Emits a located error and fails when the bytes
/// of its chunk are unknown (a dynamic shape without `dynamicSize`), when
/// its grid is not found, or when the time exceeds int64_t picoseconds.
mlir::FailureOr<int64_t>
computeCommunicationPs(mlir::Operation *op, const LinkSpec &link,
                       std::optional<int64_t> dynamicSize);

} // namespace remat

#endif // REMAT_ANALYSIS_COMMUNICATION_H
