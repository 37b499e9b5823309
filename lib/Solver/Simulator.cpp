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

#include "remat/Solver/Simulator.h"

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

Simulation remat::simulate(const Graph &graph, const Schedule &schedule,
                           std::vector<StorageLifetime> *lifetimes) {
  Simulation sim;
  const int n = graph.size();
  const int64_t resident = graph.residentBytes();
  // Instance held by each node's live value; -1 when not live. Resident
  // nodes are always live and hold no instance.
  std::vector<int> instanceOf(n, -1);
  std::vector<char> live(n, 0);
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
