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

#include <algorithm>
#include <deque>
#include <limits>
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

/// A copy on one of the copy streams: when it is done, and what it
/// releases then (an offload's device bytes, `offload` indexing
/// Replay::offloads; host bytes after a prefetch).
struct Copy {
  double done = 0;
  int offload = -1;
  int64_t hostBytes = 0;
};

/// One offload step: the device instance it moved, when its copy is done,
/// and whether a wait step names it (Step::Kind::Wait), was replayed, and
/// its bytes were released.
struct OffloadCopy {
  int instance = -1;
  double done = 0;
  bool hasWait = false, waited = false, copied = false, released = false;
};
} // namespace

static std::string stepName(const Graph &graph, size_t index,
                            const Step &step) {
  std::ostringstream os;
  os << "step " << index << " (" << toString(step.kind) << " " << step.node;
  if (step.node >= 0 && step.node < graph.size() &&
      !graph.nodes[step.node].name.empty())
    os << " '" << graph.nodes[step.node].name << "'";
  os << ")";
  return os.str();
}

static std::string describe(const Graph &graph, const char *what, int id) {
  std::ostringstream os;
  os << what << " " << id;
  if (!graph.nodes[id].name.empty())
    os << " '" << graph.nodes[id].name << "'";
  return os.str();
}

/// Why computing `id` now breaks an ordering edge (`Node::after`): a node it
/// comes after was never computed; "" when none does.
static std::string checkOrderEdges(const Graph &graph, int id,
                                   const std::vector<char> &computed) {
  for (int before : graph.nodes[id].after)
    if (!computed[before])
      return "breaks the effect order: " + describe(graph, "node", before) +
             " must be computed first";
  return "";
}

namespace {
/// The state of one replay: what is live where, the streams' clocks.
class Replay {
public:
  Replay(const Graph &graph, const Schedule &schedule, const HostLink *link,
         Simulation &sim)
      : graph(graph), link(link), sim(sim), instanceOf(graph.size(), -1),
        live(graph.size(), 0), computed(graph.size(), 0),
        onHost(graph.size(), 0), ready(graph.size(), 0),
        offloadDone(graph.size(), 0), onHostBytes(graph.size(), 0),
        waitedOffloads(findWaitedOffloads(schedule)),
        awaiting(waitedOffloads.empty() ? 0 : graph.size()) {
    for (int id = 0; id < graph.size(); ++id)
      live[id] = graph.nodes[id].isResident();
    liveBytes = sim.peakBytes = graph.residentBytes();
  }

  /// Replays step `index`; the violation, or "".
  std::string step(size_t index, const Step &step) {
    sim.startOfStep.push_back(clock);
    switch (step.kind) {
    case Step::Kind::Compute:
      return compute(index, step.node);
    case Step::Kind::Free:
      return free(index, step.node);
    case Step::Kind::Offload:
      return offload(step.node);
    case Step::Kind::Prefetch:
      return prefetch(index, step.node);
    case Step::Kind::Wait:
      return wait(index, step.node);
    }
    return "unknown step kind";
  }

  /// Checks the end state; the violation, or "".
  std::string finish();

  std::vector<Instance> instances;
  int64_t liveBytes = 0;

private:
  std::string compute(size_t index, int id);
  std::string computeView(int id);
  std::string free(size_t index, int id);
  std::string offload(int id);
  std::string prefetch(size_t index, int id);
  std::string wait(size_t index, int id);
  std::string unreadable(int dep) const;
  void allocate(size_t index, int id, int64_t bytes);
  void release(int inst, size_t index);
  void releaseOffload(OffloadCopy &copy, size_t index);
  void retire(double now, size_t index);
  std::vector<char> findWaitedOffloads(const Schedule &schedule) const;

  const Graph &graph;
  const HostLink *link;
  Simulation &sim;
  /// Instance held by each node's live value; -1 when not live. Resident
  /// nodes are always live and hold no instance.
  std::vector<int> instanceOf;
  std::vector<char> live, computed, onHost;
  /// When a prefetched value arrives; when an offloaded value's copy ends;
  /// the bytes of the storage an offload moved (a view's is its base's).
  std::vector<double> ready, offloadDone;
  std::vector<int64_t> onHostBytes;
  /// Every offload so far; per offload step (in order), whether a wait
  /// names it (empty without waits); per node (only with waits), the
  /// offloads a wait will name, not yet waited for (oldest first).
  std::vector<OffloadCopy> offloads;
  std::vector<char> waitedOffloads;
  std::vector<std::vector<int>> awaiting;
  std::deque<Copy> toHost, toDevice;
  int64_t hostBytes = 0;
  double clock = 0, toHostFree = 0, toDeviceFree = 0;
};
} // namespace

std::string Replay::unreadable(int dep) const {
  if (onHost[dep])
    return describe(graph, "dependency", dep) +
           " is on the host: prefetch it first";
  return describe(graph, "dependency", dep) + " is not live";
}

void Replay::release(int inst, size_t index) {
  if (inst >= 0 && --instances[inst].refs == 0) {
    liveBytes -= instances[inst].bytes;
    instances[inst].end = index;
  }
}

/// Whether a wait step names each offload step of `schedule`, in order: a
/// wait names its node's oldest offload not yet waited for.
std::vector<char> Replay::findWaitedOffloads(const Schedule &schedule) const {
  std::vector<char> waited;
  if (std::none_of(
          schedule.steps.begin(), schedule.steps.end(),
          [](const Step &step) { return step.kind == Step::Kind::Wait; }))
    return waited; // Most schedules: no copies at all.
  std::vector<std::vector<size_t>> open(graph.size());
  for (const Step &step : schedule.steps) {
    if (step.node < 0 || step.node >= graph.size())
      continue;
    std::vector<size_t> &queue = open[step.node];
    if (step.kind == Step::Kind::Offload) {
      queue.push_back(waited.size());
      waited.push_back(0);
    } else if (step.kind == Step::Kind::Wait && !queue.empty()) {
      waited[queue.front()] = 1;
      queue.erase(queue.begin());
    }
  }
  return waited;
}

/// Releases the device bytes of `copy` (once), at step `index`.
void Replay::releaseOffload(OffloadCopy &copy, size_t index) {
  if (copy.released)
    return;
  copy.released = true;
  release(copy.instance, index);
  sim.offloadEnds[&copy - offloads.data()] = index;
}

/// Ends the copies done by `now`: offloaded device bytes (of an offload a
/// wait names, once waited for) and prefetched host bytes stop counting (at
/// step `index`).
void Replay::retire(double now, size_t index) {
  while (!toHost.empty() && toHost.front().done <= now) {
    OffloadCopy &copy = offloads[toHost.front().offload];
    copy.copied = true;
    if (!copy.hasWait || copy.waited)
      releaseOffload(copy, index);
    toHost.pop_front();
  }
  while (!toDevice.empty() && toDevice.front().done <= now) {
    hostBytes -= toDevice.front().hostBytes;
    toDevice.pop_front();
  }
}

void Replay::allocate(size_t index, int id, int64_t bytes) {
  instances.push_back({bytes, 1, id, index, 0});
  instanceOf[id] = static_cast<int>(instances.size()) - 1;
  liveBytes += bytes;
  sim.peakBytes = std::max(sim.peakBytes, liveBytes);
}

std::string Replay::computeView(int id) {
  int base = graph.nodes[id].aliasOf;
  if (!live[base])
    return describe(graph, "view of node", base) + ", which is not live";
  int inst = instanceOf[base];
  if (inst >= 0)
    ++instances[inst].refs;
  instanceOf[id] = inst;
  return "";
}

std::string Replay::compute(size_t index, int id) {
  const Node &node = graph.nodes[id];
  if (onHost[id])
    return "the value is on the host: an offloaded value is prefetched, not "
           "computed again";
  if (live[id])
    return "the value is already live";
  double start = clock;
  for (int dep : node.deps) {
    if (!live[dep])
      return unreadable(dep);
    if (link)
      start = std::max(start, ready[dep]);
  }
  if (std::string order = checkOrderEdges(graph, id, computed); !order.empty())
    return order;
  const bool onLink =
      link && link->carriesGathers && node.gather == GatherRole::Gather;
  if (onLink)
    start = std::max({start, toHostFree, toDeviceFree});
  computed[id] = 1;
  sim.stall += start - clock;
  sim.startOfStep.back() = start;
  if (link)
    retire(start, index);
  if (node.isView()) {
    if (std::string why = computeView(id); !why.empty())
      return why;
  } else {
    allocate(index, id, node.bytes);
  }
  live[id] = 1;
  sim.cost += node.cost;
  clock = start + node.cost;
  if (onLink)
    toHostFree = toDeviceFree = clock;
  return "";
}

std::string Replay::free(size_t index, int id) {
  if (onHost[id])
    return "the value is on the host: it is prefetched, then freed";
  if (!live[id])
    return "the value is not live";
  release(instanceOf[id], index);
  instanceOf[id] = -1;
  live[id] = 0;
  return "";
}

std::string Replay::offload(int id) {
  if (!link)
    return "offloading needs a host link";
  if (!live[id])
    return "the value is not live";
  int inst = instanceOf[id];
  if (inst < 0 || instances[inst].refs != 1)
    return "only a value alone on its storage can be offloaded (no other "
           "live value may share it)";
  int64_t bytes = onHostBytes[id] = instances[inst].bytes;
  double start = std::max(clock, toHostFree);
  toHostFree = offloadDone[id] = start + link->copyCost(bytes);
  bool hasWait = offloads.size() < waitedOffloads.size() &&
                 waitedOffloads[offloads.size()];
  if (hasWait)
    awaiting[id].push_back(static_cast<int>(offloads.size()));
  toHost.push_back({toHostFree, static_cast<int>(offloads.size()), 0});
  offloads.push_back({inst, toHostFree, hasWait});
  sim.offloadEnds.push_back(std::numeric_limits<size_t>::max());
  hostBytes += bytes;
  sim.hostPeakBytes = std::max(sim.hostPeakBytes, hostBytes);
  ++sim.copies;
  sim.bytesMoved += bytes;
  instanceOf[id] = -1;
  live[id] = 0;
  onHost[id] = 1;
  return "";
}

std::string Replay::prefetch(size_t index, int id) {
  if (!link)
    return "prefetching needs a host link";
  if (!onHost[id])
    return "the value is not on the host";
  retire(clock, index);
  int64_t bytes = onHostBytes[id];
  allocate(index, id, bytes);
  double start = std::max({clock, toDeviceFree, offloadDone[id]});
  toDeviceFree = ready[id] = start + link->copyCost(bytes);
  toDevice.push_back({toDeviceFree, -1, bytes});
  ++sim.copies;
  sim.bytesMoved += bytes;
  onHost[id] = 0;
  live[id] = 1;
  return "";
}

std::string Replay::wait(size_t index, int id) {
  if (awaiting.empty() || awaiting[id].empty())
    return "no offload of the value is waiting for it";
  OffloadCopy &copy = offloads[awaiting[id].front()];
  awaiting[id].erase(awaiting[id].begin());
  copy.waited = true;
  if (copy.copied || copy.done <= clock)
    releaseOffload(copy, index);
  return "";
}

std::string Replay::finish() {
  for (int id = 0; id < graph.size(); ++id)
    if (onHost[id])
      return describe(graph, "node", id) + " is offloaded and never prefetched";
  for (int out : graph.outputs) {
    if (out < 0 || out >= graph.size()) {
      std::ostringstream os;
      os << "output " << out << " does not exist";
      return os.str();
    }
    if (!live[out])
      return describe(graph, "output", out) +
             " is not live at the end of the schedule";
  }
  sim.time = std::max({clock, toHostFree, toDeviceFree});
  return "";
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
                           std::vector<StorageLifetime> *lifetimes,
                           const HostLink *link) {
  Simulation sim;
  Replay replay(graph, schedule, link, sim);
  const size_t steps = schedule.steps.size();
  replay.instances.reserve(steps);
  sim.liveAfterStep.reserve(steps);
  sim.startOfStep.reserve(steps);
  for (size_t index = 0; index < steps; ++index) {
    const Step &step = schedule.steps[index];
    std::string why;
    if (step.node < 0 || step.node >= graph.size())
      why = "no such node";
    else if (graph.nodes[step.node].isResident())
      why = "inputs and parameters are resident; they are never computed, "
            "freed or moved";
    else
      why = replay.step(index, step);
    if (!why.empty()) {
      sim.error = stepName(graph, index, step) + ": " + why;
      return sim;
    }
    sim.liveAfterStep.push_back(replay.liveBytes);
  }
  sim.error = replay.finish();
  for (size_t &end : sim.offloadEnds)
    end = std::min(end, steps);
  if (sim.valid() && lifetimes)
    recordLifetimes(replay.instances, steps, *lifetimes);
  return sim;
}

std::vector<int> remat::computeOrderOf(const Schedule &schedule) {
  std::vector<int> order;
  for (const Step &step : schedule.steps)
    if (step.kind == Step::Kind::Compute)
      order.push_back(step.node);
  return order;
}

Schedule remat::scheduleAtLastUse(const Graph &graph,
                                  const std::vector<Step> &steps,
                                  std::string *error) {
  const int n = graph.size();
  std::vector<Step> events;
  events.reserve(steps.size());
  for (const Step &step : steps)
    if (step.kind != Step::Kind::Free)
      events.push_back(step);
  const size_t len = events.size();
  // One instance per compute or prefetch event: the event that created it
  // and the last event that read it; an offload ends its instance without
  // a free (the copy takes its bytes).
  std::vector<int> current(n, -1); // node -> position that computed it
  std::vector<size_t> lastRead(len, 0);
  std::vector<char> lastCopy(len, 0), offloaded(len, 0);
  std::vector<char> isOutput = graph.outputMask();
  for (size_t pos = 0; pos < len; ++pos) {
    int id = events[pos].node;
    Step::Kind kind = events[pos].kind;
    bool computes = kind == Step::Kind::Compute;
    if (id < 0 || id >= n || (computes && graph.nodes[id].isResident())) {
      if (error) {
        std::ostringstream os;
        os << "compute order position " << pos << " names node " << id
           << ", which cannot be computed";
        *error = os.str();
      }
      return {};
    }
    if (kind == Step::Kind::Offload) {
      if (current[id] >= 0)
        offloaded[current[id]] = 1;
      current[id] = -1;
      continue;
    }
    if (kind == Step::Kind::Wait)
      continue;
    bool ok = true;
    if (computes)
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
    Step::Kind kind = events[pos].kind;
    return kind != Step::Kind::Offload && kind != Step::Kind::Wait &&
           !offloaded[pos] && !(lastCopy[pos] && isOutput[events[pos].node]);
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
      frees[fill[lastRead[pos]]++] = events[pos].node;
  Schedule schedule;
  schedule.steps.reserve(len + frees.size());
  for (size_t pos = 0; pos < len; ++pos) {
    schedule.steps.push_back(events[pos]);
    for (int i = freeStart[pos]; i < freeStart[pos + 1]; ++i)
      schedule.steps.push_back(Step::free(frees[i]));
  }
  return schedule;
}

Schedule remat::scheduleFromComputeOrder(const Graph &graph,
                                         const std::vector<int> &order,
                                         std::string *error) {
  std::vector<Step> steps;
  steps.reserve(order.size());
  for (int id : order)
    steps.push_back(Step::compute(id));
  return scheduleAtLastUse(graph, steps, error);
}
