//===- GraphBuilder.h - training-step IR to checkpoint problem --*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Translates a cost-annotated training step (one `func.func` on tensors whose
// ops carry `remat.cost` and `remat.phase`) into the solver's plain problem
// model (`remat::Graph`, Solver/Core/Problem.h), and keeps the mapping between
// nodes and IR so that a schedule can be written back.
//
// The translation (documented in docs/Rematerialization.md):
//   * Every function argument is a node, resident the whole step: the first
//     `numDataArgs` arguments are `Input`s, the others `Param`s (weights).
//     Their bytes are those of the argument type.
//   * Every other op of the body, except the terminator and constants
//     (`ConstantLike` ops, which are free and stay at the top of the body), is
//     ONE node: a multi-result op is computed, kept and freed as a whole; its
//     bytes are the sum of its results' `remat.cost` bytes. An op with
//     regions (`scf.for`, `scf.if`) is one node too: it is recomputed whole
//     or not at all, and nothing inside it is rematerialized.
//   * Tensors defined inside such a region live only while the op runs; the
//     largest set of them (MemoryAnalysis::getTransientBytes) is reserved as
//     the graph's `fixedBytes`, so the graph never counts less than the
//     memory analysis that `--remat-verify-memory` runs.
//   * An op whose results own no bytes and that the storage model calls a
//     view (`remat::isViewOp`, Analysis/Storage.h), or a `remat.barrier`, is
//     a view (`aliasOf`) of the node that defines its source operand.
//   * Dependencies are the nodes defining the op's operands and the values
//     its regions capture from the body.
//   * `remat.phase` gives Forward/Backward; `remat.keep` gives the pin. Ops
//     that are not free of memory effects (calls, random number generators,
//     collectives, allocations) are pinned `Always`: they are never cloned.
//   * Those ops keep their program order (`remat::keepsEffectOrder`): each
//     comes after the previous one (`Node::after`), an ordering edge that
//     holds no value live, so that no solver's order moves an opaque call
//     before an earlier one.
//   * Collectives (`remat::isCollectiveOp`: `shard` collectives, `mpi` ops)
//     are pinned `Always` although upstream marks most of them `Pure`, and
//     each one depends on the previous pinned one: every rank runs each
//     collective exactly once and in program order, whatever the solver.
//     The exception is a parameter gather (`remat::isParameterGather`: the
//     all-gather of a function argument), which the solver may free and
//     gather again; it depends on the last pinned collective before it,
//     and nothing depends on it for order (docs/Distributed.md). A region
//     op holding a collective, or collectives on two different grids, are
//     errors.
//   * Outputs are the nodes defining the returned values, plus every node
//     whose result nobody uses (so that no op is dropped by a schedule).
//   * Batch scaling (`batch`, each node's `bytesPerSample` and
//     `costPerSample`) comes from the IR shapes: the leading dimension of the
//     data arguments, followed through the ops by BatchAnalysis
//     (Analysis/BatchAnalysis.h). A step without such a dimension gets none.
//   * The graph is named after the function; nodes are named `arg<N>` and
//     `<op name>#<id>@<location>` (file:line:col or the `NameLoc` name), so
//     that an exported graph (`--remat-export-graph`) names the IR.
//
// Usage:
//   FailureOr<FunctionGraph> graph = buildFunctionGraph(func, {});
//   if (failed(graph)) return failure();  // diagnostics already emitted
//   SolveResult result = solver->solve(graph->graph, options);
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TRANSFORMS_GRAPHBUILDER_H
#define REMAT_TRANSFORMS_GRAPHBUILDER_H

#include "remat/Solver/Core/Problem.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace remat {

/// The `llvm::cl::values` of a GatherPolicy option.
#define REMAT_GATHER_POLICY_CL_VALUES                                          \
  ::llvm::cl::values(                                                          \
      clEnumValN(::remat::GatherPolicy::Plan, "plan",                          \
                 "keep or gather again per parameter, as the plan needs"),     \
      clEnumValN(::remat::GatherPolicy::Keep, "keep",                          \
                 "keep every gathered parameter (ZeRO-2-like)"),               \
      clEnumValN(::remat::GatherPolicy::Regather, "regather",                  \
                 "gather every parameter again in the backward pass (FSDP "    \
                 "reshard-after-forward)"))

struct GraphBuilderOptions {
  /// How many leading function arguments hold data (Input nodes); the rest
  /// are parameters. Both are resident; the split only names them.
  unsigned numDataArgs = 1;
  /// The pin of every parameter gather without a `remat.keep` of its own.
  GatherPolicy gatherPolicy = GatherPolicy::Plan;
  /// The alignment of the arena the plan is for (1: none): each transient
  /// buffer of a region op (an scf.for body's temporaries) is reserved
  /// rounded up to it, as the arena places it.
  int64_t transientAlignment = 1;
};

/// A `remat::Graph` together with the IR each node stands for.
struct FunctionGraph {
  Graph graph;
  /// Node id -> the op it stands for; nullptr for argument nodes.
  llvm::SmallVector<mlir::Operation *> nodeOps;
  /// Argument number -> node id.
  llvm::SmallVector<int> argNodes;
  /// Op -> node id (only ops that are nodes).
  llvm::DenseMap<mlir::Operation *, int> opNodes;
  /// Why `graph` has no batch scaling (`graph.batch == 0`); empty when it
  /// has some.
  std::string batchProblem;
  /// The node whose storage defines `value`, or -1 when `value` is free (a
  /// constant) or not defined in the function body.
  int nodeOf(mlir::Value value) const;
};


/// Whether `op` is free in the problem model: a constant that costs nothing
/// and stays at the top of the function body.
bool isFreeOp(mlir::Operation *op);

/// Whether `op` may be computed more than once without changing what the
/// program does: it and every op nested in it are free of memory effects,
/// and none of them is a collective (remat::isCollectiveOp) other than `op`
/// itself being a parameter gather (remat::isParameterGather).
bool isRecomputable(mlir::Operation *op);

/// Whether `op` runs exactly once and in program order among the ops for
/// which this holds: it cannot be recomputed (isRecomputable) and is no
/// parameter gather. The graph orders them (`Node::after`); Rematerialize
/// checks that a plan keeps their order.
bool keepsEffectOrder(mlir::Operation *op);

/// Translates `func` (single block, cost-annotated, phases inferred) into a
/// problem graph. Emits a located error and fails on IR outside the model:
/// several blocks, more data arguments than arguments (beyond the default
/// one), a tensor-producing op without `remat.cost`, an op without
/// `remat.phase`, an argument of dynamic shape, or a `remat.keep<never>` pin
/// on an op that cannot be recomputed.
mlir::FailureOr<FunctionGraph>
buildFunctionGraph(mlir::func::FuncOp func,
                   const GraphBuilderOptions &options = {});

} // namespace remat

#endif // REMAT_TRANSFORMS_GRAPHBUILDER_H
