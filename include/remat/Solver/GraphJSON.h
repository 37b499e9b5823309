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

#ifndef REMAT_SOLVER_GRAPHJSON_H
#define REMAT_SOLVER_GRAPHJSON_H

#include "remat/Solver/Modes.h"
#include "remat/Solver/Solver.h"

#include <cstdint>
#include <string>

namespace remat {

/// Parses a graph. On error returns false and sets `error`: a syntax error
/// carries "line:column"; a semantic one names the JSON path (for example
/// "nodes[3].deps[0]"). The parsed graph is also checked (`Graph::check`).
bool parseGraphJSON(const std::string &text, Graph &graph, std::string &error);

/// The graph in the input format (ids = positions).
std::string printGraphJSON(const Graph &graph);

/// What the result JSON reports besides the schedule.
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
};

/// The result JSON: {"status", "steps", "stats"}; the steps are printed only
/// for a feasible (verified) result.
std::string printResultJSON(const SolveResult &result,
                            const ResultReport &report);

/// The curve of `--mode=pareto`: {"status", "solver", ..., "points"}, one
/// point a line (docs/SolverFormat.md).
std::string printParetoJSON(const ParetoCurve &curve,
                            const std::string &solver);

} // namespace remat

#endif // REMAT_SOLVER_GRAPHJSON_H
