//===- Problem.h - checkpointing problem model ------------------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The problem every checkpoint solver works on, in plain C++ (no MLIR): a DAG
// of tensor-producing nodes of a training step in a topological order, with
// bytes and compute cost per node, and a schedule of compute/free steps that
// any solver returns and the simulator (Simulator.h) verifies. A schedule
// may also move values to host memory and back (offload and prefetch steps,
// on a copy stream of a host link: HostLink.h); only the offload planner
// (Offload.h) writes those.
//
// Memory model (the one the simulator, every solver and the MLIR analysis
// share):
//   * `fixedBytes` plus every input/param node is resident the whole step;
//     they are never computed or freed by a schedule.
//   * A forward/backward node's value is live from the step that computes it
//     to the step that frees it; its bytes count while live.
//   * A view (`aliasOf >= 0`) owns no bytes: it shares its base's storage and
//     keeps the base's bytes counted while the view is live, even after the
//     base itself was freed.
//   * Peak = the largest live total after any compute step (a node's output
//     is allocated while its operands are still resident).
//   * The graph's outputs must be computed and resident at the end.
//   * Ordering edges (`after`) order computations without reading anything:
//     a node may be computed only once each node it comes after has been
//     computed (program order of ops with memory effects); they keep no
//     value live.
//
// Batch scaling (optional, for the max-batch mode): a graph traced at
// `batch` samples gives each node the part of its bytes and cost that is
// per sample; the rest is fixed. At b samples a node holds
// `bytes + (b - batch) * bytesPerSample` bytes (and likewise for cost):
// activations and their gradients scale, parameters, their gradients and
// every reduction over the batch do not.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_CORE_PROBLEM_H
#define REMAT_SOLVER_CORE_PROBLEM_H

#include <cstdint>
#include <string>
#include <vector>

namespace remat {

/// What a node of a training graph is.
enum class NodeKind {
  Input,    ///< A function argument holding data; always resident.
  Param,    ///< A weight; always resident.
  Forward,  ///< Computed by the forward pass; candidate for recomputation.
  Backward, ///< Computed by the backward pass (gradients, updates).
};

/// A user's pin on a node, overriding the solver's choice.
enum class KeepPolicy {
  Default, ///< The solver decides.
  Always,  ///< Keep the value from its computation to its last use.
  Never,   ///< Do not keep it across the forward/backward boundary: what
           ///< reads it in the backward (or recomputes from it) reads a
           ///< copy computed again (sharedNeverPin, SolverSupport.h).
};

/// The largest number of bytes a graph may hold in all (2^62, 4 EiB), more
/// than any memory: every sum of sizes the solvers form (live bytes, peaks,
/// resident bytes) then fits in int64_t. `Graph::check` rejects larger graphs.
constexpr int64_t kMaxTotalBytes = int64_t(1) << 62;

/// The largest total cost a graph may hold: a schedule recomputes each node
/// at most a few million times, so its cost stays finite in a double.
constexpr double kMaxTotalCost = 1e200;

/// Adds `bytes` (non-negative) to `total` unless the sum would exceed
/// kMaxTotalBytes; returns whether it did.
inline bool addBytes(int64_t &total, int64_t bytes) {
  if (bytes < 0 || bytes > kMaxTotalBytes - total)
    return false;
  total += bytes;
  return true;
}

/// What a node is to a sharded step's parameter gathers: a gather of a
/// parameter shard, or a value computed from gathered parameters only
/// (re-gathering drops such a copy with the gather). Set on the nodes whose
/// pin a gather policy decides (GatherPolicy).
enum class GatherRole { None, Gather, Derived };

/// What a plan may do with the parameter gathers of a sharded step.
enum class GatherPolicy {
  /// Keep or gather again, whichever the plan needs (the default).
  Plan,
  /// Keep every gathered parameter to its last use (ZeRO-2-like): each
  /// gather pinned `Always`.
  Keep,
  /// Gather every parameter again for its backward use (FSDP's
  /// reshard-after-forward): gathers and derived copies pinned `Never`.
  Regather,
};

/// One tensor-producing node.
struct Node {
  std::string name;
  /// Bytes of storage the value owns; 0 for a view.
  int64_t bytes = 0;
  /// Cost to compute it once (FLOPs or time, in any consistent unit).
  double cost = 0;
  /// Nodes it reads, all of which come earlier in the order.
  std::vector<int> deps;
  /// Earlier nodes that must each have been computed before any
  /// computation of this one, without this one reading them: the program
  /// order of ops with memory effects. An ordering edge extends no value's
  /// liveness.
  std::vector<int> after;
  NodeKind kind = NodeKind::Forward;
  /// For a view: the node whose storage it shares; -1 otherwise.
  int aliasOf = -1;
  KeepPolicy keep = KeepPolicy::Default;
  GatherRole gather = GatherRole::None;
  /// The parts of `bytes` and `cost` that are per sample of the graph's
  /// batch (0: fixed); `bytesPerSample * batch <= bytes`.
  int64_t bytesPerSample = 0;
  double costPerSample = 0;

  bool isResident() const {
    return kind == NodeKind::Input || kind == NodeKind::Param;
  }
  bool isView() const { return aliasOf >= 0; }
  /// The module path of the layer that computed it (`transformer.h.3.attn`),
  /// empty when unknown: a hint for finding repeated blocks (Blocks.h).
  std::string module;
  /// The op kind as the graph records it (`mm`, `bmm`, `add`), empty when
  /// unknown: what selective checkpointing keeps (Blocks.h).
  std::string op;
  /// With several results, the bytes of each (summing to `bytes`): a
  /// lowering gives each its own buffer, so an arena aligns each
  /// (arenaOfSchedule). Empty: one buffer of `bytes`.
  std::vector<int64_t> partBytes;
};

/// Calls `fn` on every value `node` reads: its dependencies and, for a view,
/// its base.
template <typename Fn> void forEachRead(const Node &node, Fn fn) {
  for (int dep : node.deps)
    fn(dep);
  if (node.isView())
    fn(node.aliasOf);
}

/// A training graph: nodes in a topological order, node ids = positions.
struct Graph {
  std::string name;
  /// Resident bytes that are not nodes (optimizer state, workspace, ...);
  /// they do not scale with the batch.
  int64_t fixedBytes = 0;
  /// Samples in the batch the graph was traced at, which the nodes' bytes
  /// and costs are for; 0 when the graph carries no batch scaling.
  int64_t batch = 0;
  std::vector<Node> nodes;
  /// Nodes that must be resident when the step ends (loss, gradients, ...).
  std::vector<int> outputs;

  int size() const { return static_cast<int>(nodes.size()); }

  /// Checks the graph is well formed: deps point backwards and in range,
  /// sizes and costs are non-negative and their totals at most
  /// kMaxTotalBytes and kMaxTotalCost, a view's base is an earlier node,
  /// ordering edges (`after`) point to earlier computed nodes (not inputs or
  /// params), outputs are in range, per-sample parts are non-negative,
  /// within the totals at `batch`, and zero when `batch` is 0. Returns an
  /// empty string when well formed, else a message naming the offending
  /// node.
  std::string check() const;

  /// The part of `check` on totals: an empty string when the sizes add up to
  /// at most kMaxTotalBytes and the costs to at most kMaxTotalCost.
  std::string checkTotals() const;

  /// Users of each node (the inverse of `deps`), sorted ascending.
  std::vector<std::vector<int>> users() const;

  /// Per node, whether it is one of `outputs` (those out of range skipped).
  std::vector<char> outputMask() const;

  /// The node whose storage `id` uses: itself, or its base for a view
  /// (following chains of views).
  int storageOf(int id) const;

  /// Whether the graph says how its nodes scale with the batch.
  bool hasBatchScaling() const { return batch > 0; }

  /// Bytes always resident: `fixedBytes` plus the input and param nodes.
  int64_t residentBytes() const;

  /// The device the costs are times on, in picoseconds (the graph JSON's
  /// `device`); empty when they are FLOPs. Prices host copies (HostLink.h).
  std::string device;
};

/// One step of a schedule.
struct Step {
  enum class Kind {
    Compute,
    Free,
    /// Starts copying a live value to host memory on the copy stream: the
    /// value is no longer readable on the device, and its device bytes stop
    /// counting once the copy is done (Simulator.h).
    Offload,
    /// Starts copying an offloaded value back: its device bytes count from
    /// here, and a step reading it waits until the copy is done.
    Prefetch,
    /// Marks where the device bytes of the node's oldest offload not yet
    /// waited for may go: they stop counting here, or when that copy is
    /// done if it is later (Simulator.h). An offload without a wait frees
    /// its bytes when its copy is done. Waits make the lifetimes a program
    /// gives its buffers those the link times give (placeOffloadWaits).
    Wait,
  };
  Kind kind;
  int node;

  static Step compute(int node) { return {Kind::Compute, node}; }
  static Step free(int node) { return {Kind::Free, node}; }
  static Step offload(int node) { return {Kind::Offload, node}; }
  static Step prefetch(int node) { return {Kind::Prefetch, node}; }
  static Step wait(int node) { return {Kind::Wait, node}; }
  bool operator==(const Step &other) const {
    return kind == other.kind && node == other.node;
  }
};

/// A sequence of compute and free steps (and offload, prefetch and wait
/// steps). A node may be computed more than once (that is
/// rematerialization); it must be freed before it is computed again.
struct Schedule {
  std::vector<Step> steps;
};

/// The name of a step kind as the result JSON writes it: "compute", "free",
/// "offload", "prefetch", "wait".
const char *toString(Step::Kind kind);

/// Sets the pins `policy` gives the nodes of `graph` with a gather role.
void applyGatherPolicy(GatherPolicy policy, Graph &graph);

/// Whether `graph` has nodes with a gather role and none of them is pinned
/// (it was built with GatherPolicy::Plan): the fixed policies' plans are
/// then plans of it too.
bool hasUnpinnedGathers(const Graph &graph);

} // namespace remat

#endif // REMAT_SOLVER_CORE_PROBLEM_H
