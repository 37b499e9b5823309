//===- Deferral.h - outputs recomputed at the end of the step ---*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// A graph output (a weight gradient) must be live when the step ends, not
// from its first computation on. The backward computes it early, next to the
// gradient it shares an op with, and then holds it while every later layer
// works. Deferring it means computing it a second time at the very end,
// from operands held until then, and dropping the early copy as soon as its
// other readers are done (or not computing it early at all when nothing else
// reads it). That is a recomputation of backward work, valid in the model of
// Problem.h, and worth it when the output owns more bytes than the operands
// held for it (a late layer's weight gradient: large weights, small
// activations).
//
// Deferral is a graph transformation, so that every solver decides with it
// what to keep and in which order: `deferOutputs` appends, for each chosen
// output, a copy of it (its "tail") at the end of the node order and makes
// the copy the output; the original stays for its other readers, or becomes
// dead code. A schedule of the transformed graph is a schedule of the
// original once each node is renamed to the node it copies
// (`DeferredGraph::mapBack`), which the simulator then verifies on the
// original graph.
//
// The tail of an output is the output and, recursively, the bases of views
// in it (a transposed weight gradient is recomputed with the product it
// views) and its dependencies that own no bytes and are no views (a
// tuple-producing op whose results the readers own, as traced PyTorch graphs
// have them): their work is redone, never held as a zero-byte value in place
// of its results.
//
// Usage:
//   DeferredGraph deferred = deferOutputs(graph);
//   if (!deferred.deferred.empty()) {
//     SolveResult r = solver->solve(deferred.graph, options);
//     Schedule s = deferred.mapBack(r.schedule);   // verify on `graph`
//   }
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_ALGORITHMS_DEFERRAL_H
#define REMAT_SOLVER_ALGORITHMS_DEFERRAL_H

#include "remat/Solver/Core/Problem.h"

#include <cstdint>
#include <vector>

namespace remat {

/// A graph with some outputs' final computation moved to its end.
struct DeferredGraph {
  /// The original nodes (same ids), then the tails' copies.
  Graph graph;
  /// Node of `graph` -> the node of the original graph it computes.
  std::vector<int> original;
  /// The original outputs that were deferred.
  std::vector<int> deferred;

  /// `schedule` (of `graph`) with every node renamed to its original.
  Schedule mapBack(const Schedule &schedule) const;
};

/// What deferring output `out` would cost and save, from the graph alone.
struct DeferralCandidate {
  int output = -1;
  /// The nodes recomputed at the end, in topological order (the output last).
  std::vector<int> tail;
  /// Storage the output owns (a view: its base's): freed from its early
  /// computation to the end.
  int64_t savedBytes = 0;
  /// Storage of the tail's non-resident operands, held to the end.
  int64_t heldBytes = 0;
};

/// The outputs that can be deferred: outputs whose storage is computed (not
/// resident) and owns bytes, whose tail holds no `KeepPolicy::Always` node
/// and no other output. Empty for a
/// graph that fails `Graph::check`.
std::vector<DeferralCandidate> deferralCandidates(const Graph &graph);

/// `graph` with every candidate deferred that saves more bytes than it holds
/// (`savedBytes > heldBytes`); `deferred` is empty when none does.
DeferredGraph deferOutputs(const Graph &graph);

/// `graph` with exactly `candidates` deferred (from `deferralCandidates`).
DeferredGraph deferOutputs(const Graph &graph,
                           const std::vector<DeferralCandidate> &candidates);

} // namespace remat

#endif // REMAT_SOLVER_ALGORITHMS_DEFERRAL_H
