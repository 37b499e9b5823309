//===- GraphJSON.h - JSON graphs and schedules ------------------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Reads graphs and writes graphs and solve results in the JSON formats of
// docs/SolverFormat.md. Built on llvm/Support/JSON.h in the separate
// RematSolverIO library, so that the solver library itself stays plain C++;
// this interface uses only std types.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_IO_GRAPHJSON_H
#define REMAT_SOLVER_IO_GRAPHJSON_H

#include "remat/Solver/Search/Modes.h"
#include "remat/Solver/Core/Solver.h"

#include <cstdint>
#include <optional>
#include <string>

namespace remat {

/// Parses a graph. On error returns false and sets `error`: a syntax error
/// carries "line:column"; a semantic one names the JSON path (for example
/// "nodes[3].deps[0]"). The parsed graph is also checked (`Graph::check`).
bool parseGraphJSON(const std::string &text, Graph &graph, std::string &error);

/// The graph in the input format (ids = positions).
std::string printGraphJSON(const Graph &graph);

/// What identifies the graph a schedule was computed for: its node count
/// and 64-bit hashes of its parts, so that a mismatch can say what differs.
/// Names (of the graph and of nodes) are not hashed: they only label.
struct GraphFingerprint {
  std::string name;
  int64_t nodes = 0;
  /// Kinds, dependencies, ordering edges, views, pins and outputs.
  uint64_t structure = 0;
  /// Node sizes and `fixed_bytes`.
  uint64_t bytes = 0;
  /// Compute costs.
  uint64_t cost = 0;
};

/// The fingerprint of `graph`; the only place it is computed.
GraphFingerprint fingerprintGraph(const Graph &graph);

/// Empty when `saved` and `actual` describe the same graph; otherwise what
/// differs, for example "the node count (7 vs 9)" or "the node sizes".
std::string describeMismatch(const GraphFingerprint &saved,
                             const GraphFingerprint &actual);

/// What the result JSON reports besides the schedule.
/// With offloading: the plan simulated on its host link.
struct OffloadReport {
  std::string link;
  /// Predicted step time (compute plus stalls) and its stalls, in the
  /// graph's cost unit.
  double time = 0, stall = 0;
  int64_t hostPeakBytes = 0, copies = 0, bytesMoved = 0;
  /// The host budget that plans, when the one given was too small; -1.
  int64_t hostNeeded = -1;
};

struct ResultReport {
  std::string mode;
  int64_t budget = -1; ///< -1: no budget
  double checkpointAllCost = 0;
  int64_t checkpointAllPeak = 0;
  /// Mode-specific extras; -1 when absent.
  int64_t smallestBudget = -1;
  int64_t budgetLowerBound = -1;
  /// max-batch: the largest batch in samples (the other fields are then
  /// at that batch, `budget` aside) and the batch the graph was traced at.
  int64_t batch = -1;
  int64_t tracedBatch = -1;
  /// The graph solved, printed as "graph" when set.
  std::optional<GraphFingerprint> graph;
  /// Printed as "host_link", "predicted_time", "stall", "host_peak_bytes",
  /// "copies", "bytes_moved" (and "host_needed") when set.
  std::optional<OffloadReport> offload;
};

/// The result JSON: {"status", "steps", "stats"}; the steps are printed only
/// for a feasible (verified) result.
std::string printResultJSON(const SolveResult &result,
                            const ResultReport &report);

/// A result JSON read back (to apply a saved schedule).
struct SavedResult {
  /// Status, steps, `peak_bytes`, `cost`, `lower_bound` (-1 when null),
  /// `solver` and `message`.
  SolveResult result;
  std::string mode;
  int64_t budget = -1; ///< -1: null
  GraphFingerprint graph;
};

/// Parses a result JSON written by `printResultJSON` with a "graph"
/// fingerprint. On error returns false and sets `error` like
/// `parseGraphJSON` (the JSON path, or "line:column"). Node ids of the steps
/// are checked against the fingerprint's node count; the schedule itself is
/// not simulated.
bool parseResultJSON(const std::string &text, SavedResult &saved,
                     std::string &error);

/// The curve of `--mode=pareto`: {"status", "solver", ..., "points"}, one
/// point a line (docs/SolverFormat.md).
std::string printParetoJSON(const ParetoCurve &curve,
                            const std::string &solver);

} // namespace remat

#endif // REMAT_SOLVER_IO_GRAPHJSON_H
