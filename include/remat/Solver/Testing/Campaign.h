//===- Campaign.h - property campaign over random problems ------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// A property campaign: random training graphs (random DAGs with random
// sizes, costs, parameters, resident bytes, `keep = always` pins and the
// effect order of two pinned nodes), each solved by every registered solver
// under a random objective and budget, and every answer checked independently
// of the solver:
//
//   * a schedule said to be feasible replays in the simulator without error,
//     with the peak and cost the solver reported, recomputes no pinned node,
//     meets the budget (or, for min-peak, the cost limit), and is no better
//     than the lower bounds (`peakLowerBound`, `checkpointAllCost`) nor than
//     a bound the solver itself proved (except Checkmate's MILP and LP
//     rounding, whose bounds hold for the frontier-advancing class only);
//   * no feasible answer beats brute force's optimum, and brute force is
//     feasible whenever any solver is (graphs small enough for it);
//   * a solver that says Optimal (other than Checkmate's MILP and LP
//     rounding, optimal only in the frontier-advancing class) matches brute
//     force's optimum;
//   * checkpoint-all, brute force and the portfolio are feasible whenever
//     the budget holds checkpoint-all's peak;
//   * every solve returns within its time limit (plus 10 % or 1 s).
//
// Every graph is reproducible from (seed, index). The unit test runs a few
// hundred graphs; `remat-campaign` (bench/) runs as many as asked.
//
// Usage:
//   CampaignOptions options;
//   options.graphs = 300;
//   CampaignReport report = runCampaign(options);
//   for (const std::string &failure : report.failures) ...
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_TESTING_CAMPAIGN_H
#define REMAT_SOLVER_TESTING_CAMPAIGN_H

#include "remat/Solver/Core/Problem.h"
#include "remat/Solver/Core/Solver.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace remat {

struct CampaignOptions {
  /// Number of random problems.
  int graphs = 300;
  /// Index of the first one: graphs `first` .. `first + graphs - 1` run, so
  /// that a range of a long campaign reproduces on its own.
  int first = 0;
  /// The campaign is deterministic in `seed`; graph i uses (seed, i).
  uint64_t seed = 1;
  /// Forward ops per random DAG, drawn from [2, maxForwardNodes]; the
  /// training graph has about twice as many nodes plus inputs and params.
  int maxForwardNodes = 6;
  /// Solvers to run (registry names); empty = every registered solver.
  std::vector<std::string> solvers;
  /// Solvers whose plans must not get worse as the budget grows: on each
  /// min-compute problem they meet, they solve it again at a larger budget
  /// (halfway to the checkpoint-all peak), which they must meet with no
  /// more compute.
  std::vector<std::string> monotone = {"auto"};
  /// Give some graphs two pinned nodes in effect order (`Node::after`),
  /// drawn after everything else: off, each graph is the one campaigns drew
  /// before ordering edges existed.
  bool effectOrder = true;
  /// Time limit of every solve.
  double timeLimitSeconds = 5;
  /// Keep at most this many failure messages (all are counted).
  int maxFailures = 50;
};

/// How one solver fared over the campaign.
struct SolverTally {
  int solves = 0;
  int optimal = 0;
  int feasible = 0;
  int infeasible = 0;
  int timeout = 0;
  int unsupported = 0;
  double seconds = 0;
  double maxSeconds = 0;
};

struct CampaignReport {
  int graphs = 0;
  int solves = 0;
  /// Graphs brute force solved exactly (its optimum was compared).
  int exactGraphs = 0;
  /// Answers solved again at a larger budget (`CampaignOptions::monotone`).
  int monotoneChecks = 0;
  int failureCount = 0;
  /// The first `maxFailures` property violations, each naming the seed, the
  /// graph index, the solver and the property.
  std::vector<std::string> failures;
  std::map<std::string, SolverTally> tallies;
};

/// The random problem number `index` of the campaign with `seed`: the graph
/// and the options to solve it with (objective, budget, overhead, limit).
struct CampaignProblem {
  Graph graph;
  SolveOptions options;
};
CampaignProblem makeCampaignProblem(uint64_t seed, int index,
                                    const CampaignOptions &options);

/// Runs the campaign; `progress`, when set, is called after every graph with
/// the report so far.
CampaignReport
runCampaign(const CampaignOptions &options,
            const std::function<void(const CampaignReport &)> &progress = {});

} // namespace remat

#endif // REMAT_SOLVER_TESTING_CAMPAIGN_H
