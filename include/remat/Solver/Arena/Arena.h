//===- Arena.h - static memory plans: buffers at offsets --------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Offset assignment, in plain C++ (no MLIR): buffers with a size and a live
// range in, one offset per buffer out, such that no two buffers live at the
// same time overlap. The arena is then one allocation of the plan's size,
// and every buffer a view into it at its offset (docs/Arena.md).
//
// The problem is dynamic storage allocation (NP-hard). Its lower bound is the
// most bytes live at one time step (the sum-of-live peak that the simulator
// and the memory analysis report, sizes rounded up to the alignment): no
// plan is smaller, and a plan that reaches it is optimal.
//
// The planners, each answer checked by `verifyArena` before it is returned:
//   * planArenaGreedy: best fit (or first fit) into the free gaps of the
//     lifetime x address plane, buffers taken by size (largest first, as the
//     "greedy by size" planners of TFLite and XLA's heap simulator), by
//     size x lifetime, by lifetime length or by start; O(n^2).
//   * searchArenaOrder: local search (optionally annealing) over the order
//     the greedy placement takes buffers in; O(n^2) per iteration, a fixed
//     seed.
//   * planArenaExact: branch and bound over the order in which buffers are
//     placed, each at the lowest offset where it fits (some order yields an
//     optimal plan: place buffers by their offset in one); proves
//     optimality when it exhausts the tree within its node limit, else
//     returns the best plan found and the lower bound.
//   * planArena: the greedy orders, the order search from the best of them,
//     then the exact search while the plan is above the lower bound.
//
// Time steps are any integers in which live ranges are closed intervals:
// schedule steps (arenaOfSchedule) or the memory analysis's op indices.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_ARENA_ARENA_H
#define REMAT_SOLVER_ARENA_ARENA_H

#include "remat/Solver/Core/Problem.h"

#include <cstdint>
#include <string>
#include <vector>

namespace remat {

/// One buffer to place.
struct ArenaBuffer {
  /// Bytes it holds (>= 0).
  int64_t bytes = 0;
  /// It is live at every time step in [begin, end].
  int begin = 0;
  int end = 0;
};

/// The buffers of one function, and what every plan of them must respect.
struct ArenaProblem {
  std::vector<ArenaBuffer> buffers;
  /// Every offset is a multiple of it (a power of two); each buffer takes
  /// its size rounded up to it.
  int64_t alignment = 1;
  /// The largest arena a plan may have: the int64 byte count of the memory
  /// model (kMaxTotalBytes) or a smaller address space.
  int64_t maxBytes = kMaxTotalBytes;

  /// An empty string when well formed (alignment a power of two, sizes
  /// non-negative and at most `maxBytes` once aligned, begin <= end), else
  /// a message naming the first offending buffer.
  std::string check() const;
  /// The size of buffer `i` rounded up to the alignment.
  int64_t alignedBytes(int i) const;
  /// Whether buffers `i` and `j` are live at a common time step.
  bool conflict(int i, int j) const {
    return buffers[i].begin <= buffers[j].end &&
           buffers[j].begin <= buffers[i].end;
  }
  /// The most aligned bytes live at one time step (saturating at
  /// kMaxTotalBytes + 1 so that a sum too large is never a wrapped one).
  int64_t lowerBound() const;
  int size() const { return static_cast<int>(buffers.size()); }
};

/// A plan: one offset per buffer.
struct ArenaPlan {
  /// Offset of each buffer, in the problem's order.
  std::vector<int64_t> offsets;
  /// The arena: the largest offset + aligned size (a multiple of the
  /// alignment; 0 without buffers).
  int64_t bytes = 0;
  /// ArenaProblem::lowerBound.
  int64_t lowerBound = 0;
  /// The planner that produced it ("best-fit-by-size", "first-fit-by-area",
  /// ..., "order-search", "exact").
  std::string planner;
  /// Proven optimal: it reaches the lower bound, or the exact search
  /// exhausted its tree.
  bool optimal = false;
  /// Branch-and-bound nodes the exact search visited (0 for the greedy).
  int64_t nodes = 0;
  /// Empty when the plan is valid; else why there is none (an ill-formed
  /// problem, an arena over `maxBytes`).
  std::string error;

  bool valid() const { return error.empty(); }
};

/// Checks `plan` against `problem`: one offset per buffer, each a
/// non-negative multiple of the alignment, every buffer inside the arena
/// (`plan.bytes`, at most `maxBytes`), and no two buffers live together
/// overlapping. Returns an empty string, or the first violation naming the
/// buffers.
std::string verifyArena(const ArenaProblem &problem, const ArenaPlan &plan);

/// What every planner returns through: sets `plan.bytes`, `lowerBound` and
/// `optimal` (when the bytes reach the bound) from the offsets, and runs
/// verifyArena, setting `error` (an internal error) when it fails.
ArenaPlan finishArenaPlan(const ArenaProblem &problem, ArenaPlan plan);

/// The order in which the greedy planner places buffers (the larger key
/// first; ties go to the larger, then the earlier buffer).
enum class ArenaOrder {
  /// Largest first.
  BySize,
  /// Largest size x live steps first.
  ByArea,
  /// Longest-lived first.
  ByLength,
  /// Earliest start first.
  ByStart,
};

/// Where the greedy planner puts a buffer among those placed that are live
/// with it.
enum class ArenaPlacement {
  /// The smallest gap that holds it (TFLite's and XLA's choice).
  BestFit,
  /// The lowest gap that holds it.
  FirstFit,
};

/// The buffers in the order `order` places them; ties go to the larger,
/// then the earlier, then the longer-lived buffer, then the lower index.
std::vector<int> greedyOrder(const ArenaProblem &problem, ArenaOrder order);

/// Greedy: each buffer, in `order`, takes the gap `placement` picks between
/// the buffers already placed that are live with it, or the top. Fails
/// (error set) only when the problem is ill formed or the arena would
/// exceed `maxBytes`.
ArenaPlan planArenaGreedy(const ArenaProblem &problem, ArenaOrder order,
                          ArenaPlacement placement = ArenaPlacement::BestFit);

/// One order search.
struct ArenaSearchOptions {
  ArenaPlacement placement = ArenaPlacement::BestFit;
  int iterations = 0;
  /// Annealing: a move that makes the arena larger by d bytes is taken
  /// with probability exp(-d / (temperature x lower bound x the share of
  /// iterations left)); 0: never.
  double temperature = 0;
  uint64_t seed = 26;
};

/// Searches orders for the greedy placement, from `order` (a permutation of
/// the buffers): random moves (swap two buffers, move one), each order
/// placed again and kept when its arena is not larger (or larger, by
/// annealing). The seed is fixed, so the answer is reproducible. Returns
/// the best order's plan.
ArenaPlan searchArenaOrder(const ArenaProblem &problem, std::vector<int> order,
                           const ArenaSearchOptions &options,
                           const std::string &planner);

/// Effort of the exact search.
struct ArenaExactOptions {
  /// Branch-and-bound nodes before it stops with the best plan so far (not
  /// proven optimal); a work budget, so that plans are reproducible.
  int64_t nodeLimit = 10000;
  /// Problems with more buffers are not searched (the greedy plan is
  /// returned as is).
  int maxBuffers = 400;
};

/// Branch and bound (see the file comment), starting from `start` when it is
/// a valid plan of `problem` (e.g. the greedy one). The answer is never
/// larger than `start`.
ArenaPlan planArenaExact(const ArenaProblem &problem,
                         const ArenaExactOptions &options,
                         const ArenaPlan *start = nullptr);

struct ArenaOptions {
  /// Order-search iterations after the greedy orders, shared by four
  /// searches: at most `searchIterations`, and at most `searchWork / n^2`
  /// for n buffers (each placement costs about n^2 steps), so that large
  /// steps stay fast.
  int64_t searchIterations = 8000;
  int64_t searchWork = 200000000;
  /// Run the exact search when the plan is still above the lower bound.
  bool exact = true;
  ArenaExactOptions exactOptions;
  /// An arena the plan should not exceed (e.g. the one a rematerialization
  /// plan promised for these buffers); -1: none. When the searches above
  /// end over it, they go on, from the best greedy order with new seeds and
  /// twice the iterations each round, until a plan meets it or they have
  /// spent `targetWork` more (the same n^2 units as `searchWork`).
  int64_t targetBytes = -1;
  int64_t targetWork = 1600000000;
  /// With a target, the longer searches also go on (within the same
  /// `targetWork`) while the plan is more than this share above the lower
  /// bound, even when it meets the target: a lowering aims at the arena
  /// its plan promised, and at little fragmentation when the plan promised
  /// more (kArenaCloseShare). 0: stop at the target.
  double closeShare = 0;
};

/// The fragmentation a planned step's lowering searches to stay within: 2 %
/// of the most its buffers hold at once (docs/Arena.md, section 2).
inline constexpr double kArenaCloseShare = 0.02;

/// The best of the greedy plans (by size, area, length, start; best and
/// first fit), improved by four order searches from the best of them (each
/// placement, with and without annealing), then by the exact search when
/// asked and still above the lower bound. Stops at the lower bound. Every
/// returned plan passed verifyArena.
ArenaPlan planArena(const ArenaProblem &problem, const ArenaOptions &options);

/// The buffers of `schedule` on `graph` as the rematerialized program holds
/// them: the schedule's compute order with every value freed right after its
/// last read (scheduleFromComputeOrder, what --remat-rematerialize makes of
/// it), one buffer per storage the simulator allocates, live from the step
/// that computes it to the last step before its last reference is dropped.
/// A schedule with copies (Offload.h) keeps its steps, every value freed
/// right after its last read: an offloaded copy's buffer lives until its
/// wait step (placeOffloadWaits), or its copy without one, a prefetched one
/// from its copy (the copies simulated on an ideal link, as the lowered
/// program's buffers live); host copies are not
/// buffers. Resident bytes (Graph::residentBytes) are not buffers. Returns an
/// empty problem with `error` set when the schedule does not simulate.
ArenaProblem arenaOfSchedule(const Graph &graph, const Schedule &schedule,
                             int64_t alignment, std::string *error = nullptr);

} // namespace remat

#endif // REMAT_SOLVER_ARENA_ARENA_H
