//===- MemoryAnalysisTest.cpp - unit tests for the memory analysis --------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Tests the C++ API of MemoryAnalysis that the lit tests (through the
// test-remat-memory remarks) cannot reach: caching and invalidation through
// the analysis manager, queries on ops that are not top-level, the recorded
// error of a failed analysis.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/MemoryAnalysis.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/AnalysisManager.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace remat;

namespace {

class MemoryAnalysisTest : public ::testing::Test {
protected:
  MemoryAnalysisTest() {
    context.loadDialect<func::FuncDialect, linalg::LinalgDialect,
                        memref::MemRefDialect, scf::SCFDialect,
                        tensor::TensorDialect, RematDialect>();
  }

  /// Parses `source` and returns its first function.
  func::FuncOp parse(StringRef source) {
    module = parseSourceString<ModuleOp>(source, &context);
    if (!module)
      return nullptr;
    auto funcs = module->getOps<func::FuncOp>();
    return funcs.empty() ? nullptr : *funcs.begin();
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

// Resident %x = 64 bytes; %a = 100 (#1), %b = 70 (#2, last use of %a),
// return %b (#3): timeline 64, 164, 234, 134. (A cost may overstate a
// result's 64 bytes, never understate it.)
constexpr StringLiteral kChain = R"mlir(
func.func @chain(%x: tensor<16xf32>) -> tensor<16xf32> {
  %e = tensor.empty() {remat.cost = #remat.cost<bytes = [0], flops = 0>} : tensor<16xf32>
  %a = linalg.exp {remat.cost = #remat.cost<bytes = [100], flops = 16>}
      ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %b = linalg.exp {remat.cost = #remat.cost<bytes = [70], flops = 16>}
      ins(%a : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  return %b : tensor<16xf32>
}
)mlir";

TEST_F(MemoryAnalysisTest, Queries) {
  func::FuncOp func = parse(kChain);
  ASSERT_TRUE(func);
  MemoryAnalysis memory(func);
  ASSERT_TRUE(memory.succeeded());
  EXPECT_TRUE(succeeded(memory.emitError()));
  EXPECT_FALSE(memory.getErrorMessage());

  EXPECT_EQ(memory.getTimeline(), ArrayRef<int64_t>({64, 164, 234, 134}));
  EXPECT_EQ(memory.getPeakBytes(), 234);
  EXPECT_EQ(memory.getPeakIndex(), 2u);
  EXPECT_TRUE(isa<linalg::ExpOp>(memory.getPeakOp()));
  EXPECT_EQ(memory.getResidentBytes(), 64);
  EXPECT_EQ(memory.getTotalBytes(), 234);

  // Largest first: %a (100), %b (70), %x (64).
  SmallVector<const BufferLiveRange *> live = memory.getLiveBuffers(2);
  ASSERT_EQ(live.size(), 3u);
  EXPECT_EQ(live[0]->bytes, 100);
  EXPECT_EQ(live[0]->kind, BufferLiveRange::Kind::Tensor);
  EXPECT_EQ(live[0]->begin, 1u);
  EXPECT_EQ(live[0]->end, 2u);
  EXPECT_EQ(live[1]->bytes, 70);
  EXPECT_EQ(live[1]->end, 3u);
  EXPECT_EQ(live[2]->kind, BufferLiveRange::Kind::Argument);
  EXPECT_EQ(live[2]->op, nullptr);

  // The return is top-level; the function itself and nested ops are not.
  Operation *ret = func.getBody().front().getTerminator();
  EXPECT_EQ(memory.getIndex(ret), 3u);
  EXPECT_EQ(memory.getLiveBytes(ret), 134);
  EXPECT_FALSE(memory.getLiveBytes(func));
}

TEST_F(MemoryAnalysisTest, CachedAndInvalidated) {
  func::FuncOp func = parse(kChain);
  ASSERT_TRUE(func);
  ModuleAnalysisManager moduleManager(*module, /*passInstrumentor=*/nullptr);
  AnalysisManager manager = moduleManager;
  AnalysisManager funcManager = manager.nest(func);

  MemoryAnalysis &first = funcManager.getAnalysis<MemoryAnalysis>();
  EXPECT_EQ(&funcManager.getAnalysis<MemoryAnalysis>(), &first);

  // Kept when a pass preserves it explicitly.
  AnalysisManager::PreservedAnalyses preserved;
  preserved.preserve<MemoryAnalysis>();
  funcManager.invalidate(preserved);
  EXPECT_TRUE(funcManager.getCachedAnalysis<MemoryAnalysis>());

  // Dropped otherwise: reordering ops changes the answer.
  funcManager.invalidate(AnalysisManager::PreservedAnalyses());
  EXPECT_FALSE(funcManager.getCachedAnalysis<MemoryAnalysis>());
}

TEST_F(MemoryAnalysisTest, RecordedError) {
  func::FuncOp func = parse(R"mlir(
func.func @dynamic(%n: index) {
  %a = memref.alloc(%n) : memref<?xf32>
  return
}
)mlir");
  ASSERT_TRUE(func);
  MemoryAnalysis memory(func);
  EXPECT_FALSE(memory.succeeded());
  std::optional<std::string> message = memory.getErrorMessage();
  ASSERT_TRUE(message);
  EXPECT_NE(message->find("no static size"), std::string::npos);
  // A failed analysis answers nothing.
  EXPECT_TRUE(memory.getTimeline().empty());
  EXPECT_EQ(memory.getPeakBytes(), 0);
  EXPECT_EQ(memory.getPeakOp(), nullptr);

  // The error is emitted only on request, at the allocation.
  std::string emitted;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    emitted = diag.str();
    return success();
  });
  EXPECT_TRUE(failed(memory.emitError()));
  EXPECT_NE(emitted.find("'memref.alloc' op allocates"), std::string::npos);
}

TEST_F(MemoryAnalysisTest, NotAFunction) {
  ASSERT_TRUE(parse(kChain));
  MemoryAnalysis memory(module->getOperation());
  EXPECT_FALSE(memory.succeeded());
  EXPECT_NE(memory.getErrorMessage()->find("is not a function"),
            std::string::npos);
}

TEST_F(MemoryAnalysisTest, OptionsChangeTheModel) {
  func::FuncOp func = parse(kChain);
  ASSERT_TRUE(func);
  MemoryAnalysisOptions options;
  options.countArguments = false;
  MemoryAnalysis memory(func, options);
  EXPECT_EQ(memory.getPeakBytes(), 170);
  EXPECT_EQ(memory.getResidentBytes(), 0);
}

} // namespace
