//===- LocalSearch.cpp - verified local search over checkpoint sets -------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Our own solver. The seed heuristics fix a checkpoint set by a model of
// memory (Chen: bytes per segment; Feng & Huang: checkpoints + largest
// segment) that ignores the backward's own live values, the gradients, and
// what the builder can reuse. This solver starts from the best verified set
// among theirs and checkpoint-all, then improves it against the simulator
// itself: a move toggles one forward node in or out of the set, or shifts a
// checkpoint to the previous/next forward node; a move is taken when the
// simulated (peak, cost) is better for the objective (`isBetter`). Passes
// repeat in a deterministic shuffled order until none improves; climbs start
// from the three best distinct starting sets, sharing the time limit (at
// most 10 s). Every evaluation is a full build and
// simulation, so what it reports is exactly what the schedule does.
//
// Fails (Infeasible) when no set it visits meets the constraints. It cannot
// find schedules outside the builder's family (checkpoint sets with
// segment-scoped reuse), e.g. revolve's multi-level checkpoints.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/ScheduleBuilder.h"
#include "remat/Solver/SolverSupport.h"
#include "remat/Solver/Solvers.h"

#include <algorithm>
#include <cmath>

using namespace remat;

/// Climbs start from this many of the best distinct starting sets.
static constexpr size_t kStarts = 3;

SolveResult remat::solveLocalSearch(const Graph &graph,
                                    const SolveOptions &options) {
  Stopwatch watch;
  const char *name = "local-search";
  ProgressReporter progress(options, name, watch);
  std::vector<int> fwd = forwardOrder(graph);
  if (fwd.empty())
    return finishSolve(graph, options, name, checkpointAllSchedule(graph),
                       SolveStatus::Feasible, watch);
  const double timeLimit =
      std::min(10.0, std::max(0.0, options.timeLimitSeconds));
  const double limit = costLimit(graph, options);

  // Starting points: checkpoint-all, Chen greedy over a coarse grid (both
  // candidate rules), Feng & Huang.
  std::vector<std::vector<char>> starts;
  starts.push_back(std::vector<char>(graph.size(), 0));
  for (int id : fwd)
    starts.back()[id] = 1;
  double total = 0;
  for (int id : fwd)
    total += static_cast<double>(ownedBytes(graph, id));
  std::vector<int> aps = articulationPoints(graph);
  // The same grid as chen-greedy, so that local search starts no worse.
  for (double f = 1e-4; f <= 1.1; f *= 1.1) {
    starts.push_back(chenGreedyKeep(graph, fwd, total * f));
    if (!aps.empty())
      starts.push_back(chenGreedyKeep(graph, aps, total * f));
  }
  starts.push_back(fengHuangKeep(graph, options));

  // Rank the distinct starts; climb from the best few (multi-start: the
  // climb is greedy, so different starts reach different local optima).
  std::vector<std::pair<CheckpointEval, size_t>> ranked;
  for (size_t i = 0; i < starts.size(); ++i) {
    bool duplicate = false;
    for (auto &r : ranked)
      duplicate |= starts[r.second] == starts[i];
    if (!duplicate)
      ranked.push_back({evaluateCheckpoints(graph, starts[i]), i});
  }
  std::stable_sort(
      ranked.begin(), ranked.end(), [&](const auto &x, const auto &y) {
        return isBetter(options, limit, x.first.peakBytes, x.first.cost,
                        y.first.peakBytes, y.first.cost);
      });
  const size_t climbs = std::min<size_t>(kStarts, ranked.size());

  // Moves: index i < n toggles fwd[i]; n + i shifts a checkpoint at fwd[i]
  // to fwd[i-1]; 2n + i shifts it to fwd[i+1].
  const int n = fwd.size();
  std::vector<int> moves(3 * n);
  for (int i = 0; i < 3 * n; ++i)
    moves[i] = i;
  uint64_t state = 0x2545F4914F6CDD1Dull;
  auto next = [&]() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  int passes = 0, accepted = 0;
  bool outOfTime = false;
  std::vector<char> bestKeep = starts[ranked[0].second];
  CheckpointEval best = ranked[0].first;
  for (size_t c = 0; c < climbs && !outOfTime; ++c) {
    // Each climb gets an equal share of what is left.
    double until = watch.seconds() + (timeLimit - watch.seconds()) /
                                         static_cast<double>(climbs - c);
    std::vector<char> keep = starts[ranked[c].second];
    CheckpointEval cur = ranked[c].first;
    bool improved = true;
    while (improved) {
      improved = false;
      ++passes;
      if (progress.due())
        progress.report(cur.cost, cur.peakBytes, -1,
                        "climb " + std::to_string(c + 1) + ", pass " +
                            std::to_string(passes));
      for (int i = 3 * n - 1; i > 0; --i)
        std::swap(moves[i], moves[next() % (i + 1)]);
      for (int move : moves) {
        if (watch.seconds() > until) {
          outOfTime = watch.seconds() > timeLimit;
          improved = false;
          break;
        }
        int kind = move / n, i = move % n;
        int a = fwd[i], b = -1;
        if (kind == 0) {
          keep[a] ^= 1;
        } else {
          int j = kind == 1 ? i - 1 : i + 1;
          if (!keep[a] || j < 0 || j >= n || keep[fwd[j]])
            continue;
          b = fwd[j];
          keep[a] = 0;
          keep[b] = 1;
        }
        CheckpointEval eval = evaluateCheckpoints(graph, keep);
        if (isBetter(options, limit, eval.peakBytes, eval.cost, cur.peakBytes,
                     cur.cost)) {
          cur = eval;
          improved = true;
          ++accepted;
          continue;
        }
        // Undo.
        if (kind == 0) {
          keep[a] ^= 1;
        } else {
          keep[a] = 1;
          keep[b] = 0;
        }
      }
    }
    if (isBetter(options, limit, cur.peakBytes, cur.cost, best.peakBytes,
                 best.cost)) {
      best = cur;
      bestKeep = keep;
    }
  }
  return finishSolve(
      graph, options, name, scheduleFromCheckpoints(graph, bestKeep),
      SolveStatus::Feasible, watch,
      std::to_string(climbs) + " climbs, " + std::to_string(passes) +
          " passes, " + std::to_string(accepted) + " moves taken" +
          (outOfTime ? ", stopped at the time limit" : ""));
}
