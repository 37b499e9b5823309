//===- RematPipeline.cpp - the remat-pipeline pass pipeline ---------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Pipelines/Pipelines.h"
#include "remat/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void remat::buildRematPipeline(OpPassManager &pm,
                               const RematPipelineOptions &options) {
  OpPassManager &funcPm = pm.nest<func::FuncOp>();
  funcPm.addPass(createRematAnnotateCosts());
  funcPm.addPass(createRematInferPhases());
  if (!options.exportGraph.empty()) {
    RematExportGraphOptions exportGraph;
    exportGraph.output = options.exportGraph;
    exportGraph.dataArgs = options.dataArgs;
    pm.addPass(createRematExportGraph(exportGraph));
    return;
  }

  RematSelectCheckpointsOptions select;
  select.solver = options.solver;
  select.mode = options.mode;
  select.budget = options.budget;
  select.timeLimit = options.timeLimit;
  select.dataArgs = options.dataArgs;
  select.schedule = options.schedule;
  funcPm.addPass(createRematSelectCheckpoints(select));

  RematRematerializeOptions rematerialize;
  rematerialize.insertBarriers = options.insertBarriers;
  funcPm.addPass(createRematRematerialize(rematerialize));

  funcPm.addPass(createRematVerifyMemory());
}

void remat::registerRematPipeline() {
  PassPipelineRegistration<RematPipelineOptions>(
      "remat-pipeline",
      "Plan and apply rematerialization so every function's peak memory "
      "meets the budget: remat-annotate-costs, remat-infer-phases, "
      "remat-select-checkpoints, remat-rematerialize, remat-verify-memory",
      buildRematPipeline);
}
