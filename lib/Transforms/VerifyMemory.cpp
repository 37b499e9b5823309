//===- VerifyMemory.cpp - check peak memory against the budget ------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/MemoryAnalysis.h"
#include "remat/Solver/Search/ArenaFit.h"
#include "remat/Solver/Core/Budget.h"
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

/// The static memory plan of the analysed function: its resident arguments
/// plus one arena of every other buffer, planned over the analysis's live
/// ranges with the planning pipeline's options and steps (planFitArena),
/// searching on toward `limit` as the lowering searches toward its target,
/// so that the arena the plan recorded is found again. Fails with a located
/// error when no arena can be planned.
static FailureOr<ArenaPlan> planFunctionArena(const MemoryAnalysis &memory,
                                              int64_t alignment, int64_t limit,
                                              int64_t &totalBytes) {
  ArenaProblem problem =
      getArenaProblem(memory, alignment, [](const BufferLiveRange &buffer) {
        return buffer.kind != BufferLiveRange::Kind::Argument;
      });
  totalBytes = memory.getResidentBytes();
  ArenaFitOptions options = getArenaFitOptions(alignment);
  options.planner.targetBytes = std::max<int64_t>(limit - totalBytes, -1);
  ArenaPlan arena = planFitArena(problem, totalBytes, limit, options);
  if (!arena.valid() || !addBytes(totalBytes, arena.bytes))
    return mlir::emitError(memory.getFunction()->getLoc())
           << "cannot plan the arena: "
           << (arena.valid() ? "it exceeds 2^62 bytes" : arena.error);
  return arena;
}

/// Checks the function's arena against `limit` when its plan records one;
/// appends it to the remark's text.
static LogicalResult verifyArena(func::FuncOp func,
                                 const MemoryAnalysis &memory, PlanAttr plan,
                                 int64_t alignment, int64_t limit,
                                 std::string &text) {
  if (!plan || !plan.getArena())
    return success();
  int64_t totalBytes = 0;
  FailureOr<ArenaPlan> arena =
      planFunctionArena(memory, alignment, limit, totalBytes);
  if (failed(arena))
    return failure();
  if (totalBytes > limit) {
    InFlightDiagnostic diag =
        mlir::emitError(func.getLoc())
        << "the arena of " << totalBytes << " bytes ("
        << memory.getResidentBytes() << " bytes of arguments and "
        << arena->bytes
        << " of buffers at planned offsets) exceeds the budget of " << limit
        << " bytes; the sum-of-live peak is " << memory.getPeakBytes()
        << " bytes";
    memory.attachPeakNotes(diag, "the sum-of-live peak");
    return diag;
  }
  text = llvm::formatv("; arena {0} bytes", totalBytes).str();
  return success();
}

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
    std::string arenaText;
    if (failed(
            verifyArena(func, memory, plan, arenaAlignment, limit, arenaText)))
      return signalPassFailure();

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
    remark << arenaText;
  }
};
} // namespace
