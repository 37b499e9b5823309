//===- FunctionFilter.h - the functions a remat pass works on ---*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The one definition of the `functions=` option that every function-level
// remat pass and `--remat-pipeline` take. A module often holds more than the
// training step: private helpers, declarations of runtime functions, test
// utilities. By default a pass works on every public function with a body;
// `functions=a,b` names the functions instead. A name that is not a function
// with a body in the enclosing module is an error naming it (reported once per
// module, at its first function with a body).
//
// Usage, in a pass anchored on func.func: derive from the generated base
// through `SelectedFunctionsPass` and implement `runOnSelectedFunction`
// instead of `runOnOperation`:
//
//   struct MyPass : public remat::SelectedFunctionsPass<
//                       remat::impl::RematMyPassBase<MyPass>> {
//     using SelectedFunctionsPass::SelectedFunctionsPass;
//     void runOnSelectedFunction(mlir::func::FuncOp func) override { ... }
//   };
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TRANSFORMS_FUNCTIONFILTER_H
#define REMAT_TRANSFORMS_FUNCTIONFILTER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace remat {

/// Whether a pass with option `functions=names` works on `func`: a function
/// with a body that `names` lists, or, when `names` is empty, any public
/// function with a body. Fails, with an error naming them at the first
/// function with a body of `func`'s symbol table, if some names are no
/// function with a body there; `passName` prefixes the message. Only reads
/// the names of `func`'s siblings, never their bodies.
mlir::FailureOr<bool> isSelectedFunction(mlir::func::FuncOp func,
                                         llvm::ArrayRef<std::string> names,
                                         llvm::StringRef passName);

/// A pass on func.func with a `functions=` option (`PassBase`, its generated
/// base class, declares it through `RematFunctionsOption`) that works only on
/// the functions the option selects (isSelectedFunction): it fails when the
/// option names a function that is not there, preserves every analysis of a
/// function it leaves out, and calls `runOnSelectedFunction` on the others.
template <typename PassBase> class SelectedFunctionsPass : public PassBase {
public:
  using PassBase::PassBase;

  /// The pass's work on one selected function.
  virtual void runOnSelectedFunction(mlir::func::FuncOp func) = 0;

  void runOnOperation() final {
    mlir::func::FuncOp func = this->getOperation();
    mlir::FailureOr<bool> selected =
        isSelectedFunction(func, this->functions, this->getArgument());
    if (mlir::failed(selected))
      return this->signalPassFailure(); // a located error was emitted
    if (!*selected)
      return this->markAllAnalysesPreserved();
    runOnSelectedFunction(func);
  }
};

} // namespace remat

#endif // REMAT_TRANSFORMS_FUNCTIONFILTER_H
