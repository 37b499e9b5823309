//===- CostModelTest.cpp - unit tests for the cost model ------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Tests the parts of the cost model that the remat-annotate-costs pass cannot
// reach: the error for ops without tensor results, and the
// profile parser and its matching order on locations built in C++.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/CostModel.h"

#include "FindOp.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace remat;

namespace {

class CostModelTest : public ::testing::Test {
protected:
  CostModelTest() {
    context.loadDialect<arith::ArithDialect, func::FuncDialect,
                        linalg::LinalgDialect, tensor::TensorDialect,
                        RematDialect>();
  }

  /// Parses `source` and returns the first op named `name` in it.
  Operation *parseAndFind(StringRef source, StringRef name) {
    module = parseSourceString<ModuleOp>(source, &context);
    if (!module)
      return nullptr;
    return remat::test::findFirstOp(*module, name);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(CostModelTest, MatmulCost) {
  Operation *op = parseAndFind(R"mlir(
    func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>, %c: tensor<2x5xf32>) -> tensor<2x5xf32> {
      %0 = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x5xf32>)
                         outs(%c : tensor<2x5xf32>) -> tensor<2x5xf32>
      return %0 : tensor<2x5xf32>
    })mlir",
                               "linalg.matmul");
  ASSERT_NE(op, nullptr);
  FailureOr<CostAttr> cost = computeOpCost(op, CostModelOptions());
  ASSERT_TRUE(succeeded(cost));
  // 2*5*4 bytes; 2*M*N*K = 2*2*5*3 FLOPs.
  EXPECT_EQ(cost->getBytes().vec(), std::vector<int64_t>{40});
  EXPECT_EQ(cost->getFlops(), 60);
  EXPECT_FALSE(cost->getTimeNs().has_value());
}

TEST_F(CostModelTest, ScalarOpIsAnErrorNotACrash) {
  Operation *op = parseAndFind(R"mlir(
    func.func @f(%x: f32) -> f32 {
      %0 = arith.addf %x, %x : f32
      return %0 : f32
    })mlir",
                               "arith.addf");
  ASSERT_NE(op, nullptr);
  EXPECT_FALSE(producesTensor(op));
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  EXPECT_TRUE(failed(computeOpCost(op, CostModelOptions())));
  EXPECT_EQ(message, "'arith.addf' op produces no tensor; the cost model only "
                     "costs tensor results");
}

TEST_F(CostModelTest, ProfileLookupOrder) {
  llvm::Expected<CostProfile> profile = CostProfile::parse(
      R"json({"ops": [{"loc": "a.py:3:4", "time_ns": 1},
                      {"loc": "a.py:3", "time_ns": 2},
                      {"name": "layer", "time_ns": 3},
                      {"name": "arith.constant", "time_ns": 4}]})json",
      "test.json");
  ASSERT_TRUE(static_cast<bool>(profile))
      << llvm::toString(profile.takeError());
  EXPECT_EQ(profile->size(), 4u);

  OpBuilder b(&context);
  auto fileLoc = [&](unsigned line, unsigned col) {
    return FileLineColLoc::get(&context, "a.py", line, col);
  };
  auto timeAt = [&](Location loc) {
    Operation *op = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0));
    std::optional<int64_t> time = profile->lookup(op);
    op->erase();
    return time;
  };
  EXPECT_EQ(timeAt(fileLoc(3, 4)), 1);
  // Another column of line 3 falls back to "a.py:3".
  EXPECT_EQ(timeAt(fileLoc(3, 9)), 2);
  // The location inside a NameLoc beats the name.
  EXPECT_EQ(timeAt(NameLoc::get(b.getStringAttr("layer"), fileLoc(3, 4))), 1);
  EXPECT_EQ(timeAt(NameLoc::get(b.getStringAttr("layer"), fileLoc(7, 1))), 3);
  // Inside a call-site location too.
  EXPECT_EQ(timeAt(CallSiteLoc::get(fileLoc(9, 9), fileLoc(3, 4))), 1);
  // Nothing else matches: the per-kind default.
  EXPECT_EQ(timeAt(fileLoc(8, 1)), 4);
}

TEST_F(CostModelTest, ProfileErrors) {
  auto errorOf = [](StringRef json) {
    llvm::Expected<CostProfile> profile = CostProfile::parse(json, "p.json");
    if (profile)
      return std::string("<no error>");
    return llvm::toString(profile.takeError());
  };
  EXPECT_EQ(errorOf(R"({"ops": {}})"),
            "profile 'p.json': expected an \"ops\" array at the top level");
  EXPECT_EQ(errorOf(R"({"ops": [3]})"),
            "profile 'p.json': ops[0]: expected an object");
  EXPECT_EQ(errorOf(R"({"ops": [{"time_ns": 3}]})"),
            "profile 'p.json': ops[0]: expected exactly one of \"loc\" and "
            "\"name\"");
  EXPECT_EQ(errorOf(R"({"ops": [{"name": "", "time_ns": 3}]})"),
            "profile 'p.json': ops[0].name: must be a non-empty string");
  EXPECT_EQ(errorOf(R"({"ops": [{"name": 7, "time_ns": 3}]})"),
            "profile 'p.json': ops[0].name: expected string");
  EXPECT_EQ(errorOf(R"({"ops": [{"name": "x"}]})"),
            "profile 'p.json': ops[0]: missing \"time_ns\"");
  EXPECT_EQ(errorOf(R"({"ops": [{"name": "x", "time_ns": "3"}]})"),
            "profile 'p.json': ops[0].time_ns: expected a number");
  EXPECT_EQ(errorOf(R"({"ops": [{"name": "x", "time_ns": 1e19}]})"),
            "profile 'p.json': ops[0].time_ns: must be a non-negative "
            "number below 9e18");
  // Beyond a double's range: out of range, not "not a number".
  EXPECT_EQ(errorOf(R"({"ops": [{"name": "x", "time_ns": 1e400}]})"),
            "profile 'p.json': ops[0].time_ns: number out of range (beyond "
            "1.8e308)");
  // Refused before parsing: LLVM's parser and destructor recurse per level.
  std::string deep = "{\"ops\": " + std::string(50000, '[') +
                     std::string(50000, ']') + "}";
  EXPECT_EQ(errorOf(deep), "profile 'p.json': JSON nested 50001 levels deep "
                           "(from 1:108); at most 100 levels are accepted");
  EXPECT_EQ(errorOf(R"({"ops": []})"), "<no error>");
}

} // namespace
