//===- HostLink.h - the link between device and host memory -----*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The one table of host links an offloading plan may copy over
// (docs/Offload.md), and the price of one copy in the graph's cost unit.
// A copy of b bytes takes
//
//   latency + b / bandwidth   (seconds, one direction)
//
// on the copy stream of its direction; offloads (device to host) and
// prefetches (host to device) run on two streams, since every link below
// is full duplex. Bandwidths per direction, from the vendors' data:
//   * PCIe 4.0 x16: 16 GT/s x 16 lanes, 128b/130b coding: 31.5 GB/s;
//   * PCIe 5.0 x16: 32 GT/s x 16 lanes: 63 GB/s;
//   * NVLink-C2C (NVIDIA GH200 Grace Hopper Superchip data sheet): 900 GB/s
//     in all, 450 GB/s per direction.
// The latencies (5 us a copy over PCIe, 2 us over C2C) are assumptions of
// the order of one asynchronous copy's launch and completion, not
// measurements. `ideal` copies in no time: no link is that fast; it bounds
// what offloading can give, and lets small steps be planned with copies.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_CORE_HOSTLINK_H
#define REMAT_SOLVER_CORE_HOSTLINK_H

#include "remat/Solver/Core/Problem.h"

#include <cstdint>
#include <optional>
#include <string>

namespace remat {

/// A host link priced in a graph's cost unit, with the host memory a plan
/// may fill (pinned, so it is a budget like the device's).
struct HostLink {
  /// The preset's name (`pcie5`).
  std::string name;
  /// Bytes per second, per direction.
  double bytesPerSecond = 0;
  double latencySeconds = 0;
  /// Cost units per second: 1e12 when the graph's costs are picoseconds,
  /// 1e13 when they are FLOPs (10 FLOP/ps, Communication.h's rate).
  double costPerSecond = 1e12;
  /// The most bytes held in host memory at once.
  int64_t hostBudget = kMaxTotalBytes;
  /// Whether a sharded step's parameter gathers (GatherRole::Gather) cross
  /// this link too (GPUs whose collectives go over the same PCIe lanes as
  /// the host copies): a gather then waits for the copies in flight in
  /// both directions and holds both until it ends (Simulator.h).
  bool carriesGathers = false;

  /// The time one copy of `bytes` takes, in cost units.
  double copyCost(int64_t bytes) const {
    return (latencySeconds + static_cast<double>(bytes) / bytesPerSecond) *
           costPerSecond;
  }
};

/// The preset named `name` priced for `graph`'s cost unit (Graph::device),
/// or nullopt for an unknown name. "none" is not a link: callers treat it
/// as offload off.
std::optional<HostLink> findHostLink(const std::string &name,
                                     const Graph &graph);

/// The preset names, comma-separated, "none" first (for errors and help).
std::string hostLinkNames();

/// A host budget as written (`host-budget=`): bytes, with an optional
/// B/KiB/MiB/GiB/TiB suffix (parseBudget), never a percentage; nullopt with
/// `error` set otherwise.
std::optional<int64_t> parseHostBudget(const std::string &text,
                                       std::string &error);

} // namespace remat

#endif // REMAT_SOLVER_CORE_HOSTLINK_H
