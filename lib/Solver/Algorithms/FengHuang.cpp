//===- FengHuang.cpp - Feng & Huang optimal gradient checkpoints ----------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Feng & Huang, "Optimal Gradient Checkpoint Search for Arbitrary Computation
// Graphs" (CVPR 2021); see the algorithm notes. Their model: a
// checkpoint set costs sum(l(checkpoints)) + m, where m is the largest sum of
// l over the vertices strictly inside one segment between checkpoints (the
// memory of re-forwarding that segment during the backward); each segment is
// re-forwarded once, so the overhead is at most one forward pass.
//
// Linear graphs: for each candidate m, the accessibility graph has an edge
// i -> j when seg(i, j) <= m; a shortest path from the source to the sink
// (weights l(v_j)) gives the checkpoints. seg(i, j) grows as i decreases, so
// the admissible predecessors of j form a window and a monotone deque gives
// each shortest path in O(n).
//
// Arbitrary graphs: the division tree. A node of the tree is a subgraph
// with a source s and a sink t; its splitting vertices (every s-t path
// passes through them: no edge jumps over them in topological order) divide
// it into a chain of segments (linear division); the interior of each
// segment splits into weakly connected components, each a child subgraph
// between the segment's ends (branch division). A subgraph that neither
// division splits goes through the complicate division (independent
// segments between high-degree vertices, every other vertex a checkpoint);
// what that cannot split either is an indivisible leaf. For each m, a linear
// node is solved by the chain algorithm over its splitting vertices, where a
// segment costing more than m must have both ends checkpointed and its
// children solved recursively; a complicate node keeps its division vertices
// and solves its children costing more than m recursively; a leaf needs its
// interior to cost at most m.
//
// The checkpoint sets of the few best m (by the model) are then turned into
// schedules by the shared builder and simulated; the best verified one is
// returned.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/SolverSupport.h"
#include "remat/Solver/Algorithms/Solvers.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <optional>

using namespace remat;

static constexpr int64_t kInf = std::numeric_limits<int64_t>::max() / 4;
/// At most this many candidate m are evaluated (quantiles beyond it).
static constexpr size_t kMaxCandidates = 4096;
/// The complicate division is tried on subgraphs of at most this many
/// vertices.
static constexpr int kMaxComplicate = 1024;
/// The sets of this many best m (by the model) are simulated.
static constexpr size_t kVerified = 8;
/// The part of the work the division tree may take to build; the candidate
/// bounds and the simulation of their sets have the rest.
static constexpr double kTreeShare = 0.5;
/// Work units (`SolveAllowance`) per vertex of a subgraph the tree divides,
/// per vertex pair of a complicate division, and per tree node and
/// splitting vertex a candidate bound's solve visits; measured against the
/// cost of simulating a schedule step.
static constexpr int64_t kDivideWork = 8;
static constexpr int64_t kComplicateWork = 1;
static constexpr int64_t kBoundWork = 4;

/// Sorted distinct values, thinned to at most kMaxCandidates quantiles.
static std::vector<int64_t> thin(std::vector<int64_t> values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  if (values.size() <= kMaxCandidates)
    return values;
  std::vector<int64_t> result;
  for (size_t i = 0; i < kMaxCandidates; ++i)
    result.push_back(values[i * (values.size() - 1) / (kMaxCandidates - 1)]);
  result.erase(std::unique(result.begin(), result.end()), result.end());
  return result;
}

namespace {
/// A set found for one m, with the model's memory.
struct ModelSet {
  int64_t model;
  int64_t m;
  std::vector<int> checkpoints;
};
} // namespace

/// Keeps the kVerified sets with the smallest model memory and returns the
/// verified best.
static SolveResult verifyBest(const Graph &graph, const SolveOptions &options,
                              const char *name, std::vector<ModelSet> sets,
                              WorkMeter &meter) {
  std::stable_sort(
      sets.begin(), sets.end(),
      [](const ModelSet &a, const ModelSet &b) { return a.model < b.model; });
  std::vector<std::vector<char>> keeps;
  for (const ModelSet &set : sets) {
    if (keeps.size() == kVerified)
      break;
    std::vector<char> keep(graph.size(), 0);
    for (int id : set.checkpoints)
      keep[id] = 1;
    if (std::find(keeps.begin(), keeps.end(), keep) == keeps.end())
      keeps.push_back(std::move(keep));
  }
  return solveFromCheckpointSets(graph, options, name, keeps, meter);
}

//===----------------------------------------------------------------------===//
// Linear graphs
//===----------------------------------------------------------------------===//

/// Vertices 0..k (0 = source with weight 0, k = sink); returns the interior
/// checkpoints of the shortest path for max segment m, or false.
static bool chainShortestPath(const std::vector<int64_t> &weight, int64_t m,
                              int64_t &total, std::vector<int> &path) {
  const int k = static_cast<int>(weight.size()) - 1;
  std::vector<int64_t> prefix(k + 2, 0); // prefix[i] = sum weight[0..i-1]
  for (int i = 0; i <= k; ++i)
    prefix[i + 1] = prefix[i] + weight[i];
  // seg(i, j) = prefix[j] - prefix[i + 1].
  std::vector<int64_t> dist(k + 1, kInf);
  std::vector<int> from(k + 1, -1);
  dist[0] = 0;
  std::deque<int> window; // increasing i, increasing dist
  int lo = 0;
  window.push_back(0);
  for (int j = 1; j <= k; ++j) {
    while (lo < j - 1 && prefix[j] - prefix[lo + 1] > m)
      ++lo;
    while (!window.empty() && window.front() < lo)
      window.pop_front();
    if (!window.empty() && dist[window.front()] < kInf) {
      dist[j] = dist[window.front()] + weight[j];
      from[j] = window.front();
    }
    while (!window.empty() && dist[window.back()] >= dist[j])
      window.pop_back();
    window.push_back(j);
  }
  if (dist[k] >= kInf)
    return false;
  total = dist[k];
  path.clear();
  for (int j = from[k]; j > 0; j = from[j])
    path.push_back(j);
  return true;
}

/// Chains with more segments than this get grid candidates (O(k) memory)
/// instead of every segment sum (O(k^2): 625 MB at k = 12,500).
static constexpr int64_t kMaxSegments = int64_t(1) << 20;

/// Every segment sum seg(i, j) of a chain, plus 0, thinned. On long chains,
/// kMaxCandidates values evenly spread over [0, total bytes]: the path found
/// for a grid value m has no segment over m, so its model memory is at most
/// one grid step above the best segment sum's.
static std::vector<int64_t> chainCandidates(const std::vector<int64_t> &w) {
  std::vector<int64_t> candidates = {0};
  const int k = static_cast<int>(w.size()) - 1;
  if (static_cast<int64_t>(k) * (k + 1) / 2 > kMaxSegments) {
    __int128 total = 0;
    for (int64_t bytes : w)
      total += bytes;
    for (size_t i = 1; i < kMaxCandidates; ++i)
      candidates.push_back(static_cast<int64_t>(
          total * static_cast<__int128>(i) / (kMaxCandidates - 1)));
    return thin(std::move(candidates));
  }
  for (int i = 0; i <= k; ++i) {
    int64_t seg = 0;
    for (int j = i + 2; j <= k; ++j) {
      seg += w[j - 1];
      candidates.push_back(seg);
    }
  }
  return thin(std::move(candidates));
}

int64_t remat::fengHuangChain(const std::vector<int64_t> &weights,
                              std::vector<int> &checkpoints) {
  int64_t best = kInf;
  std::vector<int> path;
  for (int64_t m : chainCandidates(weights)) {
    if (m >= best)
      break; // the model memory is at least m
    int64_t total;
    if (chainShortestPath(weights, m, total, path) && total + m < best) {
      best = total + m;
      checkpoints.assign(path.rbegin(), path.rend());
    }
  }
  return best >= kInf ? -1 : best;
}

SolveResult remat::solveFengHuangLinear(const Graph &graph,
                                        const SolveOptions &options) {
  WorkMeter meter(options);
  const char *name = "feng-huang-linear";
  std::vector<int> chain;
  if (!isForwardChain(graph, &chain))
    return failSolve(name, SolveStatus::Unsupported,
                     "the forward graph is not a chain", meter);
  // Vertex 0 is the (resident) source; 1..k the chain.
  std::vector<int64_t> weight(chain.size() + 1, 0);
  for (size_t i = 0; i < chain.size(); ++i)
    weight[i + 1] = ownedBytes(graph, chain[i]);
  std::vector<int64_t> candidates = chainCandidates(weight);
  std::vector<ModelSet> sets;
  int64_t best = kInf;
  std::vector<int> path;
  for (int64_t m : candidates) {
    if (m >= best)
      break; // the model memory is at least m
    int64_t total;
    if (!chainShortestPath(weight, m, total, path))
      continue;
    std::vector<int> ids;
    for (int p : path)
      ids.push_back(chain[p - 1]);
    sets.push_back({total + m, m, ids});
    best = std::min(best, total + m);
  }
  return verifyBest(graph, options, name, std::move(sets), meter);
}

//===----------------------------------------------------------------------===//
// Arbitrary graphs
//===----------------------------------------------------------------------===//

namespace {
/// A subgraph of the complicate division in local indices: 0 = source,
/// 1..k = the interior (topological order), k + 1 = sink; the interior's
/// vertices without a predecessor (successor) inside hang off the source
/// (sink). With reachability as bitsets.
struct LocalDag {
  std::vector<std::vector<int>> succ, pred, adj;
  /// Descendants and ancestors of each vertex, one bit per vertex.
  std::vector<std::vector<uint64_t>> desc, anc;

  LocalDag(const Graph &graph, const std::vector<std::vector<int>> &users,
           const std::vector<int> &interior) {
    const int k = interior.size();
    const int total = k + 2;
    succ.resize(total);
    pred.resize(total);
    adj.resize(total);
    std::map<int, int> local;
    for (int i = 0; i < k; ++i)
      local[interior[i]] = i + 1;
    for (int i = 0; i < k; ++i) {
      int id = interior[i];
      bool hasIn = false, hasOut = false;
      for (int dep : graph.nodes[id].deps) {
        auto it = local.find(dep);
        if (it != local.end()) {
          addEdge(it->second, i + 1);
          hasIn = true;
        }
      }
      for (int u : users[id])
        if (local.count(u))
          hasOut = true;
      if (!hasIn)
        addEdge(0, i + 1);
      if (!hasOut)
        addEdge(i + 1, k + 1);
    }
    findReachability();
  }

  int size() const { return succ.size(); }
  static bool has(const std::vector<uint64_t> &bits, int v) {
    return bits[v / 64] >> (v % 64) & 1;
  }

private:
  void addEdge(int u, int v) {
    succ[u].push_back(v);
    pred[v].push_back(u);
    adj[u].push_back(v);
    adj[v].push_back(u);
  }

  /// In topological (local index) order.
  void findReachability() {
    const int total = size();
    const int words = (total + 63) / 64;
    desc.assign(total, std::vector<uint64_t>(words, 0));
    anc.assign(total, std::vector<uint64_t>(words, 0));
    for (int v = total - 1; v >= 0; --v)
      for (int w : succ[v]) {
        desc[v][w / 64] |= uint64_t(1) << (w % 64);
        for (int x = 0; x < words; ++x)
          desc[v][x] |= desc[w][x];
      }
    for (int v = 0; v < total; ++v)
      for (int u : pred[v]) {
        anc[v][u / 64] |= uint64_t(1) << (u % 64);
        for (int x = 0; x < words; ++x)
          anc[v][x] |= anc[u][x];
      }
  }
};

/// An independent segment of a complicate division: its ends and the
/// vertices between them (local indices).
struct Segment {
  int a, b;
  std::vector<int> inner;
};
} // namespace

/// Marks in `marked` what `edges` lead to from the vertices on `stack`
/// through vertices `allowed`; returns how many it marked.
static int flood(const std::vector<std::vector<int>> &edges,
                 const std::vector<char> &allowed, std::vector<char> &marked,
                 std::vector<int> stack) {
  int count = 0;
  while (!stack.empty()) {
    int v = stack.back();
    stack.pop_back();
    for (int w : edges[v])
      if (allowed[w] && !marked[w]) {
        marked[w] = 1;
        ++count;
        stack.push_back(w);
      }
  }
  return count;
}

/// The largest independent segment from `a` to `b`: descendants(a) ∩
/// ancestors(b), pruned of the vertices that touch the outside and
/// everything connected to them inside; none when nothing is left or `a`
/// does not reach all of it.
static std::optional<Segment> independentSegment(const LocalDag &dag, int a,
                                                 int b) {
  const int total = dag.size();
  std::vector<int> inner;
  for (int v = a + 1; v < b; ++v)
    if (LocalDag::has(dag.desc[a], v) && LocalDag::has(dag.anc[b], v))
      inner.push_back(v);
  if (inner.empty())
    return std::nullopt;
  std::vector<char> in(total, 0), bad(total, 0);
  for (int v : inner)
    in[v] = 1;
  std::vector<int> touching;
  for (int v : inner)
    for (int w : dag.adj[v])
      if (!in[w] && w != a && w != b && !bad[v]) {
        bad[v] = 1;
        touching.push_back(v);
      }
  flood(dag.adj, in, bad, std::move(touching));
  std::vector<int> kept;
  for (int v : inner)
    if (!bad[v])
      kept.push_back(v);
  if (kept.empty())
    return std::nullopt;
  // Connected with its ends: a reaches every kept vertex.
  std::fill(in.begin(), in.end(), 0);
  for (int v : kept)
    in[v] = 1;
  in[b] = 1;
  std::vector<char> seen(total, 0);
  seen[a] = 1;
  int reached = flood(dag.succ, in, seen, {a}) - seen[b];
  if (reached != static_cast<int>(kept.size()) || !seen[b])
    return std::nullopt;
  return Segment{a, b, std::move(kept)};
}

/// Greedy edge-disjoint choice among `segments` (largest first). Inner
/// vertices of a taken segment belong to it alone (its edges touch nothing
/// else), so two taken segments must have disjoint inner sets and not use
/// each other's inner vertices as ends. Marks the inner vertices taken in
/// `used`.
static std::vector<const Segment *>
takeDisjoint(const std::vector<Segment> &segments, std::vector<char> &used) {
  std::vector<char> end(used.size(), 0);
  std::vector<const Segment *> taken;
  for (const Segment &seg : segments) {
    bool ok = !used[seg.a] && !used[seg.b];
    for (int v : seg.inner)
      ok &= !used[v] && !end[v];
    if (!ok)
      continue;
    for (int v : seg.inner)
      used[v] = 1;
    end[seg.a] = end[seg.b] = 1;
    taken.push_back(&seg);
  }
  return taken;
}

namespace {
/// One node of the division tree: a subgraph between `source` and `sink`
/// (graph ids, or -1 for the virtual source/sink of the whole graph).
struct Division {
  /// Splitting vertices in order, source first and sink last.
  std::vector<int> ends;
  /// Per segment (between ends[k] and ends[k+1]): interior bytes and the
  /// children (branch components) as indices into the tree.
  std::vector<int64_t> segBytes;
  std::vector<std::vector<int>> children;
  bool leaf = false;
  /// Bytes of all interior vertices.
  int64_t total = 0;
  /// Complicate division: these vertices are all checkpoints, and each
  /// child (an independent segment between two of them) with more than m
  /// interior bytes is solved recursively.
  bool complicate = false;
  std::vector<int> divisionVertices;
  std::vector<int> segmentChildren;
};

class DivisionTree {
public:
  /// Its work is charged to `meter`; once that is exhausted, the subgraphs
  /// not yet divided (but the whole graph) become leaves: the tree of a
  /// 20,005-op step nests 2,312 deep and takes a second to build whole.
  DivisionTree(const Graph &graph, WorkMeter &meter)
      : graph(graph), meter(meter) {
    std::vector<int> fwd = forwardOrder(graph);
    inFwd.assign(graph.size(), 0);
    for (int id : fwd)
      inFwd[id] = 1;
    users = graph.users();
    mark.assign(graph.size(), 0);
    indexOf.assign(graph.size(), -1);
    root = build(fwd, -1, -1);
  }

  const Graph &graph;
  std::vector<Division> nodes;
  int root = -1;

  int64_t bytesOf(int id) const { return id < 0 ? 0 : ownedBytes(graph, id); }

  /// All interior-segment byte totals, the candidate m values.
  void candidates(std::vector<int64_t> &out) const {
    for (const Division &d : nodes) {
      out.push_back(d.total);
      for (int64_t b : d.segBytes)
        out.push_back(b);
      // Pairwise chain segments over the splitting vertices.
      for (size_t i = 0; i < d.segBytes.size(); ++i) {
        int64_t seg = d.segBytes[i];
        for (size_t j = i + 1; j < d.segBytes.size() && out.size() < 1000000;
             ++j) {
          seg += bytesOf(d.ends[j]) + d.segBytes[j];
          out.push_back(seg);
        }
      }
    }
  }

  /// Checkpoint bytes of the best set for m in subtree `index`, appending
  /// the checkpoints to `out`; kInf if m is too small.
  int64_t solve(int index, int64_t m, std::vector<int> &out) const {
    const Division &d = nodes[index];
    const int q = static_cast<int>(d.ends.size()) - 1;
    if (d.leaf)
      return d.segBytes[0] <= m ? 0 : kInf;
    if (d.complicate) {
      int64_t sum = 0;
      for (int v : d.divisionVertices) {
        sum += bytesOf(v);
        out.push_back(v);
      }
      for (int child : d.segmentChildren) {
        if (nodes[child].total <= m)
          continue;
        int64_t c = solve(child, m, out);
        if (c >= kInf)
          return kInf;
        sum += c;
      }
      return sum;
    }
    // forced[k]: cost and checkpoints of segment k solved inside.
    std::vector<int64_t> forced(q, kInf);
    std::vector<std::vector<int>> forcedSets(q);
    for (int k = 0; k < q; ++k) {
      if (d.segBytes[k] <= m)
        continue;
      int64_t sum = 0;
      for (int child : d.children[k]) {
        int64_t c = solve(child, m, forcedSets[k]);
        if (c >= kInf) {
          sum = kInf;
          break;
        }
        sum += c;
      }
      forced[k] = sum;
    }
    // Chain DP over the splitting vertices: dist[j] = cheapest checkpoint
    // bytes with ends[j] a checkpoint (ends[q], the sink, is not counted:
    // the parent already keeps it).
    std::vector<int64_t> dist(q + 1, kInf);
    std::vector<int> from(q + 1, -1);
    std::vector<char> viaForced(q + 1, 0);
    dist[0] = 0;
    for (int j = 1; j <= q; ++j) {
      int64_t w = j < q ? bytesOf(d.ends[j]) : 0;
      int64_t seg = 0;
      for (int i = j - 1; i >= 0; --i) {
        seg += d.segBytes[i] + (i < j - 1 ? bytesOf(d.ends[i + 1]) : 0);
        if (seg > m)
          break;
        if (dist[i] + w < dist[j]) {
          dist[j] = dist[i] + w;
          from[j] = i;
          viaForced[j] = 0;
        }
      }
      if (forced[j - 1] < kInf && dist[j - 1] < kInf &&
          dist[j - 1] + w + forced[j - 1] < dist[j]) {
        dist[j] = dist[j - 1] + w + forced[j - 1];
        from[j] = j - 1;
        viaForced[j] = 1;
      }
    }
    if (dist[q] >= kInf)
      return kInf;
    for (int j = q; j > 0; j = from[j]) {
      if (j < q && d.ends[j] >= 0)
        out.push_back(d.ends[j]);
      if (viaForced[j])
        out.insert(out.end(), forcedSets[j - 1].begin(),
                   forcedSets[j - 1].end());
    }
    return dist[q];
  }

  /// The work units of one `solve` from the root: the tree nodes and
  /// splitting vertices it visits.
  int64_t solveWork() const {
    int64_t visits = 0;
    for (const Division &d : nodes)
      visits += 1 + d.ends.size();
    return kBoundWork * visits;
  }

private:
  WorkMeter &meter;
  std::vector<char> inFwd;
  std::vector<std::vector<int>> users;
  std::vector<int> mark;
  int stamp = 0;
  /// Per graph id, valid where `mark` holds the current stamp: the vertex's
  /// position in the subgraph being built, or its component in `split`
  /// (arrays, not maps: the tree of a 20,005-op step visits 6 million
  /// vertices in all).
  std::vector<int> indexOf;

  /// Builds the subtree for `interior` (forward ids in topological order)
  /// between `source` and `sink`.
  int build(const std::vector<int> &interior, int source, int sink) {
    int index = nodes.size();
    nodes.emplace_back();
    // The root is always divided: a lone leaf offers only the empty set.
    if (index > 0 && meter.exhausted())
      return leaf(index, interior, source, sink);
    meter.charge(kDivideWork * static_cast<int64_t>(interior.size()));
    ++stamp;
    for (int id : interior)
      mark[id] = stamp;
    for (size_t i = 0; i < interior.size(); ++i)
      indexOf[interior[i]] = i + 1; // 0 = source, size+1 = sink
    const int last = interior.size() + 1;
    std::vector<int> delta(last + 2, 0);
    auto edge = [&](int a, int b) {
      if (b - a > 1) {
        ++delta[a + 1];
        --delta[b];
      }
    };
    for (size_t i = 0; i < interior.size(); ++i) {
      int id = interior[i];
      bool hasIn = false, hasOut = false;
      for (int dep : graph.nodes[id].deps)
        if (dep >= 0 && mark[dep] == stamp) {
          edge(indexOf[dep], i + 1);
          hasIn = true;
        }
      for (int u : users[id])
        if (mark[u] == stamp)
          hasOut = true;
      // Edges from the source / to the sink (or from/to outside, which a
      // proper division only allows through the ends).
      if (!hasIn)
        edge(0, i + 1);
      if (!hasOut)
        edge(i + 1, last);
    }
    Division &d = nodes[index];
    d.ends.push_back(source);
    std::vector<std::vector<int>> segments(1);
    int crossing = 0;
    for (size_t i = 0; i < interior.size(); ++i) {
      crossing += delta[i + 1];
      if (crossing == 0) {
        d.ends.push_back(interior[i]);
        segments.emplace_back();
      } else {
        segments.back().push_back(interior[i]);
      }
    }
    d.ends.push_back(sink);
    // Components of each segment's interior.
    std::vector<std::vector<std::vector<int>>> components;
    bool divided = d.ends.size() > 2;
    for (const std::vector<int> &segment : segments) {
      components.push_back(split(segment));
      divided |= components.back().size() > 1;
    }
    int64_t total = 0;
    for (int id : interior)
      total += bytesOf(id);
    nodes[index].total = total;
    if (!divided) {
      nodes[index].segBytes = {total};
      nodes[index].children.resize(1);
      if (!complicateDivision(index, interior, source, sink))
        nodes[index].leaf = true;
      return index;
    }
    std::vector<int64_t> segBytes;
    std::vector<std::vector<int>> children;
    for (size_t k = 0; k < segments.size(); ++k) {
      int64_t sum = 0;
      for (int id : segments[k])
        sum += bytesOf(id);
      segBytes.push_back(sum);
      children.emplace_back();
      for (const std::vector<int> &comp : components[k])
        children.back().push_back(
            build(comp, nodes[index].ends[k], nodes[index].ends[k + 1]));
    }
    nodes[index].segBytes = std::move(segBytes);
    nodes[index].children = std::move(children);
    return index;
  }

  /// Makes tree node `index` an undivided leaf over `interior`.
  int leaf(int index, const std::vector<int> &interior, int source, int sink) {
    Division &d = nodes[index];
    d.ends = {source, sink};
    for (int id : interior)
      d.total += bytesOf(id);
    d.segBytes = {d.total};
    d.children.resize(1);
    d.leaf = true;
    return index;
  }

  /// The complicate division of an indivisible subgraph (`interior` between
  /// `source` and `sink`): candidate ends are the source, the sink and the
  /// vertices of undirected degree > 2; for each pair (a, b) the largest
  /// independent segment is descendants(a) ∩ ancestors(b), pruned of the
  /// vertices that touch the outside and everything connected to them
  /// inside; connected segments are taken greedily, largest first, when
  /// edge-disjoint from those taken. Every vertex left outside the taken
  /// segments becomes a division vertex (a checkpoint). Skipped (false) on
  /// subgraphs over kMaxComplicate vertices, where its O(k^3) search is too
  /// slow, or when it finds no segment.
  bool complicateDivision(int index, const std::vector<int> &interior,
                          int source, int sink) {
    const int k = interior.size();
    if (k < 3 || k > kMaxComplicate)
      return false;
    meter.charge(kComplicateWork * int64_t(k) * k);
    LocalDag dag(graph, users, interior);
    std::vector<int> candidates;
    for (int v = 0; v < dag.size(); ++v)
      if (v == 0 || v == k + 1 || dag.adj[v].size() > 2)
        candidates.push_back(v);
    std::vector<Segment> segments;
    for (int a : candidates)
      for (int b : candidates) {
        if (b <= a || (a == 0 && b == k + 1))
          continue;
        if (std::optional<Segment> seg = independentSegment(dag, a, b))
          segments.push_back(std::move(*seg));
      }
    std::stable_sort(segments.begin(), segments.end(),
                     [](const Segment &x, const Segment &y) {
                       return x.inner.size() > y.inner.size();
                     });
    std::vector<char> used(dag.size(), 0);
    std::vector<const Segment *> taken = takeDisjoint(segments, used);
    if (taken.empty())
      return false;
    auto global = [&](int v) {
      return v == 0 ? source : v == k + 1 ? sink : interior[v - 1];
    };
    std::vector<int> divisionVertices;
    for (int v = 1; v <= k; ++v)
      if (!used[v])
        divisionVertices.push_back(interior[v - 1]);
    std::vector<int> children;
    for (const Segment *seg : taken) {
      std::vector<int> ids;
      for (int v : seg->inner)
        ids.push_back(interior[v - 1]);
      children.push_back(build(ids, global(seg->a), global(seg->b)));
    }
    Division &d = nodes[index];
    d.complicate = true;
    d.divisionVertices = std::move(divisionVertices);
    d.segmentChildren = std::move(children);
    return true;
  }

  /// Weakly connected components of `vertices` (topological order kept).
  std::vector<std::vector<int>> split(const std::vector<int> &vertices) {
    std::vector<std::vector<int>> result;
    if (vertices.empty())
      return result;
    ++stamp;
    for (int id : vertices) {
      mark[id] = stamp;
      indexOf[id] = -1;
    }
    std::vector<int> &comp = indexOf;
    int count = 0;
    for (int start : vertices) {
      if (comp[start] >= 0)
        continue;
      std::vector<int> stack = {start};
      comp[start] = count;
      while (!stack.empty()) {
        int id = stack.back();
        stack.pop_back();
        auto visit = [&](int other) {
          if (other >= 0 && mark[other] == stamp && comp[other] < 0) {
            comp[other] = count;
            stack.push_back(other);
          }
        };
        for (int dep : graph.nodes[id].deps)
          visit(dep);
        for (int u : users[id])
          visit(u);
      }
      ++count;
    }
    result.resize(count);
    for (int id : vertices)
      result[comp[id]].push_back(id);
    return result;
  }
};
} // namespace

/// The model sets of the division tree's candidate bounds, smallest bound
/// first, while a bound is below the best model memory so far; once `meter`
/// is exhausted with a set found, the sets so far (a 20,005-op step has
/// thousands of candidate bounds, each a walk of the whole tree).
static std::vector<ModelSet> candidateSets(const DivisionTree &tree,
                                           WorkMeter &meter) {
  std::vector<int64_t> candidates;
  tree.candidates(candidates);
  candidates.push_back(0);
  candidates = thin(std::move(candidates));
  std::vector<ModelSet> sets;
  int64_t best = kInf;
  const int64_t work = tree.solveWork();
  for (int64_t m : candidates) {
    if (m >= best || (!sets.empty() && meter.exhausted()))
      break;
    std::vector<int> set;
    int64_t cost = tree.solve(tree.root, m, set);
    meter.charge(work);
    if (cost >= kInf)
      continue;
    best = std::min(best, cost + m);
    sets.push_back({cost + m, m, std::move(set)});
  }
  return sets;
}

/// The division tree's candidate model sets, the tree taking at most
/// kTreeShare of `meter`'s allowance.
static std::vector<ModelSet> divideAndSolve(const Graph &graph,
                                            WorkMeter &meter) {
  WorkMeter building(meter, meter.part(kTreeShare));
  DivisionTree tree(graph, building);
  meter.charge(building);
  return candidateSets(tree, meter);
}

std::vector<char> remat::fengHuangKeep(const Graph &graph, WorkMeter *meter) {
  WorkMeter unbounded(std::numeric_limits<int64_t>::max());
  std::vector<ModelSet> sets =
      divideAndSolve(graph, meter ? *meter : unbounded);
  std::vector<char> keep(graph.size(), 0);
  auto best = std::min_element(
      sets.begin(), sets.end(),
      [](const ModelSet &a, const ModelSet &b) { return a.model < b.model; });
  if (best != sets.end())
    for (int id : best->checkpoints)
      keep[id] = 1;
  return keep;
}

SolveResult remat::solveFengHuang(const Graph &graph,
                                  const SolveOptions &options) {
  WorkMeter meter(options);
  const char *name = "feng-huang";
  if (forwardOrder(graph).empty())
    return failSolve(name, SolveStatus::Unsupported,
                     "the graph has no forward nodes", meter);
  std::vector<ModelSet> sets = divideAndSolve(graph, meter);
  if (sets.empty())
    return failSolve(name, SolveStatus::Infeasible,
                     "no candidate segment bound admits a checkpoint set",
                     meter);
  return verifyBest(graph, options, name, std::move(sets), meter);
}
