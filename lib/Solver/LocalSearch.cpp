//===- LocalSearch.cpp - verified local search over checkpoint sets -------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Our own solver. The seed heuristics fix a checkpoint set by a model of
// memory (Chen: bytes per segment; Feng & Huang: checkpoints + largest
// segment) that ignores the backward's own live values, the gradients, and
// what the builder can reuse. This solver starts from the best verified
// points (a set and a builder variant) among theirs, the min-cut sweep and
// checkpoint-all, then improves them against the simulator itself (with the
// builder's memory-aware reordering): a move toggles one recomputable node
// in or out of the set, or shifts a checkpoint to the previous/next one; a move
// is taken when the simulated (peak, cost) is better for the objective
// (`isBetter`). Passes repeat in a deterministic shuffled order until none
// improves; climbs start from the three best distinct starting points,
// sharing the time limit (at most 10 s), and from the others in rank order
// while nothing meets the constraints and time is left. Every evaluation is a
// full build and simulation, so what it reports is exactly what the schedule
// does.
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

/// Climbs start from this many of the best distinct starting points.
static constexpr size_t kStarts = 3;

namespace {
/// A point of the search: a checkpoint set, the builder variant it is
/// built with, and its simulated peak and cost.
struct Point {
  std::vector<char> keep;
  CheckpointOptions variant;
  CheckpointEval eval;
};
} // namespace

/// Starting sets: checkpoint-all, Chen greedy over a coarse grid (both
/// candidate rules), Feng & Huang, and the min-cut sweep.
static std::vector<std::vector<char>>
startingSets(const Graph &graph, const std::vector<int> &nodes,
             const SolveOptions &options) {
  std::vector<std::vector<char>> sets;
  sets.push_back(std::vector<char>(graph.size(), 0));
  for (int id : nodes)
    sets.back()[id] = 1;
  std::vector<int> fwd = forwardOrder(graph);
  double total = 0;
  for (int id : fwd)
    total += static_cast<double>(ownedBytes(graph, id));
  std::vector<int> aps = articulationPoints(graph);
  for (double f = 1e-4; f <= 1.1; f *= 1.5) {
    sets.push_back(chenGreedyKeep(graph, fwd, total * f));
    if (!aps.empty())
      sets.push_back(chenGreedyKeep(graph, aps, total * f));
  }
  sets.push_back(fengHuangKeep(graph, options));
  for (std::vector<char> &keep : minCutKeepSets(graph))
    sets.push_back(std::move(keep));
  std::sort(sets.begin(), sets.end());
  sets.erase(std::unique(sets.begin(), sets.end()), sets.end());
  return sets;
}

/// Whether a point is within the budget and the cost limit.
static bool meetsConstraints(const SolveOptions &options, double limit,
                             const CheckpointEval &eval) {
  return eval.peakBytes <= options.budget &&
         eval.cost <= limit + 1e-9 * std::max(1.0, limit);
}

/// Every starting set with every builder variant, best first.
static std::vector<Point> rankStarts(const Graph &graph,
                                     std::vector<std::vector<char>> sets,
                                     const SolveOptions &options,
                                     double limit) {
  std::vector<Point> ranked;
  for (std::vector<char> &keep : sets)
    for (const CheckpointOptions &variant : builderVariants())
      ranked.push_back(
          {keep, variant, evaluateCheckpoints(graph, keep, variant)});
  std::stable_sort(
      ranked.begin(), ranked.end(), [&](const Point &x, const Point &y) {
        return isBetter(options, limit, x.eval.peakBytes, x.eval.cost,
                        y.eval.peakBytes, y.eval.cost);
      });
  return ranked;
}

namespace {
/// One hill climb over toggle and shift moves, in a deterministic shuffled
/// order, until a pass improves nothing or time runs out.
class Climb {
public:
  Climb(const Graph &graph, const std::vector<int> &nodes,
        const SolveOptions &options, double limit, uint64_t &rng)
      : graph(graph), nodes(nodes), options(options), limit(limit), rng(rng) {}

  /// Improves `point` until `until` (seconds on `watch`). Returns false when
  /// it stopped at that time.
  bool run(Point &point, const Stopwatch &watch, double until,
           ProgressReporter &progress) {
    fixOrderPolicy(point);
    bool improved = true;
    while (improved) {
      improved = false;
      ++passes;
      if (progress.due())
        progress.report(point.eval.cost, point.eval.peakBytes, -1,
                        "pass " + std::to_string(passes));
      std::vector<int> moves = candidateMoves(point);
      for (int i = static_cast<int>(moves.size()) - 1; i > 0; --i)
        std::swap(moves[i], moves[next() % (i + 1)]);
      const int n = nodes.size();
      for (int move : moves) {
        if (watch.seconds() > until)
          return false;
        improved |= tryMove(point, move / n, move % n);
      }
    }
    return true;
  }

  int passes = 0, accepted = 0;

private:
  /// Climbs with the order policy that won for the starting point, so that
  /// each move costs one reordering instead of all of them.
  void fixOrderPolicy(Point &point) {
    OrderPolicy winner = OrderPolicy::Given;
    bestOrder(graph,
              computeOrderFromCheckpoints(graph, point.keep, point.variant),
              &winner);
    point.variant.order = winner;
  }

  /// Moves that can matter: toggling a kept node, a recomputed one, or a
  /// neighbour of either; shifting a kept node. Encoded as kind * n + index.
  std::vector<int> candidateMoves(const Point &point) {
    const int n = nodes.size();
    std::vector<int> count(graph.size(), 0);
    for (int id : computeOrderFromCheckpoints(graph, point.keep, point.variant))
      ++count[id];
    std::vector<char> hot(graph.size(), 0);
    for (int id : nodes) {
      if (!point.keep[id] && count[id] < 2)
        continue;
      hot[id] = 1;
      for (int dep : graph.nodes[id].deps)
        hot[dep] = 1;
    }
    for (int id : nodes)
      for (int dep : graph.nodes[id].deps)
        if (point.keep[dep] || count[dep] > 1)
          hot[id] = 1;
    std::vector<int> moves;
    for (int i = 0; i < n; ++i) {
      if (!hot[nodes[i]])
        continue;
      moves.push_back(i);
      if (point.keep[nodes[i]]) {
        moves.push_back(n + i);
        moves.push_back(2 * n + i);
      }
    }
    return moves;
  }

  uint64_t next() {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
  }

  /// Kind 0 toggles nodes[i]; kind 1 (2) shifts a checkpoint at nodes[i] to
  /// nodes[i-1] (nodes[i+1]). Keeps the move when it is better.
  bool tryMove(Point &point, int kind, int i) {
    std::vector<char> &keep = point.keep;
    int a = nodes[i], b = -1;
    if (kind == 0) {
      keep[a] ^= 1;
    } else {
      int j = kind == 1 ? i - 1 : i + 1;
      if (!keep[a] || j < 0 || j >= static_cast<int>(nodes.size()) ||
          keep[nodes[j]])
        return false;
      b = nodes[j];
      keep[a] = 0;
      keep[b] = 1;
    }
    CheckpointEval eval = evaluateCheckpoints(graph, keep, point.variant);
    if (isBetter(options, limit, eval.peakBytes, eval.cost,
                 point.eval.peakBytes, point.eval.cost)) {
      point.eval = eval;
      ++accepted;
      return true;
    }
    if (kind == 0) {
      keep[a] ^= 1;
    } else {
      keep[a] = 1;
      keep[b] = 0;
    }
    return false;
  }

  const Graph &graph;
  const std::vector<int> &nodes;
  const SolveOptions &options;
  double limit;
  uint64_t &rng;
};
} // namespace

SolveResult remat::solveLocalSearch(const Graph &graph,
                                    const SolveOptions &options) {
  Stopwatch watch;
  const char *name = "local-search";
  ProgressReporter progress(options, name, watch);
  std::vector<char> recomputable = recomputableNodes(graph);
  std::vector<int> nodes;
  for (int id = 0; id < graph.size(); ++id)
    if (recomputable[id])
      nodes.push_back(id);
  if (nodes.empty())
    return finishSolve(graph, options, name, checkpointAllSchedule(graph),
                       SolveStatus::Feasible, watch);
  const double timeLimit =
      std::min(10.0, std::max(0.0, options.timeLimitSeconds));
  const double limit = costLimit(graph, options);

  // Multi-start: the climb is greedy, so different starts reach different
  // local optima.
  std::vector<Point> ranked =
      rankStarts(graph, startingSets(graph, nodes, options), options, limit);
  uint64_t rng = 0x2545F4914F6CDD1Dull;
  Climb climb(graph, nodes, options, limit, rng);
  bool outOfTime = false;
  Point best = ranked[0];
  size_t climbs = 0;
  // The best kStarts climb first, each with an equal share of what is
  // left; while nothing meets the constraints, the other starts follow.
  for (size_t c = 0; c < ranked.size() && !outOfTime; ++c) {
    if (c >= kStarts && meetsConstraints(options, limit, best.eval))
      break;
    double until = c < kStarts
                       ? watch.seconds() + (timeLimit - watch.seconds()) /
                                               static_cast<double>(kStarts - c)
                       : timeLimit;
    ++climbs;
    Point point = ranked[c];
    outOfTime = !climb.run(point, watch, until, progress) &&
                watch.seconds() > timeLimit;
    if (isBetter(options, limit, point.eval.peakBytes, point.eval.cost,
                 best.eval.peakBytes, best.eval.cost))
      best = std::move(point);
  }
  return finishSolve(graph, options, name,
                     scheduleFromCheckpoints(graph, best.keep, best.variant),
                     SolveStatus::Feasible, watch,
                     std::to_string(climbs) + " climbs, " +
                         std::to_string(climb.passes) + " passes, " +
                         std::to_string(climb.accepted) + " moves taken" +
                         (outOfTime ? ", stopped at the time limit" : ""));
}
