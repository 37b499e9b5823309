//===- Deferral.cpp - outputs recomputed at the end of the step -----------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Algorithms/Deferral.h"

#include <algorithm>
#include <set>

using namespace remat;

Schedule DeferredGraph::mapBack(const Schedule &schedule) const {
  Schedule mapped = schedule;
  for (Step &step : mapped.steps)
    if (step.node >= 0 && step.node < static_cast<int>(original.size()))
      step.node = original[step.node];
  return mapped;
}

/// Whether `id` is work whose results its readers own: no bytes, no view.
static bool isZeroByteProducer(const Node &node) {
  return !node.isResident() && !node.isView() && node.bytes == 0;
}

/// The tail of `out` (see the header; a view's bases too), or an empty
/// vector when it holds a pinned node, another output or a resident base.
static std::vector<int> tailOf(const Graph &graph, int out,
                               const std::vector<char> &isOutput) {
  std::set<int> members{out};
  std::vector<int> work{out};
  while (!work.empty()) {
    int id = work.back();
    work.pop_back();
    const Node &node = graph.nodes[id];
    if (node.keep == KeepPolicy::Always || (id != out && isOutput[id]))
      return {};
    // A view is recomputed with its base, whose storage it holds.
    if (node.isView() && members.insert(node.aliasOf).second) {
      if (graph.nodes[node.aliasOf].isResident())
        return {};
      work.push_back(node.aliasOf);
    }
    for (int dep : node.deps)
      if (isZeroByteProducer(graph.nodes[dep]) && members.insert(dep).second)
        work.push_back(dep);
  }
  return std::vector<int>(members.begin(), members.end());
}

/// Storage of the tail's non-resident operands outside the tail.
static int64_t heldBytesOf(const Graph &graph, const std::vector<int> &tail) {
  std::set<int> storages;
  for (int id : tail)
    forEachRead(graph.nodes[id], [&](int read) {
      if (std::binary_search(tail.begin(), tail.end(), read))
        return;
      int storage = graph.storageOf(read);
      if (!graph.nodes[storage].isResident())
        storages.insert(storage);
    });
  int64_t held = 0;
  for (int storage : storages)
    held += graph.nodes[storage].bytes;
  return held;
}

std::vector<DeferralCandidate> remat::deferralCandidates(const Graph &graph) {
  std::vector<DeferralCandidate> candidates;
  if (!graph.check().empty())
    return candidates;
  std::vector<char> isOutput = graph.outputMask();
  std::set<int> seen;
  for (int out : graph.outputs) {
    const Node &storage = graph.nodes[graph.storageOf(out)];
    if (graph.nodes[out].isResident() || storage.isResident() ||
        storage.bytes == 0 || !seen.insert(out).second)
      continue;
    DeferralCandidate candidate;
    candidate.output = out;
    candidate.tail = tailOf(graph, out, isOutput);
    if (candidate.tail.empty())
      continue;
    candidate.savedBytes = storage.bytes;
    candidate.heldBytes = heldBytesOf(graph, candidate.tail);
    candidates.push_back(std::move(candidate));
  }
  return candidates;
}

DeferredGraph remat::deferOutputs(const Graph &graph) {
  std::vector<DeferralCandidate> chosen;
  for (DeferralCandidate &candidate : deferralCandidates(graph))
    if (candidate.savedBytes > candidate.heldBytes)
      chosen.push_back(std::move(candidate));
  return deferOutputs(graph, chosen);
}

DeferredGraph
remat::deferOutputs(const Graph &graph,
                    const std::vector<DeferralCandidate> &candidates) {
  DeferredGraph result;
  result.graph = graph;
  result.original.resize(graph.size());
  for (int id = 0; id < graph.size(); ++id)
    result.original[id] = id;
  // Tails that share a node (two results of one tuple) share its copy.
  std::vector<int> copyOf(graph.size(), -1);
  for (const DeferralCandidate &candidate : candidates) {
    for (int id : candidate.tail) {
      if (copyOf[id] >= 0)
        continue;
      Node copy = graph.nodes[id];
      copy.name += ".deferred";
      copy.kind = NodeKind::Backward;
      for (int &dep : copy.deps)
        if (std::binary_search(candidate.tail.begin(), candidate.tail.end(),
                               dep))
          dep = copyOf[dep];
      if (copy.isView() &&
          std::binary_search(candidate.tail.begin(), candidate.tail.end(),
                             copy.aliasOf))
        copy.aliasOf = copyOf[copy.aliasOf];
      copyOf[id] = result.graph.size();
      result.graph.nodes.push_back(std::move(copy));
      result.original.push_back(id);
    }
    for (int &out : result.graph.outputs)
      if (out == candidate.output)
        out = copyOf[candidate.output];
    result.deferred.push_back(candidate.output);
  }
  return result;
}
