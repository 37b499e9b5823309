//===- StorageTest.cpp - unit tests for the storage model -----------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Tests the storage model (Analysis/Storage.h) where IR tests cannot reach:
// element and type sizes under the default and an explicit data layout,
// saturation, dynamic sizes, and which ops own storage or are views.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/Storage.h"

#include "FindOp.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace remat;

namespace {

class StorageTest : public ::testing::Test {
protected:
  StorageTest() {
    context.loadDialect<arith::ArithDialect, bufferization::BufferizationDialect,
                        DLTIDialect, func::FuncDialect, linalg::LinalgDialect,
                        memref::MemRefDialect, tensor::TensorDialect>();
  }

  /// The first op named `name` in the module parsed last.
  Operation *find(StringRef name) {
    return remat::test::findFirstOp(*module, name);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(StorageTest, ElementBytesUnderTheDefaultLayout) {
  Builder b(&context);
  DataLayout layout;
  EXPECT_EQ(getElementStorageBytes(b.getI1Type(), layout), 1);
  EXPECT_EQ(getElementStorageBytes(b.getIntegerType(4), layout), 1);
  // LLVM's alloc size: the size rounded up to the ABI alignment.
  EXPECT_EQ(getElementStorageBytes(b.getIntegerType(17), layout), 4);
  EXPECT_EQ(getElementStorageBytes(b.getIntegerType(24), layout), 4);
  EXPECT_EQ(getElementStorageBytes(b.getF80Type(), layout), 16);
  EXPECT_EQ(
      getElementStorageBytes(VectorType::get({3}, b.getF32Type()), layout), 16);
  EXPECT_EQ(getElementStorageBytes(b.getF16Type(), layout), 2);
  EXPECT_EQ(getElementStorageBytes(b.getF64Type(), layout), 8);
  EXPECT_EQ(getElementStorageBytes(b.getIndexType(), layout), 8);
  EXPECT_EQ(getElementStorageBytes(ComplexType::get(b.getF32Type()), layout),
            8);
  EXPECT_EQ(
      getElementStorageBytes(VectorType::get({4}, b.getF32Type()), layout), 16);
  EXPECT_EQ(getElementStorageBytes(
                VectorType::get({4}, b.getF32Type(), /*scalableDims=*/{true}),
                layout),
            std::nullopt);
  EXPECT_EQ(getElementStorageBytes(b.getNoneType(), layout), std::nullopt);
}

TEST_F(StorageTest, TypeBytes) {
  Builder b(&context);
  DataLayout layout;
  EXPECT_EQ(getStorageBytes(RankedTensorType::get({4}, b.getI1Type()), layout),
            4);
  EXPECT_EQ(getStorageBytes(MemRefType::get({2}, b.getIndexType()), layout),
            16);
  EXPECT_EQ(getStorageBytes(MemRefType::get(
                                {3}, VectorType::get({4}, b.getF32Type())),
                            layout),
            48);
  EXPECT_EQ(getStorageBytes(b.getF32Type(), layout), 4);
  EXPECT_EQ(getStorageBytes(UnrankedTensorType::get(b.getF32Type()), layout),
            std::nullopt);
  auto dynamic = RankedTensorType::get({ShapedType::kDynamic, 3}, b.getF32Type());
  EXPECT_EQ(getStorageBytes(dynamic, layout), std::nullopt);
  EXPECT_EQ(getStorageBytes(dynamic, layout, /*dynamicSize=*/5), 60);
}

// 2^62 x 4 elements of 4 bytes: 2^66 bytes saturate instead of wrapping to 0.
TEST_F(StorageTest, SizesSaturate) {
  Builder b(&context);
  DataLayout layout;
  auto huge =
      RankedTensorType::get({int64_t(1) << 62, 4}, b.getF32Type());
  std::optional<int64_t> bytes = getStorageBytes(huge, layout);
  ASSERT_TRUE(bytes.has_value());
  EXPECT_TRUE(isSaturated(*bytes));
  // A dynamic dimension without a size makes the size unknown, even after
  // an overflow.
  auto hugeDynamic = RankedTensorType::get(
      {int64_t(1) << 62, 4, ShapedType::kDynamic}, b.getF32Type());
  EXPECT_EQ(getStorageBytes(hugeDynamic, layout), std::nullopt);
  EXPECT_FALSE(isSaturated(*getStorageBytes(
      RankedTensorType::get({int64_t(1) << 60}, b.getI8Type()), layout)));
}

// A module's data layout sets the width of `index` (and of any scalar).
TEST_F(StorageTest, DataLayoutInScope) {
  module = parseSourceString<ModuleOp>(R"mlir(
    module attributes {dlti.dl_spec = #dlti.dl_spec<
        #dlti.dl_entry<index, 32 : i64>>} {
      func.func @f(%x: tensor<3xindex>) -> tensor<3xindex> {
        return %x : tensor<3xindex>
      }
    })mlir",
                                       &context);
  ASSERT_TRUE(module);
  Operation *op = find("func.func");
  Builder b(&context);
  EXPECT_EQ(getStorageBytes(RankedTensorType::get({3}, b.getIndexType()), op),
            12);
  EXPECT_EQ(getStorageBytes(RankedTensorType::get({3}, b.getF32Type()), op),
            12);
}

TEST_F(StorageTest, ViewsAndOwnership) {
  module = parseSourceString<ModuleOp>(R"mlir(
    func.func @f(%x: tensor<8xf32>, %m: memref<8xf32>) -> tensor<4xf32> {
      %e = tensor.empty() : tensor<4xf32>
      %c = arith.constant dense<1.0> : tensor<4xf32>
      %s = tensor.extract_slice %x[0] [4] [1] : tensor<8xf32> to tensor<4xf32>
      %v = memref.subview %m[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
      %a = arith.addf %s, %c : tensor<4xf32>
      %f = linalg.copy ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
      return %f : tensor<4xf32>
    })mlir",
                                       &context);
  ASSERT_TRUE(module);
  Operation *slice = find("tensor.extract_slice");
  auto func = cast<func::FuncOp>(find("func.func"));
  Operation *subview = find("memref.subview");
  Operation *add = find("arith.addf");
  Operation *copy = find("linalg.copy");

  EXPECT_TRUE(isViewOp(slice));
  EXPECT_EQ(getViewSource(slice), func.getArgument(0));
  EXPECT_TRUE(isViewOp(subview));
  EXPECT_EQ(getViewSource(subview), func.getArgument(1));
  EXPECT_FALSE(isViewOp(add));
  EXPECT_EQ(getViewSource(add), Value());

  EXPECT_TRUE(ownsNoStorage(slice));
  EXPECT_TRUE(ownsNoStorage(find("tensor.empty")));
  EXPECT_TRUE(ownsNoStorage(find("arith.constant")));
  EXPECT_FALSE(ownsNoStorage(add));
  EXPECT_FALSE(ownsNoStorage(copy));

  EXPECT_EQ(getStorageSource(slice->getResult(0)), func.getArgument(0));
  // A destination-style op shares the buffer of its init.
  EXPECT_EQ(getStorageSource(copy->getResult(0)), copy->getOperand(1));
  EXPECT_EQ(getStorageSource(add->getResult(0)), Value());
}

} // namespace
