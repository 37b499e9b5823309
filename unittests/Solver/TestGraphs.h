//===- TestGraphs.h - small graphs the solver unit tests share --*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_UNITTESTS_SOLVER_TESTGRAPHS_H
#define REMAT_UNITTESTS_SOLVER_TESTGRAPHS_H

#include "remat/Solver/Generators.h"
#include "remat/Solver/Problem.h"

#include <string>
#include <vector>

namespace remat {
namespace test {

/// Generator options for unit-size graphs without parameters.
inline GeneratorOptions unitOptions() {
  GeneratorOptions o;
  o.params = false;
  o.bytes = 1;
  return o;
}

/// Appends a node to a hand-built graph and returns its id.
inline int addNode(Graph &g, const std::string &name, NodeKind kind,
                   int64_t bytes, double cost, std::vector<int> deps) {
  Node node;
  node.name = name;
  node.kind = kind;
  node.bytes = bytes;
  node.cost = cost;
  node.deps = std::move(deps);
  g.nodes.push_back(node);
  return g.size() - 1;
}

} // namespace test
} // namespace remat

#endif // REMAT_UNITTESTS_SOLVER_TESTGRAPHS_H
