//===- remat-opt.cpp - remat-opt driver -----------------------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// mlir-opt with the remat dialect and passes, plus every upstream dialect,
// extension and pass a user of linalg-on-tensors training IR needs.
//
//===----------------------------------------------------------------------===//

#include "remat/InitAllPasses.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#ifdef REMAT_INCLUDE_TESTS
namespace remat {
namespace test {
void registerTestPasses();
} // namespace test
} // namespace remat
#endif

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

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "remat-opt: rematerialization planner\n",
                        registry));
}
