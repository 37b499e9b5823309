//===- GraphBatchScalingTest.cpp - batch scaling of graphs built from IR -------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Hand-written steps whose scaling is known: parameters fixed, activations
// linear in the batch, reductions over the batch fixed in bytes but not in
// work. Every expected number is worked out in the comments.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/CostModel.h"
#include "remat/Transforms/AnnotateCosts.h"
#include "remat/Analysis/Phases.h"
#include "remat/Solver/Search/Modes.h"
#include "remat/Transforms/GraphBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace remat;

namespace {

class GraphBatchScalingTest : public ::testing::Test {
protected:
  GraphBatchScalingTest() {
    context.loadDialect<mlir::arith::ArithDialect, mlir::cf::ControlFlowDialect,
                        mlir::func::FuncDialect, mlir::linalg::LinalgDialect,
                        mlir::math::MathDialect, mlir::tensor::TensorDialect,
                        RematDialect>();
  }

  /// The graph of the only function of `source`, costed (with `hint` for
  /// dynamic dimensions, guarded) and phase-inferred.
  FunctionGraph build(const char *source, unsigned numDataArgs = 1,
                      std::optional<int64_t> hint = {}) {
    module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
    EXPECT_TRUE(module);
    auto func = *module->getOps<mlir::func::FuncOp>().begin();
    CostModelOptions options;
    options.dynamicSizeHint = hint;
    if (hint)
      guardDynamicSizes(func, *hint);
    EXPECT_TRUE(mlir::succeeded(annotateCosts(func, options)));
    EXPECT_TRUE(mlir::succeeded(annotatePhases(func, {})));
    GraphBuilderOptions graphOptions;
    graphOptions.numDataArgs = numDataArgs;
    mlir::FailureOr<FunctionGraph> graph =
        buildFunctionGraph(func, graphOptions);
    EXPECT_TRUE(mlir::succeeded(graph));
    return std::move(*graph);
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

// x (data, 8x4) and w (parameter, 4x3); h = x @ w into a fill of a static
// tensor.empty; t = tanh(h); loss = sum(t); the "weight gradient"
// gw = transpose(x) @ t reduces over the batch.
constexpr const char *kStep = R"mlir(
func.func @step(%x: tensor<8x4xf32>, %w: tensor<4x3xf32>)
    -> (tensor<f32>, tensor<4x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x3xf32>) -> tensor<8x3xf32>
  %h = linalg.matmul ins(%x, %w : tensor<8x4xf32>, tensor<4x3xf32>)
         outs(%f : tensor<8x3xf32>) -> tensor<8x3xf32>
  %t = math.tanh %h : tensor<8x3xf32>
  %e0 = tensor.empty() : tensor<f32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.reduce ins(%t : tensor<8x3xf32>) outs(%f0 : tensor<f32>)
            dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %eT = tensor.empty() : tensor<4x8xf32>
  %xT = linalg.transpose ins(%x : tensor<8x4xf32>) outs(%eT : tensor<4x8xf32>)
          permutation = [1, 0]
  %ew = tensor.empty() : tensor<4x3xf32>
  %fw = linalg.fill ins(%zero : f32) outs(%ew : tensor<4x3xf32>) -> tensor<4x3xf32>
  %gw = linalg.matmul ins(%xT, %t : tensor<4x8xf32>, tensor<8x3xf32>)
          outs(%fw : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %loss, %gw : tensor<f32>, tensor<4x3xf32>
}
)mlir";

TEST_F(GraphBatchScalingTest, ParamsFixedActivationsLinearReductionsFixed) {
  FunctionGraph built = build(kStep);
  const Graph &graph = built.graph;
  EXPECT_TRUE(built.batchProblem.empty()) << built.batchProblem;
  EXPECT_EQ(graph.batch, 8);
  // Nodes: x, w, then e, f, h, t, e0, f0, loss, eT, xT, ew, fw, gw (the
  // constant is free).
  ASSERT_EQ(graph.size(), 14);
  // Bytes per sample: x 4 floats (16); f, h, t 3 floats (12); xT holds the
  // batch in dimension 1 (16); w, the scalar loss and the 4x3 weight
  // gradient are fixed; tensor.empty owns nothing.
  std::vector<int64_t> bytes = {16, 0, 0, 12, 12, 12, 0, 0, 0, 0, 16, 0, 0, 0};
  // Cost per sample: h = 2*8*3*4 = 192 FLOPs (24 a sample), tanh 24 (3),
  // the loss 24 additions (3), gw = 2*4*3*8 = 192 (24): a reduction over
  // the batch is fixed in bytes, not in work. Fills and transposes cost 0.
  std::vector<double> cost = {0, 0, 0, 0, 24, 3, 0, 0, 3, 0, 0, 0, 0, 24};
  for (int id = 0; id < graph.size(); ++id) {
    EXPECT_EQ(graph.nodes[id].bytesPerSample, bytes[id])
        << graph.nodes[id].name;
    EXPECT_DOUBLE_EQ(graph.nodes[id].costPerSample, cost[id])
        << graph.nodes[id].name;
  }
  EXPECT_EQ(graph.check(), "");
}

TEST_F(GraphBatchScalingTest, ScaledGraphMatchesTheStepAtThatBatch) {
  // The step at 8 samples scaled to 24 is the step written at 24 (every
  // "8x" of a shape becomes "24x": 8x4, 8x3 and the transpose's 4x8).
  FunctionGraph at8 = build(kStep);
  std::optional<Graph> scaled = scaleBatch(at8.graph, 24);
  ASSERT_TRUE(scaled);
  std::string text = kStep;
  for (size_t at = text.find("8x"); at != std::string::npos;
       at = text.find("8x", at + 3))
    text.replace(at, 2, "24x");
  FunctionGraph at24 = build(text.c_str());
  ASSERT_EQ(at24.graph.batch, 24);
  ASSERT_EQ(scaled->size(), at24.graph.size());
  for (int id = 0; id < scaled->size(); ++id) {
    EXPECT_EQ(scaled->nodes[id].bytes, at24.graph.nodes[id].bytes)
        << at24.graph.nodes[id].name;
    EXPECT_DOUBLE_EQ(scaled->nodes[id].cost, at24.graph.nodes[id].cost)
        << at24.graph.nodes[id].name;
  }
}

TEST_F(GraphBatchScalingTest, DynamicBatchFollowsTensorDim) {
  // The batch is `?`, sized 8 by the hint; tensor.empty(%n) carries it.
  const char *source = R"mlir(
func.func @step(%x: tensor<?x4xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %a = linalg.exp ins(%x : tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
  %e0 = tensor.empty() : tensor<f32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.reduce ins(%a : tensor<?x4xf32>) outs(%f0 : tensor<f32>)
            dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %loss : tensor<f32>
}
)mlir";
  FunctionGraph built = build(source, 1, 8);
  EXPECT_EQ(built.graph.batch, 8);
  int64_t total = 0;
  for (const Node &node : built.graph.nodes)
    total += node.bytesPerSample;
  // x and exp(x): 16 bytes a sample each; nothing else scales.
  EXPECT_EQ(total, 32);
  EXPECT_EQ(built.graph.nodes[0].bytesPerSample, 16);
}

TEST_F(GraphBatchScalingTest, UnknownOpScalesWhole) {
  // tensor.concat is outside the rules: its result scales whole (8x8 floats
  // = 256 bytes, 32 a sample), and so does the reduction that reads it,
  // although it reduces the batch away (an overestimate, never an under-
  // estimate).
  const char *source = R"mlir(
func.func @step(%x: tensor<8x4xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %c = tensor.concat dim(1) %x, %x : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.reduce ins(%c : tensor<8x8xf32>) outs(%f : tensor<8xf32>)
            dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %o = tensor.extract_slice %r[0] [4] [1] : tensor<8xf32> to tensor<4xf32>
  return %o : tensor<4xf32>
}
)mlir";
  FunctionGraph built = build(source);
  const Graph &graph = built.graph;
  ASSERT_EQ(graph.batch, 8);
  // x, concat, e, f, reduce, extract_slice.
  ASSERT_EQ(graph.size(), 6);
  EXPECT_EQ(graph.nodes[1].bytesPerSample, 32);
  EXPECT_EQ(graph.nodes[4].bytesPerSample, 32 / 8);
}

TEST_F(GraphBatchScalingTest, NoDataArgumentNoScaling) {
  FunctionGraph built = build(kStep, /*numDataArgs=*/0);
  EXPECT_EQ(built.graph.batch, 0);
  EXPECT_FALSE(built.graph.hasBatchScaling());
  EXPECT_NE(built.batchProblem.find("no data argument"), std::string::npos)
      << built.batchProblem;
  EXPECT_EQ(batchScalingProblem(built.graph).empty(), false);
}

} // namespace
