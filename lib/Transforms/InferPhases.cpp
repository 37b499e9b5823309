//===- InferPhases.cpp - mark ops forward or backward ---------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The `remat-infer-phases` pass: a thin shell over remat::annotatePhases.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/Phases.h"
#include "remat/Transforms/FunctionFilter.h"
#include "remat/Transforms/Passes.h"

namespace remat {
#define GEN_PASS_DEF_REMATINFERPHASES
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {

struct RematInferPhasesPass
    : public SelectedFunctionsPass<
          remat::impl::RematInferPhasesBase<RematInferPhasesPass>> {
  using SelectedFunctionsPass::SelectedFunctionsPass;

  void runOnSelectedFunction(func::FuncOp func) override {
    ForwardOutputs outputs;
    if (loss != -1)
      outputs.loss = loss;
    outputs.results.assign(forwardResults.begin(), forwardResults.end());
    if (failed(annotatePhases(func, outputs)))
      return signalPassFailure();
  }
};

} // namespace
