//===- GraphBuilder.cpp - training-step IR to checkpoint problem ----------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/GraphBuilder.h"

#include "remat/Analysis/BatchAnalysis.h"
#include "remat/Analysis/CostModel.h"
#include "remat/Analysis/MemoryAnalysis.h"
#include "remat/Analysis/Storage.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace remat;

int FunctionGraph::nodeOf(Value value) const {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (arg.getOwner()->isEntryBlock() && arg.getArgNumber() < argNodes.size())
      return argNodes[arg.getArgNumber()];
    return -1;
  }
  auto it = opNodes.find(value.getDefiningOp());
  return it == opNodes.end() ? -1 : it->second;
}

bool remat::isFreeOp(Operation *op) {
  return op->getNumOperands() == 0 && op->getNumRegions() == 0 &&
         op->hasTrait<OpTrait::ConstantLike>();
}

bool remat::isRecomputable(Operation *op) {
  if (!isMemoryEffectFree(op))
    return false;
  bool hasCollective = false;
  op->walk([&](Operation *nested) {
    hasCollective = isCollectiveOp(nested) && !isParameterGather(nested);
    return hasCollective ? WalkResult::interrupt() : WalkResult::advance();
  });
  return !hasCollective;
}

bool remat::keepsEffectOrder(Operation *op) {
  return !isRecomputable(op) && !isParameterGather(op);
}

/// Checks the collectives of `func`: none may hide inside a region op (the
/// planner sees a region op as one node and could not keep the collective
/// in place), and all `shard` collectives run on one grid (the plan is made
/// for one rank of one grid). Emits a located error on failure.
static LogicalResult checkCollectives(Block &body) {
  FlatSymbolRefAttr grid;
  Operation *gridUser = nullptr;
  for (Operation &op : body.without_terminator()) {
    if (op.getNumRegions() > 0) {
      Operation *hidden = nullptr;
      op.walk([&](Operation *nested) {
        if (nested != &op && isCollectiveOp(nested))
          hidden = nested;
        return hidden ? WalkResult::interrupt() : WalkResult::advance();
      });
      if (hidden) {
        InFlightDiagnostic diag =
            op.emitError() << "'" << op.getName()
                           << "' holds a collective: the planner treats a "
                              "region op as one node and cannot keep the "
                              "collective in place on every rank; move it "
                              "out of the region";
        diag.attachNote(hidden->getLoc()) << "collective here";
        return diag;
      }
    }
    FlatSymbolRefAttr opGrid = getCollectiveGrid(&op);
    if (!opGrid)
      continue;
    if (!grid) {
      grid = opGrid;
      gridUser = &op;
    } else if (opGrid != grid) {
      InFlightDiagnostic diag =
          op.emitError() << "collective on grid " << opGrid
                         << ", but an earlier one runs on grid " << grid
                         << ": a per-rank plan needs every collective of the "
                            "step on one grid";
      diag.attachNote(gridUser->getLoc()) << "earlier collective here";
      return diag;
    }
  }
  return success();
}

/// The value whose buffer the results of `op` alias: the source of a view
/// (Analysis/Storage.h), or the first operand of a `remat.barrier`.
static Value getAliasedValue(Operation *op) {
  if (isa<BarrierOp>(op))
    return op->getNumOperands() > 0 ? op->getOperand(0) : Value();
  return getViewSource(op);
}

/// `<op name>#<id>`, then `@<file>:<line>:<col>` or `@<name>` when the
/// location has one, so that a node of an exported graph names its op.
static std::string getNodeName(Operation *op, int id) {
  std::string name =
      op->getName().getStringRef().str() + "#" + std::to_string(id);
  std::string where;
  op->getLoc()->walk([&](Location loc) {
    if (auto file = dyn_cast<FileLineColLoc>(loc))
      where = (file.getFilename().strref() + ":" + Twine(file.getLine()) + ":" +
               Twine(file.getColumn()))
                  .str();
    else if (auto named = dyn_cast<NameLoc>(loc))
      where = named.getName().str();
    return where.empty() ? WalkResult::advance() : WalkResult::interrupt();
  });
  return where.empty() ? name : name + "@" + where;
}

/// The module path of the layer `op` came from (remat-import-torch's
/// `loc("transformer.h.3.attn/aten.mm")`: the part before the slash); empty
/// when its location names none. A hint for finding repeated blocks
/// (Blocks.h).
static std::string getModulePath(Operation *op) {
  std::string path;
  op->getLoc()->walk([&](Location loc) {
    if (auto named = dyn_cast<NameLoc>(loc)) {
      StringRef name = named.getName().strref();
      size_t slash = name.rfind('/');
      if (slash != StringRef::npos)
        path = name.take_front(slash).str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return path;
}

/// Gives the graph of `func` its batch scaling (Problem.h) from the IR
/// shapes: a node's bytes per sample are those of its results that carry
/// the batch (BatchAnalysis) divided by the batch size, its cost per sample
/// its cost divided by the batch size when its work grows with the batch.
/// Leaves the graph unscaled, saying why in `batchProblem`, when the step
/// has no batch.
static void fillBatchScaling(func::FuncOp func, unsigned numDataArgs,
                             std::optional<int64_t> hint,
                             FunctionGraph &result) {
  BatchAnalysis batch(func, numDataArgs, hint);
  result.batchProblem = batch.getProblem();
  const int64_t samples = batch.getBatchSize();
  if (samples == 0)
    return;
  Graph &graph = result.graph;
  graph.batch = samples;
  Block &body = func.getBody().front();
  for (auto [arg, id] : llvm::zip(body.getArguments(), result.argNodes))
    if (batch.scales(arg))
      graph.nodes[id].bytesPerSample = graph.nodes[id].bytes / samples;
  for (auto [op, id] : result.opNodes) {
    Node &node = graph.nodes[id];
    if (auto cost = op->getAttrOfType<CostAttr>(RematDialect::kCostAttrName))
      for (auto [value, bytes] : llvm::zip(op->getResults(), cost.getBytes()))
        if (batch.scales(value))
          node.bytesPerSample += bytes / samples;
    if (batch.scalesWork(op))
      node.costPerSample = node.cost / static_cast<double>(samples);
  }
}

/// Adds one resident node per argument of `func`, dynamic dimensions sized
/// by `hint`, the size the costs assume.
static LogicalResult addArgumentNodes(func::FuncOp func,
                                      const GraphBuilderOptions &options,
                                      std::optional<int64_t> hint,
                                      FunctionGraph &result) {
  Graph &graph = result.graph;
  for (BlockArgument arg : func.getBody().front().getArguments()) {
    std::optional<int64_t> bytes = getStorageBytes(arg.getType(), func, hint);
    if (!bytes)
      return mlir::emitError(func.getLoc())
             << "argument #" << arg.getArgNumber() << " of type "
             << arg.getType()
             << " has no static size; rematerialization needs static shapes "
                "or a size hint (remat-annotate-costs{dynamic-size-hint=N})";
    if (isSaturated(*bytes))
      return mlir::emitError(func.getLoc())
             << "argument #" << arg.getArgNumber() << " of type "
             << arg.getType() << " takes more than 2^63 bytes";
    Node node;
    node.name = "arg" + std::to_string(arg.getArgNumber());
    node.bytes = *bytes;
    node.kind = isDataArgument(func, arg.getArgNumber(), options.numDataArgs)
                    ? NodeKind::Input
                    : NodeKind::Param;
    result.argNodes.push_back(graph.size());
    result.nodeOps.push_back(nullptr);
    graph.nodes.push_back(std::move(node));
  }
  return success();
}

/// Whether `op` computes from gathered parameters only: it is a parameter
/// gather, or it reads at least one value of such an op (`derived`) and
/// otherwise only values that carry no data (tensor.empty, constants). A
/// transposed or cast copy of a gathered weight is one.
static bool isGatherDerived(Operation &op,
                            const llvm::DenseSet<Operation *> &derived) {
  if (isParameterGather(&op))
    return true;
  llvm::SetVector<Value> used(op.operand_begin(), op.operand_end());
  getUsedValuesDefinedAbove(op.getRegions(), used);
  bool readsGathered = false;
  for (Value value : used) {
    Operation *def = value.getDefiningOp();
    if (!def)
      return false;
    if (derived.contains(def))
      readsGathered = true;
    else if (def->getNumOperands() != 0 || !isMemoryEffectFree(def))
      return false;
  }
  return readsGathered;
}

/// The bytes, cost, kind and pin of the node of `op`, from its `remat.*`
/// attributes and whether it can be recomputed.
static FailureOr<Node> getOpNode(Operation &op, int id) {
  Node node;
  node.name = getNodeName(&op, id);
  node.op = op.getName().getStringRef().str();
  node.module = getModulePath(&op);
  auto cost = op.getAttrOfType<CostAttr>(RematDialect::kCostAttrName);
  bool hasTensorResult = llvm::any_of(op.getResultTypes(), [](Type type) {
    return isa<RankedTensorType, UnrankedTensorType>(type);
  });
  if (cost) {
    if (std::optional<std::string> why = getUnderstatedCostBytes(&op, cost))
      return op.emitOpError() << *why;
    node.bytes = cost.getTotalBytes();
    node.cost = cost.getComputeCost();
    if (cost.getBytes().size() > 1)
      node.partBytes.assign(cost.getBytes().begin(), cost.getBytes().end());
  } else if (hasTensorResult) {
    return op.emitError() << "op has no '" << RematDialect::kCostAttrName
                          << "' attribute; run --remat-annotate-costs "
                             "before planning rematerialization";
  }

  auto phase = op.getAttrOfType<PhaseAttr>(RematDialect::kPhaseAttrName);
  if (!phase)
    return op.emitError() << "op has no '" << RematDialect::kPhaseAttrName
                          << "' attribute; run --remat-infer-phases "
                             "before planning rematerialization";
  node.kind = phase.getValue() == Phase::Forward ? NodeKind::Forward
                                                 : NodeKind::Backward;

  bool recomputable = isRecomputable(&op);
  if (auto keep = op.getAttrOfType<KeepAttr>(RematDialect::kKeepAttrName)) {
    if (keep.getValue() == Keep::Never && !recomputable)
      return op.emitError() << "'" << RematDialect::kKeepAttrName
                            << " = #remat.keep<never>' on "
                            << (isCollectiveOp(&op) ? "a collective"
                                                    : "an op with memory "
                                                      "effects")
                            << ": it cannot be recomputed";
    node.keep = keep.getValue() == Keep::Always ? KeepPolicy::Always
                                                : KeepPolicy::Never;
  }
  if (!recomputable)
    node.keep = KeepPolicy::Always;
  return node;
}

namespace {
/// The collectives and ops with memory effects seen so far, for their order
/// edges (addCollectiveEdge, addEffectOrderEdge).
struct ProgramOrder {
  /// The last pinned collective (every collective but a parameter gather);
  /// -1 for none.
  int lastPinned = -1;
  /// The parameter gathers after it.
  llvm::SmallVector<int> gathers;
  /// The last node that keeps the effect order (keepsEffectOrder); -1 for
  /// none.
  int lastEffect = -1;
};
} // namespace

/// Whether node `target` is among `deps` or what they read, transitively.
static bool reaches(const Graph &graph, llvm::ArrayRef<int> deps, int target) {
  llvm::SmallVector<int> stack(deps.begin(), deps.end());
  llvm::DenseSet<int> seen(deps.begin(), deps.end());
  while (!stack.empty()) {
    int id = stack.pop_back_val();
    if (id == target)
      return true;
    for (int dep : graph.nodes[id].deps)
      if (dep >= target && seen.insert(dep).second)
        stack.push_back(dep);
  }
  return false;
}

/// Adds the order edges of the collective `op` to `deps`, so that no order
/// of the solvers moves a collective, or the first copy of a parameter
/// gather, across a pinned one: every collective reads the last pinned
/// collective before it, and a pinned collective reads each parameter
/// gather since that one which it does not already depend on (a gather
/// whose users its data does not reach: a residual branch's batch norm can
/// otherwise run before the other branch's gathered weights). A gather is
/// read by none otherwise: that would hold the gathered value until the
/// next pinned collective. Rematerialize checks the order.
static void addCollectiveEdge(Operation &op, const Graph &graph,
                              ProgramOrder &order,
                              llvm::SmallVector<int> &deps) {
  if (!isCollectiveOp(&op))
    return;
  if (order.lastPinned >= 0 && !llvm::is_contained(deps, order.lastPinned))
    deps.push_back(order.lastPinned);
  if (isParameterGather(&op)) {
    order.gathers.push_back(graph.size());
    return;
  }
  llvm::SmallVector<int> unordered;
  for (int gather : order.gathers)
    if (!reaches(graph, deps, gather))
      unordered.push_back(gather);
  deps.append(unordered.begin(), unordered.end());
  order.lastPinned = graph.size();
  order.gathers.clear();
}

/// Makes `op`'s node come after the previous op that keeps the effect order
/// when `op` keeps it too (an ordering edge, unless it reads that node); like
/// a reader, a forward op after a backward one runs in the backward.
static void addEffectOrderEdge(Operation &op, const Graph &graph,
                               ProgramOrder &order, Node &node) {
  if (!keepsEffectOrder(&op))
    return;
  int last = order.lastEffect;
  order.lastEffect = graph.size();
  if (last < 0 || llvm::is_contained(node.deps, last))
    return;
  node.after.push_back(last);
  if (graph.nodes[last].kind == NodeKind::Backward)
    node.kind = NodeKind::Backward;
}

/// Adds the dependencies of `op`'s node (operands and values captured by
/// regions, and the order edges of a collective or an op with memory
/// effects) and its view. A forward op
/// that reads a backward node (a collective of the forward phase, such as
/// the loss's all-reduce, ordered after the backward's collectives) runs in
/// the backward: its node is a backward node.
static void addOpEdges(Operation &op, FunctionGraph &result,
                       ProgramOrder &order, Node &node) {
  llvm::SetVector<Value> used(op.operand_begin(), op.operand_end());
  getUsedValuesDefinedAbove(op.getRegions(), used);
  llvm::SmallVector<int> deps;
  for (Value value : used) {
    int dep = result.nodeOf(value);
    if (dep >= 0 && !llvm::is_contained(deps, dep))
      deps.push_back(dep);
  }
  addCollectiveEdge(op, result.graph, order, deps);
  llvm::sort(deps);
  node.deps.assign(deps.begin(), deps.end());
  addEffectOrderEdge(op, result.graph, order, node);
  if (llvm::any_of(deps, [&](int dep) {
        return result.graph.nodes[dep].kind == NodeKind::Backward;
      }))
    node.kind = NodeKind::Backward;

  if (Value aliased = getAliasedValue(&op); node.bytes == 0 && aliased) {
    int base = result.nodeOf(aliased);
    if (base >= 0)
      node.aliasOf = base;
  }
}

/// The outputs: the nodes of the returned values, then nodes nobody uses.
static void addOutputs(Block &body, FunctionGraph &result) {
  Graph &graph = result.graph;
  for (Value value : body.getTerminator()->getOperands()) {
    int id = result.nodeOf(value);
    if (id >= 0 && !llvm::is_contained(graph.outputs, id))
      graph.outputs.push_back(id);
  }
  std::vector<std::vector<int>> users = graph.users();
  for (int id = 0; id < graph.size(); ++id)
    if (!graph.nodes[id].isResident() && users[id].empty() &&
        !llvm::is_contained(graph.outputs, id))
      graph.outputs.push_back(id);
}


FailureOr<FunctionGraph>
remat::buildFunctionGraph(func::FuncOp func,
                          const GraphBuilderOptions &options) {
  if (func.isExternal())
    return mlir::emitError(func.getLoc())
           << "cannot plan rematerialization of external "
              "function '"
           << func.getSymName() << "'";
  if (!func.getBody().hasOneBlock())
    return mlir::emitError(func.getLoc())
           << "rematerialization planning expects a single-block function, '"
           << func.getSymName() << "' has " << func.getBody().getBlocks().size()
           << " blocks";

  // The default of one data argument also fits a function without any.
  unsigned numArgs = func.getNumArguments();
  if (options.numDataArgs > std::max(numArgs, 1u))
    return mlir::emitError(func.getLoc())
           << "data-args=" << options.numDataArgs << " but '"
           << func.getSymName() << "' has only " << numArgs << " argument(s)";

  FunctionGraph result;
  Graph &graph = result.graph;
  graph.name = func.getSymName().str();
  // Costs are picoseconds on this device (AnnotateCosts.h): host copies are
  // priced in them.
  if (auto device =
          func->getAttrOfType<StringAttr>(RematDialect::kCostDeviceAttrName))
    graph.device = device.str();
  Block &body = func.getBody().front();
  std::optional<int64_t> hint = getDynamicSizeHint(func);
  if (failed(addArgumentNodes(func, options, hint, result)) ||
      failed(checkCollectives(body)))
    return failure();

  // Ops: one node each, except constants and the terminator.
  ProgramOrder order;
  llvm::DenseSet<Operation *> gatherDerived;
  for (Operation &op : body.without_terminator()) {
    if (isFreeOp(&op))
      continue;
    FailureOr<Node> node = getOpNode(op, graph.size());
    if (failed(node))
      return failure();
    if (isGatherDerived(op, gatherDerived)) {
      gatherDerived.insert(&op);
      if (node->keep == KeepPolicy::Default &&
          !op.hasAttr(RematDialect::kKeepAttrName))
        node->gather = isParameterGather(&op) ? GatherRole::Gather
                                              : GatherRole::Derived;
    }
    addOpEdges(op, result, order, *node);
    result.opNodes[&op] = graph.size();
    result.nodeOps.push_back(&op);
    graph.nodes.push_back(std::move(*node));
  }

  applyGatherPolicy(options.gatherPolicy, graph);
  // The most bytes of tensors defined inside one region op (an scf.for
  // body's temporaries), as the memory analysis counts them, each rounded up
  // to the arena's alignment. They live only while that op runs, but the op
  // is one node whose bytes are its results: reserving them for the whole
  // step keeps every plan the solver calls feasible within what
  // --remat-verify-memory measures.
  graph.fixedBytes =
      MemoryAnalysis(func).getLargestTransientBytes(options.transientAlignment);
  fillBatchScaling(func, options.numDataArgs, hint, result);
  addOutputs(body, result);

  // Sizes beyond any memory are the input's fault, not the builder's.
  if (std::string error = graph.checkTotals(); !error.empty())
    return mlir::emitError(func.getLoc()) << "cannot be planned: " << error;
  std::string error = graph.check();
  if (!error.empty())
    return mlir::emitError(func.getLoc())
           << "internal error: malformed problem graph: " << error;
  return result;
}
