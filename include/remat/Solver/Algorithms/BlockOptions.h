//===- BlockOptions.h - per-block Pareto sets of keep options ---*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The forward graph cut into blocks at its articulation points, and for each
// block a small Pareto set of ways to run it (which of its values to keep
// across the forward/backward boundary), scored by a local model after
// Chen's (Hierarchical.cpp's file comment has the model). The hierarchical
// solver combines one option per block by a DP over memory; the Rotor solver
// (Rotor.cpp) combines them with multi-level re-forwarding.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_ALGORITHMS_BLOCKOPTIONS_H
#define REMAT_SOLVER_ALGORITHMS_BLOCKOPTIONS_H

#include "remat/Solver/Core/Problem.h"

#include <cstdint>
#include <vector>

namespace remat {

class WorkMeter;

/// One way to run a block, as the local model sees it.
struct BlockOption {
  std::vector<int> kept;  ///< Free nodes kept across the boundary.
  int subset = -1;        ///< The keep subset scored (filled `kept` later).
  int64_t keptBytes = 0;  ///< Kept bytes, pinned and output nodes included.
  int64_t workBytes = 0;  ///< Recomputed values held during its backward.
  double recompute = 0;   ///< Cost of the recomputed forward nodes.
  bool keepsExit = false; ///< Its exit is kept.
  bool exitRecomputed = false; ///< Scored with its dropped exit recomputed.
  bool needsEntry = false;     ///< Its recomputation reads the dropped entry.

  /// Whether the next block may recompute from this block's exit.
  bool exitAvailable() const { return keepsExit || exitRecomputed; }
};

/// A block of the forward graph and its options.
struct DpBlock {
  std::vector<int> nodes;    ///< Its forward nodes, ascending.
  int entry = -1, exit = -1; ///< Previous block's exit; its own.
  int64_t backwardBytes = 0; ///< Gradients' footprint in its backward.
  std::vector<BlockOption> options;
};

/// The blocks of `graph` in forward order and their options. Consecutive
/// articulation segments merge into a block while it has at most
/// `blockNodes` free nodes (a longer segment is a block of its own); blocks
/// of up to 10 free nodes score every keep subset. The min-cut sweep that
/// seeds the options of larger blocks takes at most a part of `meter`'s
/// allowance (charged there). Empty when no forward node can be recomputed.
std::vector<DpBlock> blockOptions(const Graph &graph, WorkMeter &meter,
                                  int blockNodes);

} // namespace remat

#endif // REMAT_SOLVER_ALGORITHMS_BLOCKOPTIONS_H
