//===- RematerializeTest.cpp - budgets, program order, graph building -----===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/Rematerialize.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Transforms/GraphBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace remat;

namespace {

TEST(CheckpointAllSchedule, FreesAfterLastUse) {
  // in(8) -> a(4) -> b(4) -> c(4), c also reads a; c is the output.
  Graph graph;
  graph.nodes = {
      {"in", 8, 0, {}, {}, NodeKind::Input},
      {"a", 4, 1, {0}, {}, NodeKind::Forward},
      {"b", 4, 1, {1}, {}, NodeKind::Forward},
      {"c", 4, 1, {1, 2}, {}, NodeKind::Backward},
  };
  graph.outputs = {3};
  Schedule schedule = checkpointAllSchedule(graph);
  std::vector<Step> expected = {Step::compute(1), Step::compute(2),
                                Step::compute(3), Step::free(1), Step::free(2)};
  EXPECT_EQ(schedule.steps, expected);
  Simulation sim = simulate(graph, schedule);
  ASSERT_TRUE(sim.valid()) << sim.error;
  // At c: in + a + b + c = 8 + 12 = 20.
  EXPECT_EQ(sim.peakBytes, 20);
}

TEST(GraphBuilder, NodesViewsPinsOutputs) {
  mlir::MLIRContext context;
  context.loadDialect<mlir::func::FuncDialect, mlir::arith::ArithDialect,
                      mlir::math::MathDialect, mlir::tensor::TensorDialect,
                      RematDialect>();
  const char *source = R"mlir(
    func.func private @opaque(tensor<4xf32>) -> tensor<4xf32>
    func.func @f(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<2x2xf32> {
      %k = arith.constant dense<1.0> : tensor<4xf32>
      %a = math.tanh %x {remat.cost = #remat.cost<bytes = [16], flops = 4>,
                         remat.phase = #remat.phase<forward>} : tensor<4xf32>
      %v = tensor.expand_shape %a [[0, 1]] output_shape [2, 2]
             {remat.cost = #remat.cost<bytes = [0], flops = 0>,
              remat.phase = #remat.phase<forward>}
             : tensor<4xf32> into tensor<2x2xf32>
      %c = func.call @opaque(%w) {remat.cost = #remat.cost<bytes = [16], flops = 0>,
                                  remat.phase = #remat.phase<backward>}
             : (tensor<4xf32>) -> tensor<4xf32>
      %d = arith.addf %a, %k {remat.cost = #remat.cost<bytes = [16], flops = 4>,
                              remat.phase = #remat.phase<backward>,
                              remat.keep = #remat.keep<never>} : tensor<4xf32>
      return %v : tensor<2x2xf32>
    })mlir";
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  ASSERT_TRUE(module);
  auto func = module->lookupSymbol<mlir::func::FuncOp>("f");
  mlir::FailureOr<FunctionGraph> built = buildFunctionGraph(func, {});
  ASSERT_TRUE(mlir::succeeded(built));
  const Graph &graph = built->graph;
  // 2 arguments + tanh, expand_shape, call, addf; the constant is free.
  ASSERT_EQ(graph.size(), 6);
  EXPECT_EQ(graph.nodes[0].kind, NodeKind::Input);
  EXPECT_EQ(graph.nodes[1].kind, NodeKind::Param);
  EXPECT_EQ(graph.nodes[0].bytes, 16);
  EXPECT_EQ(graph.nodes[2].deps, std::vector<int>({0}));
  EXPECT_EQ(graph.nodes[3].aliasOf, 2);               // the view of %a
  EXPECT_EQ(graph.nodes[4].keep, KeepPolicy::Always); // call: effects
  EXPECT_EQ(graph.nodes[4].kind, NodeKind::Backward);
  EXPECT_EQ(graph.nodes[5].keep, KeepPolicy::Never);
  EXPECT_EQ(graph.nodes[5].deps, std::vector<int>({2})); // %k is free
  // Returned %v, then the unused %c and %d.
  EXPECT_EQ(graph.outputs, std::vector<int>({3, 4, 5}));
  EXPECT_EQ(built->nodeOf(func.getArgument(1)), 1);
}

TEST(GraphBuilder, CollectivesArePinnedAndOrdered) {
  mlir::MLIRContext context;
  context.loadDialect<mlir::func::FuncDialect, mlir::math::MathDialect,
                      mlir::shard::ShardDialect, RematDialect>();
  const char *source = R"mlir(
    #c = #remat.cost<bytes = [16], flops = 0>
    #f = #remat.phase<forward>
    #b = #remat.phase<backward>
    shard.grid @dp(shape = 2)
    func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
      %r = shard.all_reduce %x on @dp grid_axes = [0]
             {remat.cost = #c, remat.phase = #f} : tensor<4xf32> -> tensor<4xf32>
      %a = math.tanh %x {remat.cost = #c, remat.phase = #b} : tensor<4xf32>
      %s = shard.all_reduce %a on @dp grid_axes = [0]
             {remat.cost = #c, remat.phase = #b} : tensor<4xf32> -> tensor<4xf32>
      return %r, %s : tensor<4xf32>, tensor<4xf32>
    })mlir";
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  ASSERT_TRUE(module);
  auto func = module->lookupSymbol<mlir::func::FuncOp>("f");
  mlir::FailureOr<FunctionGraph> built = buildFunctionGraph(func, {});
  ASSERT_TRUE(mlir::succeeded(built));
  const Graph &graph = built->graph;
  // %x, %r, %a, %s. shard.all_reduce is Pure upstream, yet never recomputed.
  ASSERT_EQ(graph.size(), 4);
  EXPECT_FALSE(isRecomputable(built->nodeOps[1]));
  EXPECT_EQ(graph.nodes[1].keep, KeepPolicy::Always);
  EXPECT_EQ(graph.nodes[1].bytes, 16);
  EXPECT_EQ(graph.nodes[2].keep, KeepPolicy::Default);
  EXPECT_EQ(graph.nodes[3].keep, KeepPolicy::Always);
  // %s reads %a, and %r so that no order puts it before %r.
  EXPECT_EQ(graph.nodes[3].deps, std::vector<int>({1, 2}));
}

} // namespace
