//===- Generators.h - synthetic training graphs -----------------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Synthetic training graphs for tests and benchmarks. Every family is a
// forward DAG built with `ForwardBuilder` plus the one shared reverse-mode
// derivation `appendBackward`, which adds the gradient nodes the way
// Checkmate derives them from a forward graph:
//
//   * the gradient of v reads the gradient of each user u of v (except the
//     loss, whose gradient is the constant 1) and every forward value u
//     read (the operands the local derivative du/dv needs);
//   * parameters get gradients, which become graph outputs; when the graph
//     has no parameters its inputs get them instead, so that the backward is
//     never dead code;
//   * the loss is an output too.
//
// Usage:
//   GeneratorOptions opts;
//   opts.heterogeneous = true;
//   Graph g = makeResNet(/*blocks=*/8, opts);
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_TESTING_GENERATORS_H
#define REMAT_SOLVER_TESTING_GENERATORS_H

#include "remat/Solver/Core/Problem.h"

#include <cstdint>
#include <string>
#include <vector>

namespace remat {

struct GeneratorOptions {
  /// Bytes of a unit activation; families scale it per node. Activations
  /// outweigh parameters (8 : 1 by default), as they do at real batch sizes.
  int64_t bytes = 8;
  /// Forward cost of a unit op.
  double cost = 1;
  /// Give every weighted op a parameter of `paramBytes` (whose gradient is
  /// an output). Without parameters the input's gradient is the output.
  bool params = true;
  int64_t paramBytes = 1;
  /// Randomize sizes (x1..x4) and costs (x0.5..x2) per node, from `seed`.
  bool heterogeneous = false;
  uint64_t seed = 1;
  /// Batch multiplier: scales every input, forward and backward size (not
  /// parameters), the way activations scale with the batch.
  int64_t batch = 1;
};

/// Builds a forward DAG node by node, then derives its training graph.
class ForwardBuilder {
public:
  ForwardBuilder(std::string name, const GeneratorOptions &options);

  int input(const std::string &name, int64_t bytes);
  int param(const std::string &name, int64_t bytes);
  /// A forward op of `bytes` and `cost` (before heterogeneous scaling)
  /// reading `deps`.
  int op(const std::string &name, int64_t bytes, double cost,
         std::vector<int> deps);
  /// A weighted op: `op` plus a fresh parameter when options.params is set.
  int layer(const std::string &name, int64_t bytes, double cost,
            std::vector<int> deps);

  /// The forward graph so far.
  const Graph &graph() const { return forward; }
  /// Appends the backward for `loss` and returns the training graph.
  Graph finish(int loss) const;

private:
  Graph forward;
  GeneratorOptions options;
  uint64_t state;
  uint64_t next();
};

/// Appends to `forward` (inputs, params and forward nodes only) the gradient
/// nodes of `loss` as described above, and sets the outputs (loss and
/// gradients of params, or of inputs when there are none). Backward costs
/// are the forward costs of the users differentiated through.
Graph appendBackward(const Graph &forward, int loss);

/// A chain of `layers` forward ops after one input; the last op is the loss.
Graph makeChain(int layers, const GeneratorOptions &options = {});
/// ResNet-like: `blocks` residual blocks (two weighted ops, a skip add).
Graph makeResNet(int blocks, const GeneratorOptions &options = {});
/// U-Net-like: `depth` down/up levels joined by long skip concatenations.
Graph makeUNet(int depth, const GeneratorOptions &options = {});
/// DenseNet-like: `blocks` dense blocks of `layersPerBlock` layers, each
/// reading the concatenation of every earlier feature map in its block.
Graph makeDenseNet(int blocks, int layersPerBlock,
                   const GeneratorOptions &options = {});
/// Transformer-like: `layers` pre-norm blocks (attention and MLP, each with
/// a residual add), with module paths (`layers.3`) and op kinds (mm, bmm)
/// as an importer records them.
Graph makeTransformer(int layers, const GeneratorOptions &options = {});
/// A random forward DAG of `forwardNodes` ops (1-3 operands each, biased
/// to recent nodes; deterministic in `seed`), all sinks joined in a loss.
Graph makeRandomDag(int forwardNodes, uint64_t seed,
                    const GeneratorOptions &options = {});

/// The families by name ("chain", "resnet", "unet", "densenet",
/// "transformer", "random"), sized so the training graph has about
/// `targetNodes` nodes. Empty graph with an empty name for an unknown family.
Graph makeFamily(const std::string &family, int targetNodes,
                 const GeneratorOptions &options = {});
const std::vector<std::string> &familyNames();

} // namespace remat

#endif // REMAT_SOLVER_TESTING_GENERATORS_H
