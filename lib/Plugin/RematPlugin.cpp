//===- RematPlugin.cpp - remat dialect and passes as an mlir-opt plugin ---===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Entry points that the stock `mlir-opt` looks up in a plugin library:
//
//   mlir-opt --load-dialect-plugin=RematPlugin.so \
//            --load-pass-plugin=RematPlugin.so \
//            --pass-pipeline="builtin.module(remat-pipeline{budget=70%})" in.mlir
//
// The dialect plugin registers the remat dialect (so that `remat.*`
// attributes and `remat.barrier` parse); the pass plugin registers every
// remat pass and pipeline. mlir-opt parses its command-line flags before it
// loads plugins, so plugin passes are reachable only through
// `--pass-pipeline`. The library links libMLIR.so, the same copy of MLIR as
// the stock tool, so that TypeIDs and registries are shared.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/InitAllPasses.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

using namespace mlir;

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Remat", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            registry->insert<remat::RematDialect>();
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Remat", LLVM_VERSION_STRING,
          []() { remat::registerAllPasses(); }};
}
