//===- FlowNetwork.cpp - minimum s-t cuts for the solvers -----------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Core/FlowNetwork.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>

#include <queue>

using namespace remat;

namespace {
using Traits =
    boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
using FlowGraph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS, boost::no_property,
    boost::property<boost::edge_capacity_t, int64_t,
                    boost::property<boost::edge_residual_capacity_t, int64_t,
                                    boost::property<boost::edge_reverse_t,
                                                    Traits::edge_descriptor>>>>;
} // namespace

struct FlowNetwork::Impl {
  explicit Impl(int vertices) : graph(vertices) {}
  FlowGraph graph;
};

FlowNetwork::FlowNetwork(int vertices)
    : impl(std::make_unique<Impl>(vertices)) {}

FlowNetwork::~FlowNetwork() = default;

void FlowNetwork::addEdge(int from, int to, int64_t capacity) {
  FlowGraph &graph = impl->graph;
  auto forward = boost::add_edge(from, to, graph).first;
  auto backward = boost::add_edge(to, from, graph).first;
  boost::put(boost::edge_capacity, graph, forward, capacity);
  boost::put(boost::edge_capacity, graph, backward, 0);
  boost::put(boost::edge_reverse, graph, forward, backward);
  boost::put(boost::edge_reverse, graph, backward, forward);
}

FlowCut FlowNetwork::minimumCut(int source, int sink) {
  FlowGraph &graph = impl->graph;
  FlowCut cut;
  cut.capacity = boost::push_relabel_max_flow(graph, source, sink);
  cut.sourceSide.assign(boost::num_vertices(graph), 0);
  std::queue<int> queue;
  queue.push(source);
  cut.sourceSide[source] = 1;
  auto residual = boost::get(boost::edge_residual_capacity, graph);
  while (!queue.empty()) {
    int v = queue.front();
    queue.pop();
    for (auto [it, end] = boost::out_edges(v, graph); it != end; ++it) {
      int w = boost::target(*it, graph);
      if (!cut.sourceSide[w] && residual[*it] > 0) {
        cut.sourceSide[w] = 1;
        queue.push(w);
      }
    }
  }
  return cut;
}
