//===- Generators.cpp - synthetic training graphs -------------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Testing/Generators.h"

#include <algorithm>
#include <cmath>

using namespace remat;

//===----------------------------------------------------------------------===//
// ForwardBuilder
//===----------------------------------------------------------------------===//

ForwardBuilder::ForwardBuilder(std::string name,
                               const GeneratorOptions &options)
    : options(options), state(options.seed * 0x9E3779B97F4A7C15ull + 1) {
  forward.name = std::move(name);
}

// splitmix64: deterministic on every platform, unlike std distributions.
uint64_t ForwardBuilder::next() {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int ForwardBuilder::input(const std::string &name, int64_t bytes) {
  Node node;
  node.name = name;
  node.bytes = bytes * options.bytes * std::max<int64_t>(1, options.batch);
  node.kind = NodeKind::Input;
  forward.nodes.push_back(node);
  return forward.size() - 1;
}

int ForwardBuilder::param(const std::string &name, int64_t bytes) {
  Node node;
  node.name = name;
  node.bytes = bytes;
  node.kind = NodeKind::Param;
  forward.nodes.push_back(node);
  return forward.size() - 1;
}

int ForwardBuilder::op(const std::string &name, int64_t bytes, double cost,
                       std::vector<int> deps) {
  Node node;
  node.name = name;
  node.bytes = bytes * options.bytes * std::max<int64_t>(1, options.batch);
  node.cost = cost * options.cost;
  if (options.heterogeneous) {
    node.bytes *= 1 + static_cast<int64_t>(next() % 4);
    node.cost *= 0.5 + 0.25 * static_cast<double>(next() % 7);
  }
  std::sort(deps.begin(), deps.end());
  deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
  node.deps = std::move(deps);
  node.kind = NodeKind::Forward;
  forward.nodes.push_back(node);
  return forward.size() - 1;
}

int ForwardBuilder::layer(const std::string &name, int64_t bytes, double cost,
                          std::vector<int> deps) {
  if (options.params)
    deps.push_back(param("w_" + name, options.paramBytes));
  return op(name, bytes, cost, std::move(deps));
}

Graph ForwardBuilder::finish(int loss) const {
  return appendBackward(forward, loss);
}

//===----------------------------------------------------------------------===//
// Reverse-mode derivation
//===----------------------------------------------------------------------===//

Graph remat::appendBackward(const Graph &forward, int loss) {
  Graph graph = forward;
  graph.outputs.clear();
  const int n = forward.size();
  if (loss < 0 || loss >= n)
    return graph;
  std::vector<std::vector<int>> users = forward.users();
  std::vector<char> reach(n, 0);
  reach[loss] = 1;
  for (int id = loss; id >= 0; --id)
    if (reach[id])
      for (int dep : forward.nodes[id].deps)
        reach[dep] = 1;
  bool hasParams = false;
  for (int id = 0; id < n; ++id)
    hasParams |= reach[id] && forward.nodes[id].kind == NodeKind::Param;
  auto wantsGrad = [&](int id) {
    if (!reach[id] || id == loss)
      return false;
    switch (forward.nodes[id].kind) {
    case NodeKind::Forward:
    case NodeKind::Param:
      return true;
    case NodeKind::Input:
      return !hasParams;
    case NodeKind::Backward:
      return false;
    }
    return false;
  };

  std::vector<int> grad(n, -1);
  graph.outputs.push_back(loss);
  for (int v = n - 1; v >= 0; --v) {
    if (!wantsGrad(v))
      continue;
    Node node;
    node.name = "d_" + (forward.nodes[v].name.empty() ? std::to_string(v)
                                                      : forward.nodes[v].name);
    node.kind = NodeKind::Backward;
    node.bytes = forward.nodes[forward.storageOf(v)].bytes;
    for (int u : users[v]) {
      if (!reach[u])
        continue;
      node.cost += forward.nodes[u].cost;
      if (u != loss && grad[u] >= 0)
        node.deps.push_back(grad[u]);
      for (int dep : forward.nodes[u].deps)
        node.deps.push_back(dep);
    }
    std::sort(node.deps.begin(), node.deps.end());
    node.deps.erase(std::unique(node.deps.begin(), node.deps.end()),
                    node.deps.end());
    graph.nodes.push_back(node);
    grad[v] = graph.size() - 1;
    NodeKind kind = forward.nodes[v].kind;
    if (kind == NodeKind::Param || kind == NodeKind::Input)
      graph.outputs.push_back(grad[v]);
  }
  std::sort(graph.outputs.begin(), graph.outputs.end());
  return graph;
}

//===----------------------------------------------------------------------===//
// Families
//===----------------------------------------------------------------------===//

Graph remat::makeChain(int layers, const GeneratorOptions &options) {
  ForwardBuilder b("chain" + std::to_string(layers), options);
  int h = b.input("x", 1);
  for (int i = 1; i <= layers; ++i)
    h = b.layer("f" + std::to_string(i), 1, 1, {h});
  return b.finish(h);
}

Graph remat::makeResNet(int blocks, const GeneratorOptions &options) {
  ForwardBuilder b("resnet" + std::to_string(blocks), options);
  int x = b.input("x", 1);
  int h = b.layer("stem", 1, 1, {x});
  for (int i = 0; i < blocks; ++i) {
    std::string s = std::to_string(i);
    int a = b.layer("conv" + s + "a", 1, 2, {h});
    int r = b.op("relu" + s, 1, 0.25, {a});
    int c = b.layer("conv" + s + "b", 1, 2, {r});
    h = b.op("add" + s, 1, 0.25, {c, h});
  }
  int loss = b.op("loss", 1, 0.25, {h});
  return b.finish(loss);
}

Graph remat::makeUNet(int depth, const GeneratorOptions &options) {
  ForwardBuilder b("unet" + std::to_string(depth), options);
  int x = b.input("x", depth + 1);
  // Activations shrink with depth: level i holds (depth + 1 - i) units.
  std::vector<int> enc;
  int h = b.layer("enc0", depth + 1, 2, {x});
  enc.push_back(h);
  for (int i = 1; i <= depth; ++i) {
    std::string s = std::to_string(i);
    int p = b.op("pool" + s, depth + 1 - i, 0.25, {h});
    h = b.layer("enc" + s, depth + 1 - i, 2, {p});
    enc.push_back(h);
  }
  for (int i = depth - 1; i >= 0; --i) {
    std::string s = std::to_string(i);
    int u = b.op("up" + s, depth + 1 - i, 0.25, {h});
    int c = b.op("cat" + s, 2 * (depth + 1 - i), 0.25, {u, enc[i]});
    h = b.layer("dec" + s, depth + 1 - i, 2, {c});
  }
  int loss = b.op("loss", 1, 0.25, {h});
  return b.finish(loss);
}

Graph remat::makeDenseNet(int blocks, int layersPerBlock,
                          const GeneratorOptions &options) {
  ForwardBuilder b("densenet" + std::to_string(blocks) + "x" +
                       std::to_string(layersPerBlock),
                   options);
  int x = b.input("x", 1);
  int h = b.layer("stem", 1, 1, {x});
  for (int blk = 0; blk < blocks; ++blk) {
    std::vector<int> features = {h};
    for (int l = 0; l < layersPerBlock; ++l) {
      std::string s = std::to_string(blk) + "_" + std::to_string(l);
      int in = features.back();
      if (features.size() > 1)
        in = b.op("cat" + s, static_cast<int64_t>(features.size()), 0.25,
                  features);
      features.push_back(b.layer("conv" + s, 1, 1, {in}));
    }
    std::string s = std::to_string(blk);
    int cat =
        b.op("cat" + s, static_cast<int64_t>(features.size()), 0.25, features);
    h = b.layer("trans" + s, 1, 1, {cat});
  }
  int loss = b.op("loss", 1, 0.25, {h});
  return b.finish(loss);
}

/// Gives the forward nodes of a makeTransformer graph the module paths
/// (`layers.3`) and op kinds (mm for weighted layers, bmm for the attention
/// products) an importer records, from their names.
static void annotateTransformer(Graph &graph) {
  for (Node &node : graph.nodes) {
    if (node.kind != NodeKind::Forward)
      continue;
    size_t digits = node.name.find_last_not_of("0123456789") + 1;
    std::string stem = node.name.substr(0, digits);
    if (digits < node.name.size())
      node.module = "layers." + node.name.substr(digits);
    if (stem == "q" || stem == "k" || stem == "v" || stem == "proj" ||
        stem == "mlp_up" || stem == "mlp_down" || stem == "embed")
      node.op = "mm";
    else if (stem == "scores" || stem == "attn")
      node.op = "bmm";
    else
      node.op = stem == "gelu" || stem == "softmax" ? stem : "add";
  }
}

Graph remat::makeTransformer(int layers, const GeneratorOptions &options) {
  ForwardBuilder b("transformer" + std::to_string(layers), options);
  int x = b.input("x", 1);
  int h = b.layer("embed", 1, 1, {x});
  for (int i = 0; i < layers; ++i) {
    std::string s = std::to_string(i);
    int ln1 = b.op("ln1_" + s, 1, 0.25, {h});
    int q = b.layer("q" + s, 1, 1, {ln1});
    int k = b.layer("k" + s, 1, 1, {ln1});
    int v = b.layer("v" + s, 1, 1, {ln1});
    int scores = b.op("scores" + s, 2, 1, {q, k});
    int probs = b.op("softmax" + s, 2, 0.25, {scores});
    int attn = b.op("attn" + s, 1, 1, {probs, v});
    int proj = b.layer("proj" + s, 1, 1, {attn});
    int x1 = b.op("res1_" + s, 1, 0.25, {h, proj});
    int ln2 = b.op("ln2_" + s, 1, 0.25, {x1});
    int up = b.layer("mlp_up" + s, 4, 4, {ln2});
    int act = b.op("gelu" + s, 4, 0.5, {up});
    int down = b.layer("mlp_down" + s, 1, 4, {act});
    h = b.op("res2_" + s, 1, 0.25, {x1, down});
  }
  int loss = b.op("loss", 1, 0.25, {h});
  Graph graph = b.finish(loss);
  annotateTransformer(graph);
  return graph;
}

Graph remat::makeRandomDag(int forwardNodes, uint64_t seed,
                           const GeneratorOptions &options) {
  GeneratorOptions opts = options;
  opts.seed = seed;
  ForwardBuilder b("random" + std::to_string(forwardNodes) + "_s" +
                       std::to_string(seed),
                   opts);
  // A separate stream for the structure, so sizes do not perturb it.
  uint64_t state = seed * 0xD1B54A32D192ED03ull + 7;
  auto next = [&]() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  int x = b.input("x", 1);
  std::vector<int> ops;
  std::vector<char> used;
  for (int i = 0; i < std::max(1, forwardNodes - 1); ++i) {
    std::vector<int> deps;
    if (ops.empty()) {
      deps.push_back(x);
    } else {
      int fanIn = 1 + static_cast<int>(next() % 3);
      for (int k = 0; k < fanIn; ++k) {
        // Biased to recent nodes: distance 1..4 mostly, sometimes anywhere.
        int dist = (next() % 4 == 0) ? 1 + static_cast<int>(next() % ops.size())
                                     : 1 + static_cast<int>(next() % 4);
        int pick =
            static_cast<int>(ops.size()) - std::min<int>(dist, ops.size());
        deps.push_back(ops[pick]);
        used[pick] = 1;
      }
    }
    int64_t bytes = 1 + static_cast<int64_t>(next() % 4);
    double cost = 1 + static_cast<double>(next() % 3);
    std::string name = "n" + std::to_string(i);
    int id = (next() % 2 == 0) ? b.layer(name, bytes, cost, deps)
                               : b.op(name, bytes, cost, deps);
    ops.push_back(id);
    used.push_back(0);
  }
  std::vector<int> sinks;
  for (size_t i = 0; i < ops.size(); ++i)
    if (!used[i])
      sinks.push_back(ops[i]);
  int loss = b.op("loss", 1, 1, sinks);
  return b.finish(loss);
}

const std::vector<std::string> &remat::familyNames() {
  static const std::vector<std::string> names = {
      "chain", "resnet", "unet", "densenet", "transformer", "random"};
  return names;
}

Graph remat::makeFamily(const std::string &family, int targetNodes,
                        const GeneratorOptions &options) {
  // Each size step adds about `perStep` training-graph nodes (forward ops,
  // their parameters and gradients); solve for the step count.
  auto steps = [&](double perStep, double base) {
    return std::max(
        1, static_cast<int>(std::lround((targetNodes - base) / perStep)));
  };
  int p = options.params ? 1 : 0;
  if (family == "chain")
    return makeChain(steps(2 + 2 * p, 2), options);
  if (family == "resnet")
    return makeResNet(steps(8 + 4 * p, 6), options);
  if (family == "unet")
    return makeUNet(steps(10 + 4 * p, 6), options);
  if (family == "densenet") {
    const int perBlock = 6;
    return makeDenseNet(steps(perBlock * (4 + 2 * p) + 4 + 2 * p, 6), perBlock,
                        options);
  }
  if (family == "transformer")
    return makeTransformer(steps(28 + 14 * p, 6), options);
  if (family == "random")
    return makeRandomDag(steps(2 + p, 4), options.seed, options);
  return Graph();
}
