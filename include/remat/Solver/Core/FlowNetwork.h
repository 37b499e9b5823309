//===- FlowNetwork.h - minimum s-t cuts for the solvers ---------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// A flow network with integer capacities and its minimum s-t cut, over
// Boost.Graph's push-relabel max-flow. The min-cut solver (its saved sets)
// and the cost lower bound at a budget (CostBound.h) build their networks
// with it.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_CORE_FLOWNETWORK_H
#define REMAT_SOLVER_CORE_FLOWNETWORK_H

#include <cstdint>
#include <memory>
#include <vector>

namespace remat {

/// Larger than any sum of finite capacities a network may hold: callers
/// keep their finite capacities' sum below `kFlowInfinite >> 2`.
constexpr int64_t kFlowInfinite = int64_t(1) << 52;

/// A minimum s-t cut: its capacity, and which vertices are on the source
/// side (reachable from the source in the residual network).
struct FlowCut {
  int64_t capacity = 0;
  std::vector<char> sourceSide;
};

class FlowNetwork {
public:
  explicit FlowNetwork(int vertices);
  ~FlowNetwork();
  FlowNetwork(const FlowNetwork &) = delete;
  FlowNetwork &operator=(const FlowNetwork &) = delete;

  /// Adds the edge `from -> to` (and its residual twin of capacity 0).
  void addEdge(int from, int to, int64_t capacity);

  /// Runs max-flow once; the network is spent afterwards.
  FlowCut minimumCut(int source, int sink);

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace remat

#endif // REMAT_SOLVER_CORE_FLOWNETWORK_H
