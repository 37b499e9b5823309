//===- Problem.cpp - checkpointing problem model --------------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Core/Problem.h"

#include <cmath>
#include <sstream>

using namespace remat;

static std::string describeNode(const Graph &graph, int id) {
  std::ostringstream os;
  os << "node " << id;
  const std::string &name = graph.nodes[id].name;
  if (!name.empty())
    os << " ('" << name << "')";
  return os.str();
}

/// The problem with node `id`'s per-sample parts, or "".
static std::string checkBatchScaling(const Graph &graph, int id) {
  const Node &node = graph.nodes[id];
  std::ostringstream os;
  if (node.bytesPerSample == 0 && node.costPerSample == 0)
    return "";
  if (!graph.hasBatchScaling())
    os << describeNode(graph, id)
       << " has a per-sample part but the graph gives no traced batch";
  else if (node.bytesPerSample < 0 ||
           node.bytesPerSample > node.bytes / graph.batch)
    os << describeNode(graph, id) << " has " << node.bytesPerSample
       << " bytes per sample, not within 0.." << node.bytes / graph.batch
       << " (its " << node.bytes << " bytes at batch " << graph.batch << ")";
  else if (!(node.costPerSample >= 0) ||
           !(node.costPerSample * static_cast<double>(graph.batch) <=
             node.cost))
    os << describeNode(graph, id) << " has cost " << node.costPerSample
       << " per sample, not within 0.."
       << node.cost / static_cast<double>(graph.batch) << " (its cost "
       << node.cost << " at batch " << graph.batch << ")";
  return os.str();
}

/// The problem with node `id`'s ordering edges (`Node::after`), or "".
static std::string checkOrderEdges(const Graph &graph, int id) {
  std::ostringstream os;
  for (int before : graph.nodes[id].after) {
    if (before < 0 || before >= id)
      os << describeNode(graph, id) << " comes after node " << before
         << ", which is not an earlier node: ordering edges point backwards";
    else if (graph.nodes[before].isResident() || graph.nodes[id].isResident())
      os << describeNode(graph, id) << " comes after "
         << describeNode(graph, before)
         << ": ordering edges join computed nodes, not inputs or params";
    if (!os.str().empty())
      return os.str();
  }
  return "";
}

std::string Graph::checkTotals() const {
  const Graph &graph = *this;
  int64_t bytes = 0;
  double cost = 0;
  bool fits = addBytes(bytes, graph.fixedBytes);
  for (const Node &node : graph.nodes) {
    fits = fits && addBytes(bytes, node.bytes);
    cost += node.cost;
  }
  std::ostringstream os;
  if (!fits)
    os << "the sizes in the graph (nodes and fixed bytes) add up to more than "
          "2^62 bytes (4 EiB): sizes this large cannot be represented";
  else if (!(cost <= kMaxTotalCost))
    os << "the costs of the graph add up to more than " << kMaxTotalCost
       << ": costs this large cannot be represented";
  return os.str();
}

std::string Graph::check() const {
  if (batch < 0)
    return "batch is negative";
  for (int id = 0, e = size(); id < e; ++id) {
    const Node &node = nodes[id];
    std::ostringstream os;
    if (node.bytes < 0) {
      os << describeNode(*this, id) << " has negative size " << node.bytes;
      return os.str();
    }
    if (!(node.cost >= 0) || !std::isfinite(node.cost)) {
      os << describeNode(*this, id) << " has invalid cost " << node.cost
         << " (must be finite and non-negative)";
      return os.str();
    }
    std::string scaling = checkBatchScaling(*this, id);
    if (!scaling.empty())
      return scaling;
    if (std::string order = checkOrderEdges(*this, id); !order.empty())
      return order;
    for (int dep : node.deps) {
      if (dep < 0 || dep >= e) {
        os << describeNode(*this, id) << " depends on node " << dep
           << ", which does not exist (the graph has " << e << " nodes)";
        return os.str();
      }
      if (dep == id) {
        os << describeNode(*this, id) << " depends on itself (cycle)";
        return os.str();
      }
      if (dep > id) {
        os << describeNode(*this, id) << " depends on later node " << dep
           << ": nodes must be in topological order (cycle or misordered "
              "graph)";
        return os.str();
      }
      if (node.kind == NodeKind::Forward &&
          nodes[dep].kind == NodeKind::Backward) {
        os << describeNode(*this, id) << " is a forward node but reads "
           << describeNode(*this, dep)
           << ", a backward node: what runs after the backward starts is "
              "backward";
        return os.str();
      }
    }
    if (node.aliasOf >= 0) {
      if (node.aliasOf >= id) {
        os << describeNode(*this, id) << " is a view of node " << node.aliasOf
           << ", which is not an earlier node";
        return os.str();
      }
      if (node.isResident() != nodes[node.aliasOf].isResident() &&
          node.isResident()) {
        os << describeNode(*this, id)
           << " is an input/param view of a computed node";
        return os.str();
      }
    } else if (node.aliasOf != -1) {
      os << describeNode(*this, id) << " has invalid alias " << node.aliasOf;
      return os.str();
    }
    if (node.isResident() && !node.deps.empty()) {
      os << describeNode(*this, id)
         << " is an input/param but has dependencies";
      return os.str();
    }
  }
  if (fixedBytes < 0)
    return "fixed_bytes is negative";
  if (std::string error = checkTotals(); !error.empty())
    return error;
  for (int out : outputs)
    if (out < 0 || out >= size()) {
      std::ostringstream os;
      os << "output " << out << " does not exist (the graph has " << size()
         << " nodes)";
      return os.str();
    }
  return "";
}

std::vector<std::vector<int>> Graph::users() const {
  std::vector<std::vector<int>> result(nodes.size());
  for (int id = 0, e = size(); id < e; ++id)
    for (int dep : nodes[id].deps)
      if (dep >= 0 && dep < e &&
          (result[dep].empty() || result[dep].back() != id))
        result[dep].push_back(id);
  return result;
}

std::vector<char> Graph::outputMask() const {
  std::vector<char> result(nodes.size(), 0);
  for (int out : outputs)
    if (out >= 0 && out < size())
      result[out] = 1;
  return result;
}

int Graph::storageOf(int id) const {
  // Views point strictly backwards in a checked graph; the step bound keeps
  // an unchecked graph from looping.
  for (int steps = 0;
       steps <= size() && nodes[id].aliasOf >= 0 && nodes[id].aliasOf < id;
       ++steps)
    id = nodes[id].aliasOf;
  return id;
}

int64_t Graph::residentBytes() const {
  int64_t total = fixedBytes;
  for (const Node &node : nodes)
    if (node.isResident() && !node.isView())
      total += node.bytes;
  return total;
}

/// The pin `policy` gives a node of gather role `role`: re-gathering drops
/// derived copies with the gather; keeping pins the gather alone.
static KeepPolicy getGatherPin(GatherPolicy policy, GatherRole role) {
  switch (policy) {
  case GatherPolicy::Keep:
    return role == GatherRole::Gather ? KeepPolicy::Always
                                      : KeepPolicy::Default;
  case GatherPolicy::Regather:
    return KeepPolicy::Never;
  case GatherPolicy::Plan:
    break;
  }
  return KeepPolicy::Default;
}

void remat::applyGatherPolicy(GatherPolicy policy, Graph &graph) {
  for (Node &node : graph.nodes)
    if (node.gather != GatherRole::None)
      node.keep = getGatherPin(policy, node.gather);
}

bool remat::hasUnpinnedGathers(const Graph &graph) {
  bool any = false;
  for (const Node &node : graph.nodes) {
    if (node.gather == GatherRole::None)
      continue;
    if (node.keep != KeepPolicy::Default)
      return false;
    any = true;
  }
  return any;
}

const char *remat::toString(Step::Kind kind) {
  switch (kind) {
  case Step::Kind::Compute:
    return "compute";
  case Step::Kind::Free:
    return "free";
  case Step::Kind::Offload:
    return "offload";
  case Step::Kind::Prefetch:
    return "prefetch";
  case Step::Kind::Wait:
    return "wait";
  }
  return "?";
}
