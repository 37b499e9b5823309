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
// improves. Each pass starts with drops aimed at the peak: the largest kept
// values held across the peak step, alone and several at once (a block's
// activations, each useless to drop alone because the others still hold
// the peak), then toggles of the recomputable nodes around the peak step
// (`nodesAroundPeak`: the values live there and their readers and operands,
// largest first: keeping a small value such as a mask can free a large
// recomputed one held there), repeated while one is taken. Climbs start from
// the three best distinct starting points, sharing the work, and from the
// others in rank order while nothing meets the constraints and work is
// left; every evaluation is charged to the solve's `WorkMeter`, which ends
// the search (deterministically: the work is counted, not timed). Every
// evaluation is a full build and simulation, or one remembered from an
// earlier build of the same set in the same plan (`CheckpointMemo`), so what
// it reports is exactly what the schedule does; the end point of each climb
// is then peak-repaired (`repairWherePeakMatters`, too slow per
// evaluation) before the climbs are compared.
//
// Fails (Infeasible) when no set it visits meets the constraints. It cannot
// find schedules outside the builder's family (checkpoint sets with
// segment-scoped reuse), e.g. revolve's multi-level checkpoints.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Core/Ordering.h"
#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Solver/Core/SolverSupport.h"
#include "remat/Solver/Algorithms/Solvers.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

using namespace remat;

/// Climbs start from this many of the best distinct starting points.
static constexpr size_t kStarts = 3;
/// Joint drops take at most this many of the largest values held across the
/// peak, and group values at most kNearNodes recomputable nodes apart.
static constexpr size_t kMaxJointDrop = 6;
static constexpr int kNearNodes = 12;
/// Peak-aimed toggles try at most this many nodes around the peak step.
static constexpr size_t kPeakToggles = 48;
/// Parts of the work: Feng & Huang's search (on 20,000 ops, unbounded,
/// 16 s; the min-cut sweep takes kSweepShare); the hierarchical solver's
/// plan, computed only while under kHierarchicalBefore is spent.
static constexpr double kFengHuangShare = 1.0 / 8;
static constexpr double kHierarchicalShare = 0.1;
static constexpr double kHierarchicalBefore = 0.25;

namespace {
/// A point of the search: a checkpoint set, the builder variant it is
/// built with, and its simulated peak and cost.
struct Point {
  std::vector<char> keep;
  CheckpointOptions variant;
  CheckpointEval eval;
};
} // namespace

/// `sets` spread out: every 8th first, then every 4th, 2nd, and the rest,
/// so that a ranking cut short by the time limit still samples the whole
/// range of a sweep.
static void appendSpread(std::vector<std::vector<char>> &out,
                         std::vector<std::vector<char>> sets) {
  std::vector<char> taken(sets.size(), 0);
  for (size_t stride : {8, 4, 2, 1})
    for (size_t i = 0; i < sets.size(); i += stride)
      if (!taken[i]) {
        taken[i] = 1;
        out.push_back(std::move(sets[i]));
      }
}

/// Starting sets, most promising first (distinct): the hierarchical DP's
/// plan (computed last, when under kHierarchicalBefore of the work is
/// spent, and given at most kHierarchicalShare), Feng & Huang,
/// checkpoint-all, then the min-cut sweep and Chen greedy over a coarse grid
/// (both candidate rules), spread out.
static std::vector<std::vector<char>>
startingSets(const Graph &graph, const std::vector<int> &nodes,
             const SolveOptions &options, WorkMeter &meter) {
  std::vector<std::vector<char>> sets;
  // Feng & Huang's search and the min-cut sweep each take at most an eighth
  // of the work (unbounded, they take seconds on large steps).
  WorkMeter division(meter, meter.part(kFengHuangShare));
  sets.push_back(fengHuangKeep(graph, &division));
  meter.charge(division);
  sets.push_back(std::vector<char>(graph.size(), 0));
  for (int id : nodes)
    sets.back()[id] = 1;
  WorkMeter sweep(meter, meter.part(kSweepShare));
  appendSpread(sets, minCutKeepSets(graph, &sweep));
  meter.charge(sweep);
  std::vector<int> fwd = forwardOrder(graph);
  double total = forwardBytes(graph);
  std::vector<int> aps = articulationPoints(graph);
  std::vector<std::vector<char>> chen;
  for (double f = 1e-4; f <= 1.1; f *= 1.5) {
    chen.push_back(chenGreedyKeep(graph, fwd, total * f));
    if (!aps.empty())
      chen.push_back(chenGreedyKeep(graph, aps, total * f));
  }
  appendSpread(sets, std::move(chen));
  const int64_t before = meter.part(kHierarchicalBefore);
  if (meter.used() < before) {
    WorkMeter blocks(
        meter, std::min(meter.part(kHierarchicalShare), before - meter.used()));
    std::vector<char> keep = hierarchicalKeep(graph, options, blocks);
    meter.charge(blocks);
    if (!keep.empty())
      sets.insert(sets.begin(), std::move(keep));
  }
  std::vector<std::vector<char>> distinct;
  std::set<std::vector<char>> seen;
  for (std::vector<char> &keep : sets)
    if (seen.insert(keep).second)
      distinct.push_back(std::move(keep));
  return distinct;
}

/// Whether a point is within the budget and the cost limit.
static bool meetsConstraints(const SolveOptions &options, double limit,
                             const CheckpointEval &eval) {
  return eval.peakBytes <= options.budget &&
         eval.cost <= limit + 1e-9 * std::max(1.0, limit);
}

/// Every starting set with every builder variant, best first; only those
/// evaluated before `meter` is exhausted (at least one).
static std::vector<Point> rankStarts(const Graph &graph,
                                     std::vector<std::vector<char>> sets,
                                     const SolveOptions &options, double limit,
                                     CheckpointEvals &known, WorkMeter &meter) {
  std::vector<Point> ranked;
  for (std::vector<char> &keep : sets)
    for (const CheckpointOptions &variant : builderVariants()) {
      if (!ranked.empty() && meter.exhausted())
        break;
      ranked.push_back(
          {keep, variant, evaluateCheckpoints(graph, keep, variant, &known)});
      meter.charge(ranked.back().eval.work);
    }
  std::stable_sort(
      ranked.begin(), ranked.end(), [&](const Point &x, const Point &y) {
        return isBetter(options, limit, x.eval.peakBytes, x.eval.cost,
                        y.eval.peakBytes, y.eval.cost);
      });
  return ranked;
}

/// Which values are live during the first compute step at the schedule's
/// peak (the operands that step reads included when `withOperands`), and
/// that step's node; -1 when the schedule is empty or invalid.
static int livePeakStep(const Graph &graph, const Schedule &schedule,
                        bool withOperands, std::vector<char> &live) {
  Simulation sim = simulate(graph, schedule);
  live.assign(graph.size(), 0);
  if (!sim.valid() || schedule.steps.empty())
    return -1;
  size_t peakStep = 0;
  for (size_t i = 0; i < schedule.steps.size(); ++i)
    if (schedule.steps[i].kind == Step::Kind::Compute &&
        sim.liveAfterStep[i] == sim.peakBytes) {
      peakStep = i;
      break;
    }
  for (size_t i = 0; i < peakStep; ++i)
    live[schedule.steps[i].node] =
        schedule.steps[i].kind == Step::Kind::Compute;
  int atPeak = schedule.steps[peakStep].node;
  if (!withOperands)
    for (int dep : graph.nodes[atPeak].deps)
      live[dep] = 0;
  return atPeak;
}

std::vector<int> remat::nodesAroundPeak(const Graph &graph,
                                        const Schedule &schedule,
                                        const std::vector<char> &candidates,
                                        size_t limit) {
  std::vector<char> live;
  std::vector<int> around;
  int atPeak = livePeakStep(graph, schedule, /*withOperands=*/true, live);
  if (atPeak < 0)
    return around;
  live[atPeak] = 1;
  std::vector<char> near(graph.size(), 0);
  for (int id = 0; id < graph.size(); ++id) {
    if (graph.nodes[id].isResident())
      continue;
    bool touches = live[id];
    forEachRead(graph.nodes[id], [&](int dep) {
      if (live[dep]) {
        touches = true;
        near[dep] = 1;
      }
    });
    near[id] |= touches;
  }
  for (int id = 0; id < graph.size(); ++id)
    if (near[id] && id < static_cast<int>(candidates.size()) && candidates[id])
      around.push_back(id);
  std::stable_sort(around.begin(), around.end(), [&](int a, int b) {
    return ownedBytes(graph, a) > ownedBytes(graph, b);
  });
  if (around.size() > limit)
    around.resize(limit);
  return around;
}

namespace {
/// One hill climb over toggle and shift moves, in a deterministic shuffled
/// order, until a pass improves nothing or the work is spent.
class Climb {
public:
  Climb(const Graph &graph, const std::vector<int> &nodes,
        const SolveOptions &options, double limit, CheckpointEvals &known,
        uint64_t &rng)
      : graph(graph), nodes(nodes), options(options), limit(limit),
        known(known), rng(rng), position(graph.size(), 0),
        recomputable(graph.size(), 0) {
    for (size_t i = 0; i < nodes.size(); ++i) {
      position[nodes[i]] = static_cast<int>(i);
      recomputable[nodes[i]] = 1;
    }
  }

  /// Improves `point` until no move improves it or `work` (a part of the
  /// solve's meter) is exhausted; returns false when it stopped for that.
  /// With `policy`, climbs with that order policy instead of the one that
  /// won for the starting point (re-evaluating the start with it).
  bool run(Point &point, WorkMeter &work, ProgressReporter &progress,
           std::optional<OrderPolicy> policy = std::nullopt) {
    meter = &work;
    buildCheckpointSchedule(graph, point.keep, point.variant, point.eval);
    if (meter->exhausted())
      return false;
    if (policy) {
      point.variant.order = *policy;
      point.eval = evaluateCheckpoints(graph, point.keep, point.variant);
      meter->charge(point.eval.work);
    } else {
      fixOrderPolicy(point);
    }
    bool improved = true;
    while (improved) {
      improved = false;
      ++passes;
      // The peak's own values first: few evaluations, aimed where it counts.
      while (tryPeakDrops(point) || tryPeakToggles(point))
        improved = true;
      if (progress.due())
        progress.report(point.eval.cost, point.eval.peakBytes, -1,
                        "pass " + std::to_string(passes));
      std::vector<int> moves = candidateMoves(point);
      for (int i = static_cast<int>(moves.size()) - 1; i > 0; --i)
        std::swap(moves[i], moves[next() % (i + 1)]);
      const int n = nodes.size();
      for (int move : moves) {
        if (meter->exhausted())
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
    meter->charge(
        orderWork(OrderPolicy::Best, point.eval.schedule.steps.size()));
    point.variant.order = winner;
  }

  /// Moves that can matter: toggling a kept node, a recomputed one, or a
  /// neighbour of either; shifting a kept node. Encoded as kind * n + index.
  std::vector<int> candidateMoves(const Point &point) {
    const int n = nodes.size();
    std::vector<int> count(graph.size(), 0);
    for (int id : computeOrderFromCheckpoints(graph, point.keep, point.variant))
      ++count[id];
    meter->charge(
        orderWork(OrderPolicy::Given, point.eval.schedule.steps.size()));
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

  /// The kept values live across the peak step of the point's schedule
  /// (not read by that step), largest first.
  std::vector<int> keptAtPeak(const Point &point) const {
    std::vector<char> live;
    std::vector<int> held;
    if (livePeakStep(graph, point.eval.schedule, /*withOperands=*/false, live) <
        0)
      return held;
    for (int id : nodes)
      if (point.keep[id] && live[id] && ownedBytes(graph, id) > 0)
        held.push_back(id);
    std::stable_sort(held.begin(), held.end(), [&](int a, int b) {
      return ownedBytes(graph, a) > ownedBytes(graph, b);
    });
    return held;
  }

  /// Toggles of the nodes around the peak (`nodesAroundPeak`), largest
  /// first; keeps the first that is better.
  bool tryPeakToggles(Point &point) {
    std::vector<int> around =
        nodesAroundPeak(graph, point.eval.schedule, recomputable, kPeakToggles);
    meter->charge(
        orderWork(OrderPolicy::Given, point.eval.schedule.steps.size()));
    for (int id : around) {
      if (meter->exhausted())
        return false;
      if (tryMove(point, 0, position[id]))
        return true;
    }
    return false;
  }

  /// Drops of kept values held across the peak: each of the kMaxJointDrop
  /// largest alone, then joint moves that no single toggle finds (a block's
  /// activations that only help together): the k largest (k = 2..
  /// kMaxJointDrop), and each of the largest with the held values near it in
  /// the forward order. Keeps the first that is better.
  bool tryPeakDrops(Point &point) {
    std::vector<int> held = keptAtPeak(point);
    meter->charge(
        orderWork(OrderPolicy::Given, point.eval.schedule.steps.size()));
    std::vector<std::vector<int>> groups;
    for (size_t i = 0; i < std::min(held.size(), kMaxJointDrop); ++i)
      groups.push_back({held[i]});
    for (size_t k = 2; k <= std::min(held.size(), kMaxJointDrop); ++k)
      groups.emplace_back(held.begin(), held.begin() + k);
    for (size_t i = 0; i < std::min(held.size(), kMaxJointDrop); ++i) {
      std::vector<int> group;
      for (int id : held)
        if (std::abs(position[id] - position[held[i]]) <= kNearNodes)
          group.push_back(id);
      if (group.size() > 1)
        groups.push_back(std::move(group));
    }
    for (const std::vector<int> &group : groups) {
      if (meter->exhausted())
        return false;
      for (int id : group)
        point.keep[id] = 0;
      if (takeIfBetter(point))
        return true;
      for (int id : group)
        point.keep[id] = 1;
    }
    return false;
  }

  /// Evaluates `point.keep` and takes it when it is better than the point's
  /// evaluation (the caller undoes its change otherwise).
  bool takeIfBetter(Point &point) {
    CheckpointEval eval =
        evaluateCheckpoints(graph, point.keep, point.variant, &known);
    meter->charge(eval.work);
    if (!isBetter(options, limit, eval.peakBytes, eval.cost,
                  point.eval.peakBytes, point.eval.cost))
      return false;
    buildCheckpointSchedule(graph, point.keep, point.variant, eval);
    point.eval = std::move(eval);
    ++accepted;
    return true;
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
    if (takeIfBetter(point))
      return true;
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
  CheckpointEvals &known;
  uint64_t &rng;
  /// The part of the solve's work the current climb may spend.
  WorkMeter *meter = nullptr;
  /// Index of each recomputable node in `nodes`.
  std::vector<int> position;
  /// Whether each node is in `nodes`.
  std::vector<char> recomputable;
};
} // namespace

SolveResult remat::solveLocalSearch(const Graph &graph,
                                    const SolveOptions &options) {
  WorkMeter meter(options);
  const char *name = "local-search";
  ProgressReporter progress(options, name, meter.clock());
  std::vector<char> recomputable = recomputableNodes(graph);
  std::vector<int> nodes;
  for (int id = 0; id < graph.size(); ++id)
    if (recomputable[id])
      nodes.push_back(id);
  if (nodes.empty())
    return finishSolve(graph, options, name, checkpointAllSchedule(graph),
                       SolveStatus::Feasible, meter);
  const double limit = costLimit(graph, options);

  // Multi-start: the climb is greedy, so different starts reach different
  // local optima.
  std::vector<std::vector<char>> sets =
      startingSets(graph, nodes, options, meter);
  // The ranking may take half of what is left; the climbs the rest.
  WorkMeter ranking(meter, meter.left() / 2);
  std::shared_ptr<CheckpointEvals> known = checkpointEvalsFor(graph, options);
  std::vector<Point> ranked =
      rankStarts(graph, std::move(sets), options, limit, *known, ranking);
  meter.charge(ranking);
  uint64_t rng = 0x2545F4914F6CDD1Dull;
  Climb climb(graph, nodes, options, limit, *known, rng);
  bool exhausted = false;
  Point best = ranked[0];
  size_t climbs = 0;
  // The best kStarts climb first, each with an equal share of what is
  // left; while nothing meets the constraints, the other starts follow.
  // Then, while still nothing meets them, each start again with every
  // other order policy: the policy that orders a start best may leave no
  // improving move (on a small sharded CNN step the working-set order won
  // every start and no toggle beat it, where climbing with the memory-greedy
  // order reached the budget by reordering alone).
  const std::vector<OrderPolicy> policies = {OrderPolicy::Given,
                                             OrderPolicy::OnDemand,
                                             OrderPolicy::OnDemandLatestFirst,
                                             OrderPolicy::OnDemandLargestLast,
                                             OrderPolicy::MemoryGreedy,
                                             OrderPolicy::OnDemandWorkingSet};
  const size_t plain = ranked.size();
  for (size_t c = 0; c < plain * (1 + policies.size()) && !exhausted; ++c) {
    if (c >= kStarts && meetsConstraints(options, limit, best.eval))
      break;
    WorkMeter share(meter, c < kStarts ? meter.left() / int64_t(kStarts - c)
                                       : meter.left());
    ++climbs;
    Point point = ranked[c < plain ? c : (c - plain) / policies.size()];
    std::optional<OrderPolicy> policy;
    if (c >= plain)
      policy = policies[(c - plain) % policies.size()];
    bool converged = climb.run(point, share, progress, policy);
    meter.charge(share);
    exhausted = !converged && meter.exhausted();
    // The climb measured peaks as built; the answer's order is repaired
    // (finishSolve), so the climbs compete repaired.
    point.eval.peakBytes =
        repairWherePeakMatters(graph, options, point.eval.schedule, meter)
            .peakBytes;
    if (isBetter(options, limit, point.eval.peakBytes, point.eval.cost,
                 best.eval.peakBytes, best.eval.cost))
      best = std::move(point);
  }
  std::string summary = std::to_string(climbs) + " climbs, " +
                        std::to_string(climb.passes) + " passes, " +
                        std::to_string(climb.accepted) + " moves taken";
  // A stop by the time limit is said by the outputs (kStoppedByTimeLimit).
  if (exhausted && !meter.stoppedByTimeLimit())
    summary += ", stopped when the work was spent";
  buildCheckpointSchedule(graph, best.keep, best.variant, best.eval);
  return finishSolve(graph, options, name, std::move(best.eval.schedule),
                     SolveStatus::Feasible, meter, summary);
}
