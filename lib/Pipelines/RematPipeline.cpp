//===- RematPipeline.cpp - the remat-pipeline pass pipeline ---------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Pipelines/Pipelines.h"
#include "remat/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void remat::buildRematPipeline(OpPassManager &pm,
                               const RematPipelineOptions &options) {
  // Calls are opaque to the cost model: plan the inlined step instead. No
  // canonicalization afterwards, which would change the program beyond the
  // inlining.
  if (options.inlineCalls)
    pm.addPass(
        createInlinerPass(/*opPipelines=*/{},
                          /*defaultPipelineBuilder=*/[](OpPassManager &) {}));

  SmallVector<std::string> functions(options.functions.begin(),
                                     options.functions.end());
  OpPassManager &funcPm = pm.nest<func::FuncOp>();
  RematAnnotateCostsOptions annotate;
  annotate.functions = functions;
  annotate.dynamicSizeHint = options.dynamicSizeHint;
  funcPm.addPass(createRematAnnotateCosts(annotate));
  RematInferPhasesOptions infer;
  infer.functions = functions;
  funcPm.addPass(createRematInferPhases(infer));
  if (!options.exportGraph.empty()) {
    RematExportGraphOptions exportGraph;
    exportGraph.output = options.exportGraph;
    exportGraph.dataArgs = options.dataArgs;
    if (functions.size() == 1)
      exportGraph.function = functions.front();
    pm.addPass(createRematExportGraph(exportGraph));
    return;
  }

  RematSelectCheckpointsOptions select;
  select.solver = options.solver;
  select.mode = options.mode;
  select.budget = options.budget;
  select.timeLimit = options.timeLimit;
  select.dataArgs = options.dataArgs;
  select.functions = functions;
  select.schedule = options.schedule;
  funcPm.addPass(createRematSelectCheckpoints(select));

  RematRematerializeOptions rematerialize;
  rematerialize.insertBarriers = options.insertBarriers;
  rematerialize.functions = functions;
  funcPm.addPass(createRematRematerialize(rematerialize));

  RematVerifyMemoryOptions verify;
  verify.functions = functions;
  funcPm.addPass(createRematVerifyMemory(verify));
}

void remat::registerRematPipeline() {
  PassPipelineRegistration<RematPipelineOptions>(
      "remat-pipeline",
      "Plan and apply rematerialization so every selected function's peak "
      "memory meets the budget: inline, remat-annotate-costs, "
      "remat-infer-phases, "
      "remat-select-checkpoints, remat-rematerialize, remat-verify-memory",
      buildRematPipeline);
}
