//===- Blocks.h - repeated blocks and the practitioners' policies -*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The repeated blocks of a forward graph (transformer layers, residual
// blocks), found from its structure: the forward is cut at its articulation
// points (ScheduleBuilder.h: the residual stream between blocks), each
// segment between two cuts is hashed, and the longest run of a repeated
// pattern of segments is taken as the blocks. Module paths (`Node::module`,
// `transformer.h.3`, `layers.3`), when the graph has them, place the
// boundaries instead; the answer needs none. A block's canonical hash covers
// its nodes' kinds, op kinds, sizes, costs and edges with ids relative to the
// block, so identical blocks hash alike.
//
// On top, the two one-line policies practitioners use, as checkpoint sets
// scheduled by the shared builder and verified by the simulator:
//   * `full-ac`: keep each block's output (the next block's input) and every
//     forward value outside the blocks; recompute the rest of each block in
//     its backward.
//   * `selective`: full-ac plus every matmul output (`isMatmulOp`) in each
//     block; Unsupported when the graph records no op kinds.
// No checkpointing is `checkpoint-all` (the policy `none`).
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_ALGORITHMS_BLOCKS_H
#define REMAT_SOLVER_ALGORITHMS_BLOCKS_H

#include "remat/Solver/Core/Problem.h"
#include "remat/Solver/Core/Solver.h"

#include <cstdint>
#include <string>
#include <vector>

namespace remat {

/// One repeated block: consecutive needed forward nodes between two cut
/// points of the forward.
struct Block {
  /// Its forward nodes in topological order; the last is its output, the
  /// only one of its values the forward reads outside it.
  std::vector<int> nodes;
  /// The node before its first one (its input), -1 when none.
  int input = -1;
  /// The canonical hash of its subgraph (`blockHash`).
  uint64_t hash = 0;
};

/// Canonical hash of the subgraph of `nodes` (consecutive forward nodes):
/// per node its kind, op kind, bytes, cost, and each read as an index into
/// `nodes`, or `input` as -1, or else the kind and bytes of the node read.
uint64_t blockHash(const Graph &graph, const std::vector<int> &nodes,
                   int input);

/// The repeated blocks of `graph`'s forward, in order (see the file
/// comment); empty when no pattern of segments repeats. With
/// `useModules` false the module paths are ignored.
std::vector<Block> findBlocks(const Graph &graph, bool useModules = true);

/// How many distinct hashes `blocks` have.
int distinctBlocks(const std::vector<Block> &blocks);

/// Whether op kind `op` is a matrix multiplication (mm, bmm, addmm, matmul,
/// linear, baddbmm; an `aten.` prefix and `.overload` suffix are ignored; and
/// the linalg matmul and batch_matmul ops, transposed forms included).
bool isMatmulOp(const std::string &op);

/// The checkpoint set, indexed by node, of full-ac on `blocks` of `graph`
/// with the blocks from `firstSelective` on also keeping their matmul
/// outputs: blocks.size() gives full-ac, 0 gives selective, and the values
/// between mix them (the later blocks, whose backward runs first, keep
/// more).
std::vector<char> policyCheckpoints(const Graph &graph,
                                    const std::vector<Block> &blocks,
                                    size_t firstSelective);

/// The registered solver of a policy name (`none`: checkpoint-all,
/// `full-ac`, `selective`), empty for any other name; what
/// `remat-solve --policy` and the pipeline's `policy=` accept.
std::string policySolver(const std::string &policy);

/// "unknown policy 'P' (expected none, full-ac or selective)": the error for
/// a name policySolver does not know.
std::string describeUnknownPolicy(const std::string &policy);

/// The policies as solvers: full activation checkpointing per block and
/// selective checkpointing (file comment). Unsupported without repeated
/// blocks, or (selective) without op kinds.
SolveResult solveFullAC(const Graph &graph, const SolveOptions &options);
SolveResult solveSelective(const Graph &graph, const SolveOptions &options);

} // namespace remat

#endif // REMAT_SOLVER_ALGORITHMS_BLOCKS_H
