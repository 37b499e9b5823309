//===- ArenaExact.cpp - offset assignment by branch and bound -------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Every plan can be pushed down until each buffer rests at offset 0 or on a
// buffer live with it; placing the buffers in the order of their offsets in
// such a plan, each at the lowest offset where it fits among those placed
// ("first fit"), puts every buffer at or below its offset there (by
// induction: the buffers placed before it that are live with it lie below
// it there, and first fit put them no higher). So some order of first-fit
// placements is optimal, and the search enumerates orders:
//
//   * a node places one more buffer at its first-fit offset; the first-fit
//     offsets of the others only grow as buffers are placed, so
//     max(arena so far, lower bound, first fit + size of every buffer left)
//     bounds every plan below the node, and a node whose bound is not below
//     the best plan is cut;
//   * two consecutive placements of buffers that are not live together
//     commute: only the one with the smaller index goes first; buffers of
//     the same size and live range are interchangeable: only the first left
//     is placed;
//   * children are tried lowest first-fit top first.
//
// The search stops at the lower bound (optimal) or at the node limit.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Arena/Arena.h"

#include <algorithm>
#include <numeric>
#include <tuple>

using namespace remat;

namespace {

/// The state of the depth-first search.
class ArenaSearch {
public:
  ArenaSearch(const ArenaProblem &problem, const ArenaExactOptions &options)
      : problem(problem), options(options), n(problem.size()),
        size(problem.size()), offset(problem.size(), -1),
        firstFit(problem.size(), 0), neighbours(problem.size()),
        interacts(problem.size() * problem.size(), 0),
        twin(problem.size(), -1) {
    for (int i = 0; i < n; ++i) {
      size[i] = problem.alignedBytes(i);
      // Empty buffers fit anywhere: at 0, outside the search.
      if (size[i] == 0)
        offset[i] = 0;
      else
        ++left;
    }
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        if (problem.conflict(i, j) && size[i] > 0 && size[j] > 0) {
          neighbours[i].push_back(j);
          neighbours[j].push_back(i);
          interacts[i * n + j] = interacts[j * n + i] = 1;
        }
    findTwins();
    lowerBound = problem.lowerBound();
  }

  /// Searches below the incumbent `best` (a valid plan); returns the best
  /// plan found and whether the search was exhaustive.
  ArenaPlan run(ArenaPlan best);

private:
  void findTwins();
  int64_t computeFirstFit(int i) const;
  int64_t bound() const;
  bool allowed(int candidate, int last) const;
  void place(int p, std::vector<std::pair<int, int64_t>> &undo);
  void unplace(int p, std::vector<std::pair<int, int64_t>> &undo);
  void search(int last, int64_t height);

  const ArenaProblem &problem;
  const ArenaExactOptions &options;
  int n;
  std::vector<int64_t> size;
  /// Offset of each placed buffer; -1 when not placed.
  std::vector<int64_t> offset;
  /// First-fit offset of each buffer left, among those placed.
  std::vector<int64_t> firstFit;
  std::vector<std::vector<int>> neighbours;
  /// interacts[i * n + j]: buffers i and j are live together (both
  /// non-empty), so the order of their placements matters.
  std::vector<char> interacts;
  /// Buffers not placed yet.
  int left = 0;
  /// The previous buffer of the same size and live range, or -1.
  std::vector<int> twin;
  int64_t lowerBound = 0;
  int64_t bestBytes = 0;
  std::vector<int64_t> bestOffsets;
  int64_t nodes = 0;
  bool stopped = false;
};

} // namespace

void ArenaSearch::findTwins() {
  std::vector<int> ids(n);
  std::iota(ids.begin(), ids.end(), 0);
  auto key = [&](int i) {
    return std::make_tuple(size[i], problem.buffers[i].begin,
                           problem.buffers[i].end, i);
  };
  std::sort(ids.begin(), ids.end(),
            [&](int a, int b) { return key(a) < key(b); });
  for (int k = 1; k < n; ++k) {
    int a = ids[k - 1], b = ids[k];
    if (size[a] == size[b] &&
        problem.buffers[a].begin == problem.buffers[b].begin &&
        problem.buffers[a].end == problem.buffers[b].end)
      twin[b] = a;
  }
}

int64_t ArenaSearch::computeFirstFit(int i) const {
  std::vector<std::pair<int64_t, int64_t>> below;
  for (int j : neighbours[i])
    if (offset[j] >= 0)
      below.push_back({offset[j], offset[j] + size[j]});
  std::sort(below.begin(), below.end());
  int64_t top = 0;
  for (const auto &[start, stop] : below) {
    if (start - top >= size[i])
      return top;
    top = std::max(top, stop);
  }
  return top;
}

int64_t ArenaSearch::bound() const {
  int64_t result = lowerBound;
  for (int i = 0; i < n; ++i)
    if (offset[i] < 0)
      result = std::max(result, firstFit[i] + size[i]);
  return result;
}

bool ArenaSearch::allowed(int candidate, int last) const {
  if (offset[candidate] >= 0)
    return false;
  if (twin[candidate] >= 0 && offset[twin[candidate]] < 0)
    return false;
  if (last >= 0 && candidate < last && !interacts[candidate * n + last])
    return false;
  return true;
}

void ArenaSearch::place(int p, std::vector<std::pair<int, int64_t>> &undo) {
  offset[p] = firstFit[p];
  --left;
  for (int u : neighbours[p]) {
    if (offset[u] >= 0 || firstFit[u] >= offset[p] + size[p] ||
        offset[p] >= firstFit[u] + size[u])
      continue;
    undo.push_back({u, firstFit[u]});
    firstFit[u] = computeFirstFit(u);
  }
}

void ArenaSearch::unplace(int p, std::vector<std::pair<int, int64_t>> &undo) {
  for (auto it = undo.rbegin(); it != undo.rend(); ++it)
    firstFit[it->first] = it->second;
  undo.clear();
  offset[p] = -1;
  ++left;
}

void ArenaSearch::search(int last, int64_t height) {
  if (left == 0) {
    bestBytes = height;
    bestOffsets = offset;
    return;
  }
  std::vector<int> children;
  for (int i = 0; i < n; ++i)
    if (allowed(i, last))
      children.push_back(i);
  std::stable_sort(children.begin(), children.end(), [&](int a, int b) {
    return firstFit[a] + size[a] < firstFit[b] + size[b];
  });
  std::vector<std::pair<int, int64_t>> undo;
  for (int child : children) {
    if (stopped || bestBytes <= lowerBound)
      return;
    if (++nodes > options.nodeLimit) {
      stopped = true;
      return;
    }
    int64_t childHeight = std::max(height, firstFit[child] + size[child]);
    if (childHeight >= bestBytes)
      continue;
    place(child, undo);
    if (std::max(childHeight, bound()) < bestBytes)
      search(child, childHeight);
    unplace(child, undo);
  }
}

ArenaPlan ArenaSearch::run(ArenaPlan best) {
  bestBytes = best.bytes;
  bestOffsets = best.offsets;
  if (bestBytes > lowerBound)
    search(-1, 0);
  ArenaPlan plan;
  plan.planner = bestBytes < best.bytes ? "exact" : best.planner;
  plan.offsets = bestOffsets;
  plan.nodes = std::min(nodes, options.nodeLimit);
  plan.optimal = !stopped;
  return plan;
}

ArenaPlan remat::planArenaExact(const ArenaProblem &problem,
                                const ArenaExactOptions &options,
                                const ArenaPlan *start) {
  if (std::string error = problem.check(); !error.empty()) {
    ArenaPlan plan;
    plan.planner = "exact";
    plan.error = error;
    return plan;
  }
  bool usable = start && start->valid() && verifyArena(problem, *start).empty();
  ArenaPlan incumbent =
      usable ? *start : planArenaGreedy(problem, ArenaOrder::BySize);
  if (!incumbent.valid() || incumbent.optimal ||
      problem.size() > options.maxBuffers)
    return incumbent;
  ArenaSearch search(problem, options);
  return finishArenaPlan(problem, search.run(std::move(incumbent)));
}
