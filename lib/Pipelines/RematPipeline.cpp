//===- RematPipeline.cpp - the remat-pipeline pass pipeline ---------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Pipelines/CheckedPipeline.h"
#include "remat/Pipelines/Pipelines.h"
#include "remat/Solver/Algorithms/Blocks.h"
#include "remat/Transforms/PassOptions.h"
#include "remat/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace remat;

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
  // Each writer its own tensor.empty, as the lowering pipelines make it: a
  // shared one is one buffer from the first writer to the last, which the
  // model (and so the checkpoint-all baseline) would not count.
  funcPm.addPass(createRematSplitSharedEmpty());
  RematAnnotateCostsOptions annotate;
  annotate.functions = functions;
  // Max-batch without a hint starts its search at one sample; the hint is
  // only where the search starts (the plan is costed again at the batch it
  // finds), so it warns at no op.
  bool maxBatch = options.mode == Mode::MaxBatch;
  annotate.dynamicSizeHint =
      options.dynamicSizeHint == 0 && maxBatch ? 1 : options.dynamicSizeHint;
  annotate.warnings = !maxBatch;
  annotate.device = options.device;
  annotate.link = options.link;
  annotate.allowUnknown = options.allowUnknown;
  funcPm.addPass(createRematAnnotateCosts(annotate));
  RematInferPhasesOptions infer;
  infer.functions = functions;
  infer.loss = options.loss;
  infer.forwardResults.assign(options.forwardResults.begin(),
                              options.forwardResults.end());
  funcPm.addPass(createRematInferPhases(infer));
  if (!options.exportGraph.empty()) {
    RematExportGraphOptions exportGraph;
    exportGraph.output = options.exportGraph;
    exportGraph.dataArgs = options.dataArgs;
    exportGraph.gatherPolicy = options.gatherPolicy;
    // The graph the select step below would plan, arena included.
    if (options.arena)
      exportGraph.arenaAlignment = options.arenaAlignment;
    if (functions.size() == 1)
      exportGraph.function = functions.front();
    pm.addPass(createRematExportGraph(exportGraph));
    return;
  }

  RematSelectCheckpointsOptions select;
  select.solver = options.policy.empty() ? std::string(options.solver)
                                         : policySolver(options.policy);
  select.mode = options.mode;
  select.budget = options.budget;
  select.effort = options.effort;
  select.timeLimit = options.timeLimit;
  select.dataArgs = options.dataArgs;
  select.gatherPolicy = options.gatherPolicy;
  select.functions = functions;
  select.schedule = options.schedule;
  select.arena = options.arena;
  select.arenaAlignment = options.arenaAlignment;
  select.hostLink = options.hostLink;
  select.hostBudget = options.hostBudget;
  select.gathersOnHostLink = options.gathersOnHostLink;
  select.offload = options.offload;
  funcPm.addPass(createRematSelectCheckpoints(select));

  RematRematerializeOptions rematerialize;
  rematerialize.insertBarriers = options.insertBarriers;
  rematerialize.functions = functions;
  funcPm.addPass(createRematRematerialize(rematerialize));

  RematVerifyMemoryOptions verify;
  verify.functions = functions;
  verify.arenaAlignment = options.arenaAlignment;
  funcPm.addPass(createRematVerifyMemory(verify));
}

/// Parses the options of remat-pipeline; a blank inside an option value
/// (`budget= 70 %`) is an error naming the option.
static LogicalResult
parseRematPipelineOptions(StringRef text, RematPipelineOptions &options,
                          PipelineErrorHandler errorHandler) {
  std::string known;
  llvm::raw_string_ostream os(known);
  options.print(os);
  if (failed(checkOptionBlanks(text, known, "remat-pipeline", errorHandler)) ||
      failed(options.parseFromString(text)))
    return failure();
  if (options.policy.empty())
    return success();
  if (policySolver(options.policy).empty())
    return errorHandler("remat-pipeline: " +
                        describeUnknownPolicy(options.policy));
  if (options.solver.getValue() != "auto")
    return errorHandler("remat-pipeline: policy= and solver= both given; "
                        "a policy is the plan's solver");
  return success();
}

void remat::registerRematPipeline() {
  registerCheckedPipeline<RematPipelineOptions>(
      "remat-pipeline",
      "Plan and apply rematerialization so every selected function's peak "
      "memory meets the budget: inline, remat-split-shared-empty, "
      "remat-annotate-costs, "
      "remat-infer-phases, "
      "remat-select-checkpoints, remat-rematerialize, remat-verify-memory",
      parseRematPipelineOptions, buildRematPipeline);
}
