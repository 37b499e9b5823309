//===- VerifyMemory.cpp - check peak memory against the budget ------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/MemoryAnalysis.h"
#include "remat/Solver/Budget.h"
#include "remat/Transforms/FunctionFilter.h"
#include "remat/Transforms/PassOptions.h"
#include "remat/Transforms/Passes.h"
#include "remat/Transforms/Rematerialize.h"

#include "llvm/Support/FormatVariadic.h"

namespace remat {
#define GEN_PASS_DEF_REMATVERIFYMEMORY
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {
struct VerifyMemoryPass
    : public BlankCheckedOptions<SelectedFunctionsPass<
          remat::impl::RematVerifyMemoryBase<VerifyMemoryPass>>> {
  using BlankCheckedOptions::BlankCheckedOptions;

  void runOnSelectedFunction(func::FuncOp func) override {
    markAllAnalysesPreserved();
    auto plan = func->getAttrOfType<PlanAttr>(RematDialect::kPlanAttrName);
    if (budget.empty() && !plan) {
      // Passing silently would read as "verified".
      mlir::emitError(func.getLoc())
          << getArgument() << ": nothing to verify '" << func.getSymName()
          << "' against: it has no remat.plan and no budget= is given (plan "
             "it with --remat-select-checkpoints, give budget=, or leave it "
             "out with functions=)";
      return signalPassFailure();
    }

    int64_t limit = plan ? plan.getBudget() : 0;
    if (!budget.empty()) {
      if (StringRef(budget).trim().ends_with("%") && !plan) {
        mlir::emitError(func.getLoc())
            << "budget '" << budget
            << "' is a percentage but the function has no "
               "remat.plan to take the checkpoint-all peak from";
        return signalPassFailure();
      }
      std::string error;
      std::optional<int64_t> parsed =
          parseBudget(budget, plan ? plan.getBaselinePeak() : 0, error);
      if (!parsed) {
        mlir::emitError(func.getLoc())
            << "invalid budget '" << budget << "': " << error;
        return signalPassFailure();
      }
      limit = *parsed;
    }

    auto &memory = getAnalysis<MemoryAnalysis>();
    if (failed(memory.emitError()))
      return signalPassFailure();
    int64_t peak = memory.getPeakBytes();
    if (peak > limit) {
      InFlightDiagnostic diag = mlir::emitError(func.getLoc())
                                << "peak memory of " << peak
                                << " bytes exceeds the budget of " << limit
                                << " bytes";
      memory.attachPeakNotes(diag, "the peak");
      return signalPassFailure();
    }

    // Reported at the function's location, without dumping the function.
    InFlightDiagnostic remark = mlir::emitRemark(func.getLoc());
    remark << "peak memory " << peak << " bytes within the budget of " << limit
           << " bytes";
    if (plan) {
      int64_t recomputed = 0;
      func.walk([&](Operation *op) {
        recomputed += op->hasAttr(RematDialect::kRecomputedAttrName);
      });
      double overhead =
          plan.getBaselineCost() > 0
              ? static_cast<double>(plan.getCost() - plan.getBaselineCost()) /
                    static_cast<double>(plan.getBaselineCost())
              : 0.0;
      remark << " (checkpoint-all " << plan.getBaselinePeak() << " bytes); "
             << recomputed << " recomputed op(s), compute "
             << "overhead " << llvm::formatv("{0:F1}%", overhead * 100.0).str();
    }
  }
};
} // namespace
