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
// repeat in a deterministic shuffled order until none improves or the time
// limit (at most 10 s) runs out. Every evaluation is a full build and
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

SolveResult remat::solveLocalSearch(const Graph &graph,
                                    const SolveOptions &options) {
  Stopwatch watch;
  const char *name = "local-search";
  std::vector<int> fwd = forwardOrder(graph);
  if (fwd.empty())
    return finishSolve(graph, options, name, checkpointAllSchedule(graph),
                       SolveStatus::Feasible, watch);
  const double timeLimit = std::min(10.0, std::max(0.0, options.timeLimitSeconds));
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
  for (double f = 1.0 / 64; f <= 1.0; f *= 1.5) {
    starts.push_back(chenGreedyKeep(graph, fwd, total * f));
    if (!aps.empty())
      starts.push_back(chenGreedyKeep(graph, aps, total * f));
  }
  starts.push_back(fengHuangKeep(graph, options));

  std::vector<char> keep;
  CheckpointEval cur;
  bool first = true;
  for (std::vector<char> &start : starts) {
    CheckpointEval eval = evaluateCheckpoints(graph, start);
    if (first || isBetter(options, limit, eval.peakBytes, eval.cost,
                          cur.peakBytes, cur.cost)) {
      keep = start;
      cur = eval;
      first = false;
    }
  }

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
  bool improved = true;
  int passes = 0, accepted = 0;
  bool outOfTime = false;
  while (improved && !outOfTime) {
    improved = false;
    ++passes;
    for (int i = 3 * n - 1; i > 0; --i)
      std::swap(moves[i], moves[next() % (i + 1)]);
    for (int move : moves) {
      if (watch.seconds() > timeLimit) {
        outOfTime = true;
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
  return finishSolve(graph, options, name, scheduleFromCheckpoints(graph, keep),
                     SolveStatus::Feasible, watch,
                     std::to_string(passes) + " passes, " +
                         std::to_string(accepted) + " moves taken" +
                         (outOfTime ? ", stopped at the time limit" : ""));
}
