//===- SolverSupport.cpp - helpers every checkpoint solver shares ---------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Core/SolverSupport.h"

#include "remat/Solver/Core/Ordering.h"
#include "remat/Solver/Core/Simulator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

using namespace remat;

std::vector<char> remat::neededNodes(const Graph &graph) {
  std::vector<char> needed(graph.size(), 0);
  for (int out : graph.outputs)
    if (out >= 0 && out < graph.size())
      needed[out] = 1;
  for (int id = graph.size() - 1; id >= 0; --id) {
    if (!needed[id])
      continue;
    for (int dep : graph.nodes[id].deps)
      needed[dep] = 1;
    if (graph.nodes[id].isView())
      needed[graph.nodes[id].aliasOf] = 1;
  }
  for (int id = 0; id < graph.size(); ++id)
    if (graph.nodes[id].isResident())
      needed[id] = 0;
  return needed;
}

double remat::checkpointAllCost(const Graph &graph) {
  std::vector<char> needed = neededNodes(graph);
  double total = 0;
  for (int id = 0; id < graph.size(); ++id)
    if (needed[id])
      total += graph.nodes[id].cost;
  return total;
}

double remat::forwardPassCost(const Graph &graph) {
  std::vector<char> needed = neededNodes(graph);
  double total = 0;
  for (int id = 0; id < graph.size(); ++id)
    if (needed[id] && graph.nodes[id].kind == NodeKind::Forward)
      total += graph.nodes[id].cost;
  return total;
}

double remat::costLimit(const Graph &graph, const SolveOptions &options) {
  if (options.objective != Objective::MinPeakUnderOverhead)
    return std::numeric_limits<double>::infinity();
  double base = checkpointAllCost(graph);
  if (options.maxOverhead < 0)
    return base + forwardPassCost(graph);
  return base * (1 + options.maxOverhead);
}

double remat::costScale(const Graph &graph) {
  std::vector<char> needed = neededNodes(graph);
  double cost = 0, bytes = 0;
  for (int id = 0; id < graph.size(); ++id)
    if (needed[id]) {
      cost += graph.nodes[id].cost;
      bytes += static_cast<double>(graph.nodes[id].bytes);
    }
  if (!(cost > 0) || !(bytes > 0) || !std::isfinite(bytes / cost))
    return 1;
  return bytes / cost;
}

/// `options` whose progress reports give costs divided by `scale`.
static SolveOptions reportUnscaled(const SolveOptions &options, double scale) {
  SolveOptions out = options;
  if (!options.progress)
    return out;
  bool boundIsCost = options.objective == Objective::MinComputeUnderBudget;
  out.progress = [callback = options.progress, scale,
                  boundIsCost](const SolveProgress &report) {
    SolveProgress copy = report;
    if (copy.incumbentCost >= 0)
      copy.incumbentCost /= scale;
    if (boundIsCost && copy.lowerBound >= 0)
      copy.lowerBound /= scale;
    callback(copy);
  };
  return out;
}

SolveResult remat::solveOnCostScale(const SolverFn &solve, const Graph &graph,
                                    const SolveOptions &options) {
  const double scale = costScale(graph);
  if (std::fabs(scale - 1) <= 1e-12)
    return solve(graph, options);
  Graph scaled = graph;
  for (Node &node : scaled.nodes) {
    node.cost *= scale;
    node.costPerSample *= scale;
  }
  SolveResult result = solve(scaled, reportUnscaled(options, scale));
  // The plan's cost in the graph's unit, as the simulator prices it there.
  if (result.feasible())
    result.cost = simulate(graph, result.schedule).cost;
  else
    result.cost /= scale;
  if (options.objective == Objective::MinComputeUnderBudget &&
      result.lowerBound >= 0)
    result.lowerBound /= scale;
  return result;
}

/// Bytes of the distinct non-resident storage behind `ids` (a view counts
/// its base once).
static int64_t storageBytes(const Graph &graph, std::vector<int> ids) {
  for (int &id : ids)
    id = graph.storageOf(id);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  int64_t sum = 0;
  for (int root : ids)
    if (!graph.nodes[root].isResident())
      sum += graph.nodes[root].bytes;
  return sum;
}

std::vector<int> remat::offloadedNodes(const Schedule &schedule) {
  std::vector<int> nodes;
  for (const Step &step : schedule.steps)
    if (step.kind == Step::Kind::Offload)
      nodes.push_back(step.node);
  return nodes;
}

int64_t remat::operandStorageBytes(const Graph &graph, int id) {
  std::vector<int> ids = graph.nodes[id].deps;
  ids.push_back(id);
  return storageBytes(graph, std::move(ids));
}

PeakBound remat::peakBound(const Graph &graph) {
  PeakBound bound;
  bound.residentBytes = graph.residentBytes();
  std::vector<int> outputs;
  for (int out : graph.outputs)
    if (out >= 0 && out < graph.size())
      outputs.push_back(out);
  int64_t best = storageBytes(graph, std::move(outputs));
  std::vector<char> needed = neededNodes(graph);
  for (int id = 0; id < graph.size(); ++id) {
    if (!needed[id])
      continue;
    int64_t bytes = operandStorageBytes(graph, id);
    if (bytes > best) {
      best = bytes;
      bound.node = id;
    }
  }
  bound.bytes = bound.residentBytes + best;
  return bound;
}

std::string PeakBound::describe(const Graph &graph) const {
  std::ostringstream os;
  os << "resident bytes " << residentBytes << " plus ";
  if (node < 0) {
    os << "the graph's outputs (" << bytes - residentBytes
       << " bytes, all live at the end)";
    return os.str();
  }
  os << "node " << node;
  if (!graph.nodes[node].name.empty())
    os << " ('" << graph.nodes[node].name << "')";
  os << " and its operands (" << bytes - residentBytes
     << " bytes, all live while it is computed)";
  return os.str();
}

int64_t remat::peakLowerBound(const Graph &graph) {
  return peakBound(graph).bytes;
}

bool remat::isBetter(const SolveOptions &options, double limit, int64_t peakA,
                     double costA, int64_t peakB, double costB) {
  const double slack = 1e-9 * std::max(1.0, std::abs(limit));
  auto meets = [&](int64_t peak, double cost) {
    return peak <= options.budget && cost <= limit + slack;
  };
  bool okA = meets(peakA, costA), okB = meets(peakB, costB);
  if (okA != okB)
    return okA;
  bool minPeak = options.objective == Objective::MinPeakUnderOverhead;
  if (!okA) {
    // Neither meets the constraints: prefer the one closer to them.
    if (minPeak && (costA > limit + slack || costB > limit + slack))
      return costA != costB ? costA < costB : peakA < peakB;
    return peakA != peakB ? peakA < peakB : costA < costB;
  }
  if (minPeak)
    return peakA != peakB ? peakA < peakB : costA < costB;
  return costA != costB ? costA < costB : peakA < peakB;
}

bool remat::isBetterResult(const SolveOptions &options, double limit,
                           const SolveResult &a, const SolveResult &b) {
  if (a.feasible() != b.feasible())
    return a.feasible();
  return isBetter(options, limit, a.peakBytes, a.cost, b.peakBytes, b.cost);
}

int remat::recomputedPin(const Graph &graph, const Schedule &schedule) {
  std::vector<char> seen(graph.size(), 0);
  for (const Step &step : schedule.steps) {
    if (step.kind != Step::Kind::Compute || step.node < 0 ||
        step.node >= graph.size() ||
        graph.nodes[step.node].keep != KeepPolicy::Always)
      continue;
    if (seen[step.node])
      return step.node;
    seen[step.node] = 1;
  }
  return -1;
}

namespace {
/// Which kinds of computation read the current copy of each node, for the
/// `keep = never` rule (sharedNeverPin): the forward pass (a forward node's
/// first copy, class 1) or a recomputation (a backward node, or a forward
/// node computed again, class 2). A read of a view reads its bases too.
class NeverPinReads {
public:
  explicit NeverPinReads(const Graph &graph)
      : graph(graph), readers(graph.size(), 0), seen(graph.size(), 0) {}

  /// The class of computing `id` now.
  char classOf(int id) const {
    return graph.nodes[id].kind == NodeKind::Forward && !seen[id] ? 1 : 2;
  }

  /// The first `never` node in the view chain of `dep` whose copy the other
  /// class than `cls` already reads, or -1.
  int conflict(int dep, char cls) const {
    for (int id = dep; id >= 0; id = graph.nodes[id].aliasOf)
      if (!graph.nodes[id].isResident() &&
          graph.nodes[id].keep == KeepPolicy::Never &&
          (readers[id] & (3 - cls)))
        return id;
    return -1;
  }

  /// Records computing `id` as `cls`: a new copy of it, read by no one.
  void compute(int id, char cls) {
    forEachRead(graph.nodes[id], [&](int dep) {
      for (int v = dep; v >= 0; v = graph.nodes[v].aliasOf)
        readers[v] |= cls;
    });
    readers[id] = 0;
    seen[id] = 1;
  }

private:
  const Graph &graph;
  std::vector<char> readers, seen;
};
} // namespace

static bool hasNeverPin(const Graph &graph) {
  return std::any_of(
      graph.nodes.begin(), graph.nodes.end(),
      [](const Node &node) { return node.keep == KeepPolicy::Never; });
}

int remat::sharedNeverPin(const Graph &graph, const Schedule &schedule) {
  if (!hasNeverPin(graph))
    return -1;
  NeverPinReads reads(graph);
  for (const Step &step : schedule.steps) {
    if (step.kind != Step::Kind::Compute || step.node < 0 ||
        step.node >= graph.size())
      continue;
    char cls = reads.classOf(step.node);
    int shared = -1;
    forEachRead(graph.nodes[step.node], [&](int dep) {
      if (shared < 0)
        shared = reads.conflict(dep, cls);
    });
    if (shared >= 0)
      return shared;
    reads.compute(step.node, cls);
  }
  return -1;
}

std::vector<int> remat::honorNeverPins(const Graph &graph,
                                       const std::vector<int> &order) {
  if (!hasNeverPin(graph))
    return order;
  NeverPinReads reads(graph);
  std::vector<int> result;
  result.reserve(order.size());
  // Computes `id` as `cls`, first computing again each value it reads whose
  // `never` copy the other class reads (as a recomputation, recursively).
  auto emit = [&](auto &self, int id, char cls) -> void {
    forEachRead(graph.nodes[id], [&](int dep) {
      if (reads.conflict(dep, cls) >= 0)
        self(self, dep, 2);
    });
    result.push_back(id);
    reads.compute(id, cls);
  };
  for (int id : order)
    emit(emit, id, reads.classOf(id));
  return result;
}

Simulation remat::repairWherePeakMatters(const Graph &graph,
                                         const SolveOptions &options,
                                         Schedule &schedule, WorkMeter &meter) {
  Simulation sim = simulate(graph, schedule);
  if (!sim.valid() || (sim.peakBytes <= options.budget &&
                       options.objective != Objective::MinPeakUnderOverhead))
    return sim;
  std::vector<int> order = computeOrderOf(schedule);
  WorkMeter repair(meter, std::max(meter.left(), meter.part(kRepairShare)));
  Schedule repaired =
      scheduleFromComputeOrder(graph, repairPeak(graph, order, &repair));
  meter.charge(repair);
  Simulation after = simulate(graph, repaired);
  if (!after.valid() || after.peakBytes >= sim.peakBytes)
    return sim;
  schedule = std::move(repaired);
  return after;
}

/// "node N ('name')" for a pinned node in a diagnostic.
static std::string describePin(const Graph &graph, int id) {
  std::string text = "node " + std::to_string(id);
  if (!graph.nodes[id].name.empty())
    text += " ('" + graph.nodes[id].name + "')";
  return text;
}

/// Whether `sim` of a schedule meets `options`; otherwise why not.
static std::string whyNotFeasible(const Graph &graph,
                                  const SolveOptions &options,
                                  const Schedule &schedule,
                                  const Simulation &sim) {
  std::ostringstream why;
  if (!sim.valid()) {
    why << "internal error: the simulator rejected the schedule: " << sim.error;
  } else if (int pinned = recomputedPin(graph, schedule); pinned >= 0) {
    why << describePin(graph, pinned) << " is pinned keep = always but the "
        << "schedule recomputes it";
  } else if (int pinned = sharedNeverPin(graph, schedule); pinned >= 0) {
    why << describePin(graph, pinned) << " is pinned keep = never but the "
        << "backward pass reads the forward pass's copy of it";
  } else if (sim.peakBytes > options.budget) {
    why << "the best schedule found peaks at " << sim.peakBytes
        << " bytes, over the budget of " << options.budget << " bytes";
  } else {
    double limit = costLimit(graph, options);
    if (sim.cost > limit + 1e-9 * std::max(1.0, limit))
      why << "the best schedule found costs " << sim.cost
          << ", over the allowed " << limit;
  }
  return why.str();
}

SolveResult remat::finishSolve(const Graph &graph, const SolveOptions &options,
                               const std::string &solver, Schedule schedule,
                               SolveStatus claimed, WorkMeter &meter,
                               const std::string &message) {
  SolveResult result;
  result.solver = solver;
  result.message = message;
  if (hasNeverPin(graph)) {
    std::vector<int> order = computeOrderOf(schedule);
    std::vector<int> honored = honorNeverPins(graph, order);
    if (honored != order) {
      schedule = scheduleFromComputeOrder(graph, honored);
      if (claimed == SolveStatus::Optimal)
        claimed = SolveStatus::Feasible;
    }
  }
  Simulation sim = repairWherePeakMatters(graph, options, schedule, meter);
  result.schedule = std::move(schedule);
  result.peakBytes = sim.peakBytes;
  result.cost = sim.cost;
  result.status = claimed;
  if (claimed != SolveStatus::Optimal && claimed != SolveStatus::Feasible)
    result.status = SolveStatus::Feasible;
  std::string why = whyNotFeasible(graph, options, result.schedule, sim);
  if (!why.empty()) {
    result.status = SolveStatus::Infeasible;
    result.message = message.empty() ? why : why + "; " + message;
  }
  result.seconds = meter.seconds();
  result.work = meter.used();
  result.stoppedByTimeLimit = meter.stoppedByTimeLimit();
  return result;
}

SolveResult remat::failSolve(const std::string &solver, SolveStatus status,
                             const std::string &message,
                             const WorkMeter &meter) {
  SolveResult result;
  result.solver = solver;
  result.status = status;
  result.message = message;
  result.seconds = meter.seconds();
  result.work = meter.used();
  result.stoppedByTimeLimit = meter.stoppedByTimeLimit();
  return result;
}
