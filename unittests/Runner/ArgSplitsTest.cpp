//===- ArgSplitsTest.cpp - how the runners split a data-parallel step ----===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Runner/Inputs.h"
#include "remat/Runner/Ranks.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <vector>

using namespace remat;

namespace {

mlir::OwningOpRef<mlir::ModuleOp> parse(mlir::MLIRContext &context,
                                        const char *source) {
  context.loadDialect<mlir::func::FuncDialect, mlir::shard::ShardDialect>();
  return mlir::parseSourceString<mlir::ModuleOp>(source, &context);
}

TEST(ArgSplits, AnnotatedStepSplitsItsInputs) {
  mlir::MLIRContext context;
  auto module = parse(context, R"mlir(
    shard.grid @dp(shape = 2)
    func.func @f(%w: tensor<3xf32>, %x: tensor<4x3xf32>) -> tensor<4x3xf32> {
      %s = shard.sharding @dp split_axes = [[0]] : !shard.sharding
      %a = shard.shard %x to %s annotate_for_users : tensor<4x3xf32>
      return %a : tensor<4x3xf32>
    })mlir");
  ASSERT_TRUE(module);
  std::string error;
  auto splits =
      getArgSplits(module->lookupSymbol<mlir::func::FuncOp>("f"), error);
  ASSERT_TRUE(mlir::succeeded(splits)) << error;
  EXPECT_EQ((*splits)[0].dim, -1); // %w: replicated
  EXPECT_EQ((*splits)[1].dim, 0);
  EXPECT_EQ((*splits)[1].parts, 2);
  EXPECT_FALSE((*splits)[1].perRank); // declared with the global shape
}

TEST(ArgSplits, PerRankProgramMarksItsBlocks) {
  mlir::MLIRContext context;
  auto module = parse(context, R"mlir(
    shard.grid @dp(shape = 4)
    func.func @f(%w: tensor<3xf32>, %x: tensor<2x3xf32> {remat.split_dim = 0 : i64})
        -> tensor<2x3xf32> {
      return %x : tensor<2x3xf32>
    })mlir");
  ASSERT_TRUE(module);
  std::string error;
  auto splits =
      getArgSplits(module->lookupSymbol<mlir::func::FuncOp>("f"), error);
  ASSERT_TRUE(mlir::succeeded(splits)) << error;
  EXPECT_EQ((*splits)[0].dim, -1);
  EXPECT_EQ((*splits)[1].dim, 0);
  EXPECT_EQ((*splits)[1].parts, 4); // the grid's size
  EXPECT_TRUE((*splits)[1].perRank);
}

TEST(ArgSplits, PerRankMarkWithoutGridFails) {
  mlir::MLIRContext context;
  auto module = parse(context, R"mlir(
    func.func @f(%x: tensor<2x3xf32> {remat.split_dim = 0 : i64}) -> tensor<2x3xf32> {
      return %x : tensor<2x3xf32>
    })mlir");
  ASSERT_TRUE(module);
  std::string error;
  auto splits =
      getArgSplits(module->lookupSymbol<mlir::func::FuncOp>("f"), error);
  EXPECT_TRUE(mlir::failed(splits));
  EXPECT_EQ(error, "argument #0: remat.split_dim needs exactly one 1-D "
                   "shard.grid in the module");
}

TEST(ArgSplits, BlocksOfRanksTileTheWholeInput) {
  // A 4x3 f32 input split along rows over 2 ranks: rank r holds rows
  // 2r and 2r+1 of the single-process input, in order.
  ValueSpec global;
  global.isMemRef = true;
  global.shape = {4, 3};
  std::vector<float> whole(12), block0(6), block1(6);
  fillInput(global, /*arg=*/1, whole.data());
  ArgSplit split{/*dim=*/0, /*parts=*/2};
  fillInputBlock(global, 1, split, 0, block0.data());
  fillInputBlock(global, 1, split, 1, block1.data());
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(block0[i], whole[i]);
    EXPECT_EQ(block1[i], whole[6 + i]);
  }
}

} // namespace
