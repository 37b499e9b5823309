//===- MemoryReport.cpp - JSON report of liveness and peak memory ---------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// A thin pass over MemoryAnalysis and writeMemoryReport.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/MemoryAnalysis.h"
#include "remat/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"

#include <memory>

namespace remat {
#define GEN_PASS_DEF_REMATMEMORYREPORT
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {
struct MemoryReportPass
    : public remat::impl::RematMemoryReportBase<MemoryReportPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MemoryAnalysisOptions analysisOptions;
    analysisOptions.countArguments = countArguments;
    analysisOptions.requireCosts = requireCosts;
    analysisOptions.countAlignmentPadding = countAlignmentPadding;
    bool defaults = analysisOptions == MemoryAnalysisOptions();

    SmallVector<FunctionOpInterface> functions;
    for (auto func : module.getOps<FunctionOpInterface>())
      if (!func.isExternal() &&
          (function.empty() || func.getName() == function))
        functions.push_back(func);
    if (!function.empty() && functions.empty()) {
      mlir::emitError(module.getLoc()) << "remat-memory-report: no function named '"
                         << function << "' with a body in the module";
      return signalPassFailure();
    }

    // Cached analyses for the default model; private ones otherwise.
    std::vector<std::unique_ptr<MemoryAnalysis>> owned;
    SmallVector<const MemoryAnalysis *> analyses;
    bool failed = false;
    for (FunctionOpInterface func : functions) {
      const MemoryAnalysis *analysis;
      if (defaults) {
        analysis = &getChildAnalysis<MemoryAnalysis>(func);
      } else {
        owned.push_back(
            std::make_unique<MemoryAnalysis>(func, analysisOptions));
        analysis = owned.back().get();
      }
      failed |= mlir::failed(analysis->emitError());
      analyses.push_back(analysis);
    }
    if (failed)
      return signalPassFailure();

    // stdout carries the IR: '-' means stderr, so that the two never mix.
    if (output == "-") {
      writeMemoryReport(analyses, llvm::errs());
      markAllAnalysesPreserved();
      return;
    }
    std::string errorMessage;
    std::unique_ptr<llvm::ToolOutputFile> file =
        openOutputFile(output, &errorMessage);
    if (!file) {
      mlir::emitError(module.getLoc()) << "remat-memory-report: cannot open '" << output
                         << "': " << errorMessage;
      return signalPassFailure();
    }
    writeMemoryReport(analyses, file->os());
    file->keep();
    markAllAnalysesPreserved();
  }
};
} // namespace
