//===- ExportGraph.cpp - write a function's problem graph as JSON ---------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// A thin pass over buildFunctionGraph and printGraphJSON: the graph that
// remat-select-checkpoints solves, for remat-solve.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/IO/GraphJSON.h"
#include "remat/Transforms/GraphBuilder.h"
#include "remat/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"

namespace remat {
#define GEN_PASS_DEF_REMATEXPORTGRAPH
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

/// The function `name` with a body, or the only one when `name` is empty.
static FailureOr<func::FuncOp> findFunction(ModuleOp module, StringRef name) {
  SmallVector<func::FuncOp> functions;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() && (name.empty() || func.getSymName() == name))
      functions.push_back(func);
  if (functions.size() == 1)
    return functions.front();
  InFlightDiagnostic diag = mlir::emitError(module.getLoc())
                            << "remat-export-graph: ";
  if (!name.empty())
    return diag << "no function named '" << name << "' with a body";
  if (functions.empty())
    return diag << "no function with a body";
  diag << functions.size()
       << " functions with a body; choose one with function=<name>:";
  for (func::FuncOp func : functions)
    diag << " " << func.getSymName();
  return diag;
}

namespace {
struct ExportGraphPass
    : public remat::impl::RematExportGraphBase<ExportGraphPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<func::FuncOp> func = findFunction(module, function);
    if (failed(func))
      return signalPassFailure();
    GraphBuilderOptions options;
    options.numDataArgs = dataArgs;
    options.gatherPolicy = gatherPolicy;
    if (arenaAlignment > 0)
      options.transientAlignment = arenaAlignment;
    FailureOr<FunctionGraph> graph = buildFunctionGraph(*func, options);
    if (failed(graph))
      return signalPassFailure();

    std::string errorMessage;
    std::unique_ptr<llvm::ToolOutputFile> file =
        openOutputFile(output, &errorMessage);
    if (!file) {
      mlir::emitError(module.getLoc())
          << "remat-export-graph: " << errorMessage;
      return signalPassFailure();
    }
    file->os() << printGraphJSON(graph->graph);
    file->keep();
    markAllAnalysesPreserved();
  }
};
} // namespace
