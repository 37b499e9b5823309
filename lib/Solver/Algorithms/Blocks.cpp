//===- Blocks.cpp - repeated blocks and the practitioners' policies -------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Algorithms/Blocks.h"

#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/SolverSupport.h"

#include <algorithm>
#include <cstring>
#include <set>

using namespace remat;

namespace {
/// FNV-1a over the words fed to it.
class Hasher {
public:
  void add(uint64_t word) {
    for (int i = 0; i < 8; ++i) {
      value ^= (word >> (8 * i)) & 0xff;
      value *= 0x100000001b3ULL;
    }
  }
  void add(double number) {
    uint64_t bits;
    std::memcpy(&bits, &number, sizeof bits);
    add(bits);
  }
  void add(const std::string &text) {
    add(static_cast<uint64_t>(text.size()));
    for (char c : text)
      add(static_cast<uint64_t>(static_cast<unsigned char>(c)));
  }
  uint64_t value = 0xcbf29ce484222325ULL;
};

/// A stretch of the forward between two cut points.
struct Segment {
  std::vector<int> nodes;
  int input = -1;
  uint64_t hash = 0;
};

/// The segments of the needed forward between consecutive articulation
/// points, each ending at one.
std::vector<Segment> segments(const Graph &graph) {
  std::vector<Segment> result;
  std::vector<int> cuts = articulationPoints(graph);
  std::set<int> isCut(cuts.begin(), cuts.end());
  Segment current;
  for (int id : forwardOrder(graph)) {
    current.nodes.push_back(id);
    if (!isCut.count(id))
      continue;
    current.hash = blockHash(graph, current.nodes, current.input);
    result.push_back(current);
    current = Segment();
    current.input = id;
  }
  return result;
}

/// The block part of a module path: up to its first numbered component
/// (`transformer.h.3.attn` -> `transformer.h.3`); empty when none.
std::string blockModule(const std::string &path) {
  size_t start = 0;
  while (start < path.size()) {
    size_t end = path.find('.', start);
    if (end == std::string::npos)
      end = path.size();
    if (end > start && std::all_of(path.begin() + start, path.begin() + end,
                                   [](char c) { return c >= '0' && c <= '9'; }))
      return path.substr(0, end);
    start = end + 1;
  }
  return "";
}

/// Groups of consecutive segments ([first, last) pairs) by the block module
/// of each segment's last node.
std::vector<std::pair<int, int>> groupsByModule(const Graph &graph,
                                                const std::vector<Segment> &s) {
  std::vector<std::pair<int, int>> groups;
  std::string open;
  for (int i = 0, e = s.size(); i < e; ++i) {
    std::string module = blockModule(graph.nodes[s[i].nodes.back()].module);
    if (!module.empty() && module == open)
      groups.back().second = i + 1;
    else if (!module.empty())
      groups.push_back({i, i + 1});
    open = module;
  }
  return groups;
}

/// Groups of consecutive segments forming the longest run (most segments
/// covered, then the shortest period, then the earliest) of a repeated
/// pattern of segment hashes; empty when none repeats.
std::vector<std::pair<int, int>> groupsByPeriod(const std::vector<Segment> &s) {
  const int m = s.size();
  int bestCover = 0, bestStart = 0, bestPeriod = 0;
  for (int p = 1; 2 * p <= m; ++p)
    for (int i = 0; i + p < m;) {
      int run = 0;
      while (i + run + p < m && s[i + run].hash == s[i + run + p].hash)
        ++run;
      int cover = (run / p + 1) * p;
      if (run >= p && cover > bestCover) {
        bestCover = cover;
        bestStart = i;
        bestPeriod = p;
      }
      i += std::max(run, 1);
    }
  std::vector<std::pair<int, int>> groups;
  for (int i = bestStart; bestPeriod && i < bestStart + bestCover;
       i += bestPeriod)
    groups.push_back({i, i + bestPeriod});
  return groups;
}
} // namespace

uint64_t remat::blockHash(const Graph &graph, const std::vector<int> &nodes,
                          int input) {
  std::vector<int> local(graph.size(), -1);
  for (int i = 0, e = nodes.size(); i < e; ++i)
    local[nodes[i]] = i;
  Hasher h;
  auto addRead = [&](int dep) {
    if (local[dep] >= 0) {
      h.add(uint64_t(local[dep]));
    } else if (dep == input) {
      h.add(~uint64_t(0));
    } else {
      h.add(uint64_t(graph.nodes[dep].kind) + 0x1000);
      h.add(uint64_t(graph.nodes[dep].bytes));
    }
  };
  for (int id : nodes) {
    const Node &node = graph.nodes[id];
    h.add(uint64_t(node.kind));
    h.add(node.op);
    h.add(uint64_t(node.bytes));
    h.add(node.cost);
    h.add(uint64_t(node.deps.size()));
    for (int dep : node.deps)
      addRead(dep);
    h.add(uint64_t(node.isView()));
    if (node.isView())
      addRead(node.aliasOf);
  }
  return h.value;
}

std::vector<Block> remat::findBlocks(const Graph &graph, bool useModules) {
  std::vector<Segment> s = segments(graph);
  std::vector<std::pair<int, int>> groups;
  if (useModules)
    groups = groupsByModule(graph, s);
  if (groups.size() < 2)
    groups = groupsByPeriod(s);
  std::vector<Block> blocks;
  for (auto [first, last] : groups) {
    Block block;
    block.input = s[first].input;
    for (int i = first; i < last; ++i)
      block.nodes.insert(block.nodes.end(), s[i].nodes.begin(),
                         s[i].nodes.end());
    block.hash = blockHash(graph, block.nodes, block.input);
    blocks.push_back(std::move(block));
  }
  if (blocks.size() < 2)
    blocks.clear();
  return blocks;
}

int remat::distinctBlocks(const std::vector<Block> &blocks) {
  std::set<uint64_t> hashes;
  for (const Block &block : blocks)
    hashes.insert(block.hash);
  return hashes.size();
}

bool remat::isMatmulOp(const std::string &op) {
  // The linalg named contractions a lowering writes (remat-opt's graphs).
  for (const char *name : {"linalg.matmul", "linalg.batch_matmul",
                           "linalg.matmul_transpose_a",
                           "linalg.matmul_transpose_b",
                           "linalg.batch_matmul_transpose_a",
                           "linalg.batch_matmul_transpose_b"})
    if (op == name)
      return true;
  std::string stem = op.compare(0, 5, "aten.") == 0 ? op.substr(5) : op;
  stem = stem.substr(0, stem.find('.'));
  for (const char *name : {"mm", "bmm", "addmm", "matmul", "linear", "baddbmm"})
    if (stem == name)
      return true;
  return false;
}

std::vector<char> remat::policyCheckpoints(const Graph &graph,
                                           const std::vector<Block> &blocks,
                                           size_t firstSelective) {
  std::vector<char> keep(graph.size(), 0);
  for (int id : forwardOrder(graph))
    keep[id] = 1;
  for (size_t b = 0; b < blocks.size(); ++b)
    for (int id : blocks[b].nodes)
      keep[id] = id == blocks[b].nodes.back() ||
                 (b >= firstSelective && isMatmulOp(graph.nodes[id].op));
  return keep;
}

/// The policy's checkpoint set scheduled by the builder's variants.
static SolveResult solvePolicy(const Graph &graph, const SolveOptions &options,
                               bool selective) {
  const char *name = selective ? "selective" : "full-ac";
  WorkMeter meter(options);
  if (selective && std::none_of(graph.nodes.begin(), graph.nodes.end(),
                                [](const Node &n) { return !n.op.empty(); }))
    return failSolve(name, SolveStatus::Unsupported,
                     "the graph records no op kinds (node field \"op\"), so "
                     "its matmuls are unknown",
                     meter);
  std::vector<Block> blocks = findBlocks(graph);
  if (blocks.empty())
    return failSolve(name, SolveStatus::Unsupported,
                     "no repeated blocks found in the forward", meter);
  return solveFromCheckpointSets(
      graph, options, name,
      {policyCheckpoints(graph, blocks, selective ? 0 : blocks.size())},
      meter);
}

SolveResult remat::solveFullAC(const Graph &graph,
                               const SolveOptions &options) {
  return solvePolicy(graph, options, /*selective=*/false);
}

SolveResult remat::solveSelective(const Graph &graph,
                                  const SolveOptions &options) {
  return solvePolicy(graph, options, /*selective=*/true);
}

std::string remat::policySolver(const std::string &policy) {
  if (policy == "none")
    return "checkpoint-all";
  if (policy == "full-ac" || policy == "selective")
    return policy;
  return "";
}

std::string remat::describeUnknownPolicy(const std::string &policy) {
  return "unknown policy '" + policy +
         "' (expected none, full-ac or selective)";
}
