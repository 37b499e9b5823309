//===- Simulator.cpp - checks a schedule, measures its peak ---------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Storage is tracked per allocation ("instance"): computing a non-view node
// allocates a fresh instance of its bytes; computing a view adds a reference
// to the instance its base currently holds; freeing a value drops its
// reference, and an instance's bytes stop counting when its last reference
// is dropped. A view thus keeps its base's storage alive after the base value
// was freed, and recomputing the base while such a view is live allocates a
// second copy, both of which count.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Core/Simulator.h"

#include <sstream>

using namespace remat;

namespace {
struct Instance {
  int64_t bytes = 0;
  int refs = 0;
  int node = -1;
  size_t begin = 0;
  size_t end = 0;
};
} // namespace

static std::string stepName(const Graph &graph, size_t index,
                            const Step &step) {
  std::ostringstream os;
  os << "step " << index << " ("
     << (step.kind == Step::Kind::Compute ? "compute" : "free") << " "
     << step.node;
  if (step.node >= 0 && step.node < graph.size() &&
      !graph.nodes[step.node].name.empty())
    os << " '" << graph.nodes[step.node].name << "'";
  os << ")";
  return os.str();
}

/// The live range of every instance; those still referenced end after the
/// last step.
static void recordLifetimes(const std::vector<Instance> &instances,
                            size_t steps,
                            std::vector<StorageLifetime> &lifetimes) {
  lifetimes.clear();
  lifetimes.reserve(instances.size());
  for (const Instance &instance : instances)
    lifetimes.push_back({instance.node, instance.bytes, instance.begin,
                         instance.refs > 0 ? steps : instance.end});
}

/// Why computing `id` now breaks an ordering edge (`Node::after`): a node it
/// comes after was never computed; "" when none does.
static std::string checkOrderEdges(const Graph &graph, int id,
                                   const std::vector<char> &computed) {
  for (int before : graph.nodes[id].after)
    if (!computed[before]) {
      std::ostringstream os;
      os << "breaks the effect order: node " << before;
      if (!graph.nodes[before].name.empty())
        os << " '" << graph.nodes[before].name << "'";
      os << " must be computed first";
      return os.str();
    }
  return "";
}

Simulation remat::simulate(const Graph &graph, const Schedule &schedule,
                           std::vector<StorageLifetime> *lifetimes) {
  Simulation sim;
  const int n = graph.size();
  const int64_t resident = graph.residentBytes();
  // Instance held by each node's live value; -1 when not live. Resident
  // nodes are always live and hold no instance.
  std::vector<int> instanceOf(n, -1);
  std::vector<char> live(n, 0), computed(n, 0);
  for (int id = 0; id < n; ++id)
    live[id] = graph.nodes[id].isResident();
  std::vector<Instance> instances;
  instances.reserve(schedule.steps.size());
  int64_t liveBytes = resident;
  sim.peakBytes = resident;
  sim.liveAfterStep.reserve(schedule.steps.size());

  auto fail = [&](size_t index, const Step &step, const std::string &why) {
    sim.error = stepName(graph, index, step) + ": " + why;
    return sim;
  };

  for (size_t index = 0, e = schedule.steps.size(); index < e; ++index) {
    const Step &step = schedule.steps[index];
    if (step.node < 0 || step.node >= n)
      return fail(index, step, "no such node");
    const Node &node = graph.nodes[step.node];
    if (node.isResident())
      return fail(index, step,
                  "inputs and parameters are resident; they are never "
                  "computed or freed");
    if (step.kind == Step::Kind::Compute) {
      if (live[step.node])
        return fail(index, step, "the value is already live");
      for (int dep : node.deps)
        if (!live[dep]) {
          std::ostringstream os;
          os << "dependency " << dep;
          if (!graph.nodes[dep].name.empty())
            os << " '" << graph.nodes[dep].name << "'";
          os << " is not live";
          return fail(index, step, os.str());
        }
      if (std::string order = checkOrderEdges(graph, step.node, computed);
          !order.empty())
        return fail(index, step, order);
      computed[step.node] = 1;
      if (node.isView()) {
        int base = node.aliasOf;
        if (!live[base]) {
          std::ostringstream os;
          os << "view of node " << base << ", which is not live";
          return fail(index, step, os.str());
        }
        int inst = instanceOf[base];
        if (inst >= 0)
          ++instances[inst].refs;
        instanceOf[step.node] = inst;
      } else {
        instances.push_back({node.bytes, 1, step.node, index, 0});
        instanceOf[step.node] = static_cast<int>(instances.size()) - 1;
        liveBytes += node.bytes;
      }
      live[step.node] = 1;
      sim.cost += node.cost;
      if (liveBytes > sim.peakBytes)
        sim.peakBytes = liveBytes;
    } else {
      if (!live[step.node])
        return fail(index, step, "the value is not live");
      int inst = instanceOf[step.node];
      if (inst >= 0 && --instances[inst].refs == 0) {
        liveBytes -= instances[inst].bytes;
        instances[inst].end = index;
      }
      instanceOf[step.node] = -1;
      live[step.node] = 0;
    }
    sim.liveAfterStep.push_back(liveBytes);
  }

  for (int out : graph.outputs) {
    if (out < 0 || out >= n) {
      std::ostringstream os;
      os << "output " << out << " does not exist";
      sim.error = os.str();
      return sim;
    }
    if (!live[out]) {
      std::ostringstream os;
      os << "output " << out;
      if (!graph.nodes[out].name.empty())
        os << " '" << graph.nodes[out].name << "'";
      os << " is not live at the end of the schedule";
      sim.error = os.str();
      return sim;
    }
  }
  if (lifetimes)
    recordLifetimes(instances, schedule.steps.size(), *lifetimes);
  return sim;
}

std::vector<int> remat::computeOrderOf(const Schedule &schedule) {
  std::vector<int> order;
  for (const Step &step : schedule.steps)
    if (step.kind == Step::Kind::Compute)
      order.push_back(step.node);
  return order;
}

Schedule remat::scheduleFromComputeOrder(const Graph &graph,
                                         const std::vector<int> &order,
                                         std::string *error) {
  const int n = graph.size();
  const size_t len = order.size();
  // One instance per compute event: the event that created it and the last
  // event that read it.
  std::vector<int> current(n, -1); // node -> position that computed it
  std::vector<size_t> lastRead(len, 0);
  std::vector<char> lastCopy(len, 0);
  std::vector<char> isOutput(n, 0);
  for (int out : graph.outputs)
    if (out >= 0 && out < n)
      isOutput[out] = 1;
  for (size_t pos = 0; pos < len; ++pos) {
    int id = order[pos];
    if (id < 0 || id >= n || graph.nodes[id].isResident()) {
      if (error) {
        std::ostringstream os;
        os << "compute order position " << pos << " names node " << id
           << ", which cannot be computed";
        *error = os.str();
      }
      return {};
    }
    bool ok = true;
    forEachRead(graph.nodes[id], [&](int dep) {
      if (graph.nodes[dep].isResident())
        return;
      if (current[dep] < 0) {
        ok = false;
        return;
      }
      lastRead[current[dep]] = pos;
    });
    if (!ok) {
      if (error) {
        std::ostringstream os;
        os << "node " << id << " is computed at position " << pos
           << " before one of its dependencies";
        *error = os.str();
      }
      return {};
    }
    current[id] = static_cast<int>(pos);
    lastRead[pos] = pos;
  }
  for (int id = 0; id < n; ++id)
    if (current[id] >= 0)
      lastCopy[current[id]] = 1;

  // Frees to emit after each position, flat: `freeStart[pos]` indexes
  // `frees` (counted, then filled in position order).
  std::vector<int> freeStart(len + 1, 0);
  auto freed = [&](size_t pos) {
    return !(lastCopy[pos] && isOutput[order[pos]]);
  };
  for (size_t pos = 0; pos < len; ++pos)
    if (freed(pos))
      ++freeStart[lastRead[pos] + 1];
  for (size_t pos = 0; pos < len; ++pos)
    freeStart[pos + 1] += freeStart[pos];
  std::vector<int> frees(freeStart[len]);
  std::vector<int> fill(freeStart.begin(), freeStart.end() - 1);
  for (size_t pos = 0; pos < len; ++pos)
    if (freed(pos))
      frees[fill[lastRead[pos]]++] = order[pos];
  Schedule schedule;
  schedule.steps.reserve(len + frees.size());
  for (size_t pos = 0; pos < len; ++pos) {
    schedule.steps.push_back(Step::compute(order[pos]));
    for (int i = freeStart[pos]; i < freeStart[pos + 1]; ++i)
      schedule.steps.push_back(Step::free(frees[i]));
  }
  return schedule;
}
