//===- IRProblemFuzzer.cpp - libFuzzer target for IR -> problem -----------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Feeds arbitrary bytes to the MLIR parser with the dialects of a training
// step registered, runs what `--remat-select-checkpoints` runs before a
// solver (remat-annotate-costs with allow-unknown, remat-infer-phases, the
// graph builder) and checks what it builds: a well-formed graph whose
// checkpoint-all schedule the simulator accepts. Diagnostics are expected
// and swallowed; a crash, a sanitizer report or a broken property (an abort)
// is a bug. Built with -DREMAT_ENABLE_FUZZERS=ON (scripts/fuzz.sh).
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Solver/Core/ScheduleBuilder.h"
#include "remat/Solver/Core/Simulator.h"
#include "remat/Transforms/GraphBuilder.h"
#include "remat/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"


using namespace mlir;
using namespace remat;

/// One context for the whole run: loading the dialects dominates otherwise.
static MLIRContext &getContext() {
  static MLIRContext *context = [] {
    DialectRegistry registry;
    registry.insert<arith::ArithDialect, bufferization::BufferizationDialect,
                    func::FuncDialect, linalg::LinalgDialect, math::MathDialect,
                    memref::MemRefDialect, scf::SCFDialect,
                    tensor::TensorDialect, RematDialect>();
    auto *created = new MLIRContext(registry);
    created->loadAllAvailableDialects();
    created->disableMultithreading();
    return created;
  }();
  return *context;
}

/// The graph of every function the passes prepared must be well formed.
static void checkGraphs(ModuleOp module) {
  module.walk([](func::FuncOp func) {
    FailureOr<FunctionGraph> graph = buildFunctionGraph(func);
    if (failed(graph))
      return;
    require(graph->graph.check().empty(), "a built graph is well formed");
    require(simulate(graph->graph, checkpointAllSchedule(graph->graph)).valid(),
            "a built graph's checkpoint-all schedule is valid");
  });
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &context = getContext();
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      StringRef(reinterpret_cast<const char *>(data), size),
      ParserConfig(&context));
  if (!module)
    return 0;
  PassManager pm(&context);
  RematAnnotateCostsOptions costs;
  costs.allowUnknown = true;
  pm.addNestedPass<func::FuncOp>(createRematAnnotateCosts(costs));
  pm.addNestedPass<func::FuncOp>(createRematInferPhases());
  if (failed(pm.run(*module)))
    return 0;
  checkGraphs(*module);
  return 0;
}
