//===- CheckmateModel.cpp - Checkmate's stage model of a schedule ---------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Checkmate/CheckmateModel.h"

#include "remat/Solver/Core/SolverSupport.h"

#include <algorithm>
#include <set>

using namespace remat;
using namespace remat::checkmate;

//===----------------------------------------------------------------------===//
// Reduction
//===----------------------------------------------------------------------===//

namespace {
/// What kind of group a reduced node is while it is being built.
enum class GroupKind { Single, View, Chain };
} // namespace

/// Completes a reduced graph whose groups are built: sorted unique deps,
/// users, the first backward group, delayable sinks, and the order (the
/// delayable sinks last) with positions.
static void linkGroups(const Graph &graph, ReducedGraph &r) {
  const int n = r.size();
  r.users.assign(n, {});
  r.delayable.assign(n, 0);
  r.firstBackward = n;
  for (int g = 0; g < n; ++g) {
    std::sort(r.deps[g].begin(), r.deps[g].end());
    r.deps[g].erase(std::unique(r.deps[g].begin(), r.deps[g].end()),
                    r.deps[g].end());
    for (int d : r.deps[g])
      r.users[d].push_back(g);
    if (r.firstBackward == n &&
        graph.nodes[r.members[g].front()].kind == NodeKind::Backward)
      r.firstBackward = g;
  }
  for (int g = 0; g < n; ++g)
    r.delayable[g] =
        r.users[g].empty() && r.isOutput[g] && r.keep[g] == KeepPolicy::Default;
  for (int pass = 0; pass < 2; ++pass)
    for (int g = 0; g < n; ++g)
      if (r.delayable[g] == pass)
        r.order.push_back(g);
  r.position.assign(n, 0);
  for (int p = 0; p < n; ++p)
    r.position[r.order[p]] = p;
}

namespace {
/// Builds the reduced graph of `reduceGraph` node by node.
class Reducer {
public:
  Reducer(const Graph &graph, bool mergeChains)
      : graph(graph), mergeChains(mergeChains), needed(neededNodes(graph)),
        users(graph.users()), isOutput(graph.outputMask()) {
    r.groupOf.assign(graph.size(), -1);
    r.residentBytes = graph.residentBytes();
  }

  ReducedGraph run() {
    for (int id = 0; id < graph.size(); ++id)
      if (!graph.nodes[id].isResident() && needed[id])
        add(id);
    linkGroups(graph, r);
    return std::move(r);
  }

private:
  void add(int id) {
    const Node &node = graph.nodes[id];
    // The reduced groups this node reads.
    std::set<int> depGroups;
    std::vector<int> computedDeps;
    for (int dep : node.deps) {
      if (graph.nodes[dep].isResident())
        continue;
      computedDeps.push_back(dep);
      depGroups.insert(r.groupOf[dep]);
    }
    if (node.isView()) {
      if (addView(id, depGroups))
        return;
    } else if (mergeChains && computedDeps.size() == 1 &&
               node.keep == KeepPolicy::Default) {
      addToChain(id, computedDeps.front());
    } else {
      newGroup(id, node.bytes, GroupKind::Single);
    }
    int g = r.groupOf[id];
    for (int dg : depGroups)
      if (dg != g)
        r.deps[g].push_back(dg);
    if (isOutput[id])
      r.isOutput[g] = 1;
  }

  /// Adds view `id`; true when that is all (it joined its base's group, or
  /// it views resident storage and owns nothing).
  bool addView(int id, const std::set<int> &depGroups) {
    const Node &node = graph.nodes[id];
    int storage = graph.storageOf(id);
    if (graph.nodes[storage].isResident()) {
      // A view of always-resident storage owns nothing.
      newGroup(id, 0, GroupKind::Single);
      return true;
    }
    int baseGroup = r.groupOf[node.aliasOf];
    bool mergeable =
        baseGroup >= 0 && node.cost == 0 && node.keep == KeepPolicy::Default &&
        kinds[baseGroup] != GroupKind::Chain &&
        (depGroups.empty() ||
         (depGroups.size() == 1 && *depGroups.begin() == baseGroup));
    if (mergeable) {
      r.groupOf[id] = baseGroup;
      r.members[baseGroup].push_back(id);
      kinds[baseGroup] = GroupKind::View;
      if (isOutput[id])
        r.isOutput[baseGroup] = 1;
      return true;
    }
    // Charge the view its base's storage: never under-counts memory.
    newGroup(id, graph.nodes[storage].bytes, GroupKind::Single);
    r.exact = false;
    return false;
  }

  /// Adds `id`, whose one computed dependency is `prev`, to `prev`'s chain
  /// group when it may join it, else to a group of its own.
  void addToChain(int id, int prev) {
    const Node &node = graph.nodes[id];
    int g = r.groupOf[prev];
    const Node &prevNode = graph.nodes[prev];
    bool mergeable = g >= 0 && kinds[g] != GroupKind::View &&
                     r.members[g].back() == prev && users[prev].size() == 1 &&
                     !isOutput[prev] && prevNode.kind == node.kind &&
                     prevNode.keep == KeepPolicy::Default;
    if (!mergeable) {
      newGroup(id, node.bytes, GroupKind::Single);
      return;
    }
    r.groupOf[id] = g;
    r.members[g].push_back(id);
    r.internalMembers[g].push_back(prev);
    kinds[g] = GroupKind::Chain;
    chainPeak[g] = std::max(chainPeak[g], prevNode.bytes + node.bytes);
    r.bytes[g] = node.bytes;
    r.extraBytes[g] = chainPeak[g] - node.bytes;
    r.cost[g] += node.cost;
    r.exact = false;
  }

  void newGroup(int id, int64_t bytes, GroupKind kind) {
    const Node &node = graph.nodes[id];
    r.groupOf[id] = r.size();
    r.bytes.push_back(bytes);
    r.extraBytes.push_back(0);
    r.cost.push_back(node.cost);
    r.deps.emplace_back();
    r.isOutput.push_back(0);
    r.members.push_back({id});
    r.internalMembers.emplace_back();
    r.keep.push_back(node.keep);
    r.isForward.push_back(node.kind == NodeKind::Forward);
    kinds.push_back(kind);
    chainPeak.push_back(bytes);
  }

  const Graph &graph;
  const bool mergeChains;
  const std::vector<char> needed;
  const std::vector<std::vector<int>> users;
  std::vector<char> isOutput;
  ReducedGraph r;
  std::vector<GroupKind> kinds;
  /// Largest bytes live inside a chain group while it is computed.
  std::vector<int64_t> chainPeak;
};
} // namespace

ReducedGraph checkmate::reduceGraph(const Graph &graph, bool mergeChains) {
  return Reducer(graph, mergeChains).run();
}

//===----------------------------------------------------------------------===//
// Stage plans
//===----------------------------------------------------------------------===//

StagePlan::StagePlan(int n) : r(n), s(n + 1) {
  for (int t = 0; t < n; ++t) {
    r[t].assign(t + 1, 0);
    s[t].assign(t, 0);
  }
  s[n].assign(n, 0);
}

/// Whether node i is resident at the start of stage t (S[t][i], i < t).
static bool retained(const StagePlan &plan, int t, int i) {
  return i < t && plan.s[t][i];
}

void checkmate::rebuildComputations(const ReducedGraph &graph,
                                    StagePlan &plan) {
  const int n = graph.size();
  for (int i = 0; i < n; ++i)
    plan.s[n][i] = graph.isOutput[i];
  for (int t = 0; t < n; ++t) {
    std::vector<char> &r = plan.r[t];
    std::fill(r.begin(), r.end(), 0);
    r[t] = !graph.delayable[t] || plan.s[t + 1][t];
    for (int i = 0; i < t; ++i)
      if (plan.s[t + 1][i] && !plan.s[t][i])
        r[i] = 1;
    for (int p = graph.size() - 1; p >= 0; --p) {
      int k = graph.order[p];
      if (k > t || !r[k])
        continue;
      for (int u : graph.deps[k])
        if (!r[u] && !retained(plan, t, u))
          r[u] = 1;
    }
  }
}

bool checkmate::pruneRetentions(const ReducedGraph &graph, StagePlan &plan) {
  const int n = graph.size();
  bool changed = false;
  for (int t = n - 1; t >= 1; --t) {
    for (int i = 0; i < t; ++i) {
      if (!plan.s[t][i] || plan.s[t + 1][i])
        continue;
      bool used = false;
      for (int j : graph.users[i])
        if (j <= t && plan.r[t][j]) {
          used = true;
          break;
        }
      if (!used) {
        plan.s[t][i] = 0;
        changed = true;
      }
    }
  }
  return changed;
}

bool checkmate::isConsistent(const ReducedGraph &graph, const StagePlan &plan) {
  const int n = graph.size();
  if (plan.size() != n)
    return false;
  for (int t = 0; t < n; ++t) {
    if (!plan.r[t][t] && !graph.delayable[t])
      return false;
    for (int k = 0; k <= t; ++k) {
      if (!plan.r[t][k])
        continue;
      for (int u : graph.deps[k])
        if (!plan.r[t][u] && !retained(plan, t, u))
          return false;
    }
    for (int i = 0; i <= t; ++i)
      if (plan.s[t + 1][i] && !plan.r[t][i] && !retained(plan, t, i))
        return false;
  }
  for (int i = 0; i < n; ++i)
    if (graph.isOutput[i] && !plan.s[n][i])
      return false;
  return true;
}

Schedule checkmate::expandPlan(const ReducedGraph &graph,
                               const StagePlan &plan) {
  const int n = graph.size();
  Schedule schedule;
  std::vector<char> live(n, 0);
  auto compute = [&](int g) {
    const std::vector<int> &members = graph.members[g];
    const std::vector<int> &internal = graph.internalMembers[g];
    for (size_t m = 0; m < members.size(); ++m) {
      schedule.steps.push_back(Step::compute(members[m]));
      if (m > 0 && std::find(internal.begin(), internal.end(),
                             members[m - 1]) != internal.end())
        schedule.steps.push_back(Step::free(members[m - 1]));
    }
    live[g] = 1;
  };
  auto release = [&](int g) {
    const std::vector<int> &internal = graph.internalMembers[g];
    const std::vector<int> &members = graph.members[g];
    for (auto it = members.rbegin(); it != members.rend(); ++it)
      if (std::find(internal.begin(), internal.end(), *it) == internal.end())
        schedule.steps.push_back(Step::free(*it));
    live[g] = 0;
  };

  for (int t = 0; t < n; ++t) {
    for (int i = 0; i < t; ++i)
      if (live[i] && !plan.s[t][i])
        release(i);
    const std::vector<char> &r = plan.r[t];
    const std::vector<char> &next = plan.s[t + 1];
    // Whether value i is still needed in stage t after step k.
    auto neededAfter = [&](int i, int k) {
      if (next[i])
        return true;
      for (int j : graph.users[i])
        if (j <= t && graph.after(j, k) && r[j] && !live[j])
          return true;
      return false;
    };
    for (int k : graph.order) {
      if (k > t || !r[k] || live[k])
        continue;
      compute(k);
      for (int u : graph.deps[k])
        if (live[u] && !neededAfter(u, k))
          release(u);
      if (!neededAfter(k, k))
        release(k);
    }
  }
  for (int i = 0; i < n; ++i)
    if (live[i] && !plan.s[n][i])
      release(i);
  return schedule;
}

bool checkmate::planFromSchedule(const Graph &graph,
                                 const ReducedGraph &reduced,
                                 const Schedule &schedule, StagePlan &plan) {
  const int n = reduced.size();
  plan = StagePlan(n);
  // A group is live while its representative member is: the last member of
  // a chain, the first (the base) otherwise.
  auto representative = [&](int g) {
    return reduced.internalMembers[g].empty() ? reduced.members[g].front()
                                              : reduced.members[g].back();
  };
  std::vector<char> live(n, 0);
  // What is live when a stage starts: right after the previous stage's
  // first computation and the frees that follow it, i.e. at the first
  // compute step after it.
  std::vector<char> boundary(n, 0);
  bool boundaryPending = true;
  int stages = 0;
  for (const Step &step : schedule.steps) {
    if (step.node < 0 || step.node >= graph.size())
      return false;
    int g = reduced.groupOf[step.node];
    if (step.kind == Step::Kind::Compute && boundaryPending) {
      boundary = live;
      boundaryPending = false;
    }
    if (g < 0 || representative(g) != step.node)
      continue;
    if (step.kind == Step::Kind::Free) {
      live[g] = 0;
      continue;
    }
    // Open the stages up to g; only delayable sinks may be skipped over
    // (first computations otherwise follow the reduced order).
    if (g >= stages) {
      for (; stages <= g; ++stages) {
        if (stages < g && !reduced.delayable[stages])
          return false;
        for (int i = 0; i < stages; ++i)
          plan.s[stages][i] = boundary[i];
      }
      boundaryPending = true;
    }
    live[g] = 1;
  }
  if (boundaryPending)
    boundary = live;
  for (; stages < n; ++stages) {
    if (!reduced.delayable[stages])
      return false;
    for (int i = 0; i < stages; ++i)
      plan.s[stages][i] = boundary[i];
  }
  for (int i = 0; i < n; ++i)
    plan.s[n][i] = live[i];
  rebuildComputations(reduced, plan);
  for (int iter = 0; iter < 4 && pruneRetentions(reduced, plan); ++iter)
    rebuildComputations(reduced, plan);
  return isConsistent(reduced, plan);
}

StagePlan checkmate::checkpointAllPlan(const ReducedGraph &graph) {
  const int n = graph.size();
  StagePlan plan(n);
  std::vector<int> lastUse(n, -1);
  for (int i = 0; i < n; ++i) {
    lastUse[i] = graph.isOutput[i] ? n : i;
    for (int j : graph.users[i])
      lastUse[i] = std::max(lastUse[i], j);
  }
  for (int t = 0; t <= n; ++t)
    for (int i = 0; i < t && i < n; ++i)
      plan.s[t][i] = lastUse[i] >= t;
  rebuildComputations(graph, plan);
  return plan;
}

int64_t checkmate::modelPeak(const ReducedGraph &graph, const StagePlan &plan) {
  const int n = graph.size();
  int64_t peak = 0;
  for (int t = 0; t < n; ++t) {
    int64_t mem = 0;
    for (int i = 0; i < t; ++i)
      if (plan.s[t][i])
        mem += graph.bytes[i];
    const std::vector<char> &r = plan.r[t];
    auto freed = [&](int i, int k) {
      if (plan.s[t + 1][i])
        return false;
      for (int j : graph.users[i])
        if (j <= t && graph.after(j, k) && r[j])
          return false;
      return true;
    };
    for (int k : graph.order) {
      if (k > t || !r[k])
        continue;
      mem += graph.bytes[k];
      peak = std::max(peak, mem + graph.extraBytes[k]);
      for (int u : graph.deps[k])
        if (freed(u, k))
          mem -= graph.bytes[u];
      if (freed(k, k))
        mem -= graph.bytes[k];
    }
  }
  return peak + graph.residentBytes;
}

double checkmate::planCost(const ReducedGraph &graph, const StagePlan &plan) {
  double cost = 0;
  for (int t = 0; t < plan.size(); ++t)
    for (int k = 0; k <= t; ++k)
      if (plan.r[t][k])
        cost += graph.cost[k];
  return cost;
}

bool checkmate::improvePlan(const ReducedGraph &graph, StagePlan &plan,
                            int64_t budget, WorkMeter &meter) {
  const int n = graph.size();
  // A trial copies, rebuilds, costs and measures an n-by-n plan: about a
  // step's simulation per four of its entries.
  const int64_t trialWork = int64_t(n) * n / 4 + 1;
  double cost = planCost(graph, plan);
  bool improved = false;
  for (bool again = true; again && !meter.exhausted();) {
    again = false;
    for (int t = 1; t < n && !meter.exhausted(); ++t) {
      for (int i = 0; i < t; ++i) {
        if (!plan.r[t][i] || graph.cost[i] <= 0)
          continue;
        // The last stage before t where i is computed or resident.
        int last = t - 1;
        while (last >= i && !plan.r[last][i] && !retained(plan, last, i))
          --last;
        if (last < i)
          continue;
        StagePlan trial = plan;
        meter.charge(trialWork);
        for (int u = last + 1; u <= t; ++u)
          trial.s[u][i] = 1;
        rebuildComputations(graph, trial);
        for (int iter = 0; iter < 4 && pruneRetentions(graph, trial); ++iter)
          rebuildComputations(graph, trial);
        double trialCost = planCost(graph, trial);
        if (trialCost >= cost - 1e-12 * std::max(1.0, cost) ||
            !isConsistent(graph, trial) || modelPeak(graph, trial) > budget)
          continue;
        plan = std::move(trial);
        cost = trialCost;
        improved = again = true;
      }
    }
  }
  return improved;
}
