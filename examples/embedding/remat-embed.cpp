//===- remat-embed.cpp - remat-opt's pipeline inside another compiler -----===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// What a front end's driver does to use rematerialization: parse a training
// step on tensors, run `remat-pipeline` (plan + rematerialize + verify) and
// then its own bufferization, and print the result.
//
//   remat-embed step.mlir [budget]      (budget: bytes or a percentage)
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Pipelines/Pipelines.h"
#include "remat/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    llvm::errs() << "usage: remat-embed step.mlir [budget]\n";
    return 2;
  }

  // The dialects of a linalg-on-tensors training step, remat's own, and the
  // bufferization models of the ops that one-shot bufferization meets.
  DialectRegistry registry;
  registry.insert<arith::ArithDialect, bufferization::BufferizationDialect,
                  func::FuncDialect, linalg::LinalgDialect, math::MathDialect,
                  memref::MemRefDialect, tensor::TensorDialect,
                  remat::RematDialect>();
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  MLIRContext context(registry);

  // Errors, and remat-verify-memory's remark on the peak, go to stderr with
  // their locations.
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(argv[1], sourceMgr, &context);
  if (!module)
    return 1;

  PassManager pm(&context);
  // 1. Rematerialization, on tensors: every func.func of the module.
  remat::RematPipelineOptions rematOptions;
  rematOptions.budget = argc > 2 ? argv[2] : "70%";
  rematOptions.solver = "local-search";
  remat::buildRematPipeline(pm, rematOptions);
  // 2. The barriers and remat.* attributes describe tensors: drop them right
  // before bufferization (but the function's remat.planned_arena, which a
  // later remat-plan-arena meets, and a remat.dynamic_size_hint).
  remat::RematStripBarriersOptions strip;
  strip.stripAttributes = true;
  pm.addPass(remat::createRematStripBarriers(strip));
  // 3. This project's own bufferization.
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));

  if (failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  return 0;
}
