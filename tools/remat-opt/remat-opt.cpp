//===- remat-opt.cpp - remat-opt driver -----------------------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// mlir-opt with the remat dialect and passes, plus every upstream dialect,
// extension and pass a user of linalg-on-tensors training IR needs. Unlike
// mlir-opt, a diagnostic of a pass located on a very long source line (the
// one-line signatures of imported models) prints its location without
// echoing the line (remat/Support/Diagnostics.h).
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/InitAllPasses.h"
#include "remat/Support/Diagnostics.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#ifdef REMAT_INCLUDE_TESTS
namespace remat {
namespace test {
void registerTestPasses();
} // namespace test
} // namespace remat
#endif

/// MlirOptMain(argc, argv, ...) with the long-line diagnostic handler
/// registered on each context before its passes run (after parsing; not
/// while diagnostics are verified, which must see every diagnostic).
static mlir::LogicalResult runRematOpt(int argc, char **argv,
                                       mlir::DialectRegistry &registry) {
  llvm::InitLLVM initLLVM(argc, argv);
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "remat-opt: rematerialization planner\n", registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  if (!config.shouldVerifyDiagnostics()) {
    mlir::MlirOptMainConfig pipeline = config;
    config.setPassPipelineSetupFn([pipeline](mlir::PassManager &pm) {
      remat::registerLongLineDiagnosticHandler(pm.getContext());
      return pipeline.setupPassPipeline(pm);
    });
  }
  std::string errorMessage;
  auto input = mlir::openInputFile(inputFilename, &errorMessage);
  auto output = input ? mlir::openOutputFile(outputFilename, &errorMessage)
                      : nullptr;
  if (!input || !output) {
    llvm::errs() << errorMessage << "\n";
    return mlir::failure();
  }
  if (mlir::failed(
          mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return mlir::failure();
  output->keep();
  return mlir::success();
}

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  remat::registerAllPasses();
#ifdef REMAT_INCLUDE_TESTS
  remat::test::registerTestPasses();
#endif

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<remat::RematDialect>();
  // gpu-module-to-binary (in remat-lower-to-nvvm) translates kernels to
  // LLVM IR.
  mlir::registerAllGPUToLLVMIRTranslations(registry);

  return mlir::asMainReturnCode(runRematOpt(argc, argv, registry));
}
