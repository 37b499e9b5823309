//===- TestMemoryAnalysis.cpp - remarks from the memory analysis ----------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// `test-remat-memory` reports MemoryAnalysis as remarks, so lit tests can
// check it with `expected-remark` and `--verify-diagnostics`:
//   * on each function: `peak = <bytes> bytes at #<index> <op name>` with the
//     resident and total bytes, and `live at peak: <value> (<bytes>), ...`;
//   * with `per-op`, on each top-level op: `live = <bytes> bytes`.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/MemoryAnalysis.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

using namespace mlir;
using namespace remat;

namespace {
struct TestMemoryAnalysisPass
    : public PassWrapper<TestMemoryAnalysisPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestMemoryAnalysisPass)

  TestMemoryAnalysisPass() = default;
  TestMemoryAnalysisPass(const TestMemoryAnalysisPass &other)
      : PassWrapper(other) {}

  StringRef getArgument() const final { return "test-remat-memory"; }
  StringRef getDescription() const final {
    return "Report the memory analysis (peak, live bytes) as remarks";
  }

  Option<bool> perOp{*this, "per-op",
                     llvm::cl::desc("Also emit `live = N bytes` on each "
                                    "top-level op"),
                     llvm::cl::init(false)};
  Option<std::string> function{
      *this, "function",
      llvm::cl::desc("Analyse only the function with this name")};
  Option<bool> countArguments{
      *this, "count-arguments",
      llvm::cl::desc("Count function arguments as resident"),
      llvm::cl::init(true)};
  Option<bool> requireCosts{
      *this, "require-costs",
      llvm::cl::desc("Error on tensor ops without remat.cost"),
      llvm::cl::init(false)};
  Option<bool> countAlignmentPadding{
      *this, "count-alignment-padding",
      llvm::cl::desc("Count alignment padding of allocations"),
      llvm::cl::init(false)};

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MemoryAnalysisOptions options;
    options.countArguments = countArguments;
    options.requireCosts = requireCosts;
    options.countAlignmentPadding = countAlignmentPadding;

    bool found = false;
    bool failed = false;
    for (auto func : module.getOps<FunctionOpInterface>()) {
      if (func.isExternal() ||
          (!function.empty() && func.getName() != function))
        continue;
      found = true;
      MemoryAnalysis memory(func, options);
      if (mlir::failed(memory.emitError())) {
        failed = true;
        continue;
      }
      report(func, memory);
    }
    if (!function.empty() && !found) {
      module.emitError() << "test-remat-memory: no function named '" << function
                         << "' with a body in the module";
      failed = true;
    }
    if (failed)
      return signalPassFailure();
    markAllAnalysesPreserved();
  }

  void report(FunctionOpInterface func, const MemoryAnalysis &memory) {
    Operation *peakOp = memory.getPeakOp();
    if (!peakOp) {
      func.emitRemark() << "peak = 0 bytes: empty body";
      return;
    }
    func.emitRemark() << "peak = " << memory.getPeakBytes() << " bytes at #"
                      << memory.getPeakIndex() << " " << peakOp->getName()
                      << "; resident = " << memory.getResidentBytes()
                      << " bytes; total = " << memory.getTotalBytes()
                      << " bytes";
    if (unsigned unsized = memory.getUnsizedArguments())
      func.emitRemark() << unsized << " argument(s) of dynamic size not "
                        << "counted";

    AsmState state(func, OpPrintingFlags().useLocalScope());
    std::string live;
    llvm::raw_string_ostream os(live);
    llvm::interleaveComma(memory.getLiveBuffers(memory.getPeakIndex()), os,
                          [&](const BufferLiveRange *buffer) {
                            buffer->value.printAsOperand(os, state);
                            os << " (" << buffer->bytes << ")";
                          });
    func.emitRemark() << "live at peak: " << live;

    if (perOp)
      for (auto [op, bytes] : llvm::zip(memory.getOps(), memory.getTimeline()))
        op->emitRemark() << "live = " << bytes << " bytes";
  }
};
} // namespace

namespace remat {
namespace test {
void registerTestMemoryAnalysisPass() {
  PassRegistration<TestMemoryAnalysisPass>();
}
} // namespace test
} // namespace remat
