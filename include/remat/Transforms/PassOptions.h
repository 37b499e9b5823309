//===- PassOptions.h - checks on pass option strings ------------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// MLIR splits a pass's option string at blanks, so `budget= 70 %` sets
// `budget` to the empty string and then fails on "no such option 70", which
// does not say what went wrong. The remat passes and pipelines whose options
// users type by hand check the string first and name the option instead.
//
// Usage, for a pass: derive from its generated base through
// `BlankCheckedOptions`:
//
//   struct MyPass : public remat::BlankCheckedOptions<
//                       remat::impl::RematMyPassBase<MyPass>> {
//     using Base::Base;
//     ...
//   };
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TRANSFORMS_PASSOPTIONS_H
#define REMAT_TRANSFORMS_PASSOPTIONS_H

#include "mlir/Pass/Pass.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/Twine.h"

namespace remat {

/// Fails through `errorHandler`, naming the option, when a blank in
/// `options` (the option string of `passName`) leaves a piece of a value
/// that is no option name in `known`, the printed options of the pass or
/// pipeline (`printAsTextualPipeline`, `PassOptions::print`)
/// (`budget= 70 %`, `budget=70 KiB`); values in quotes or braces may hold
/// blanks, and `key=` alone stays an empty value. Succeeds otherwise,
/// without parsing anything: the caller parses next.
mlir::LogicalResult checkOptionBlanks(
    llvm::StringRef options, llvm::StringRef known, llvm::StringRef passName,
    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> errorHandler);

/// `checkOptionBlanks` for the options of `pass`, named by its argument.
mlir::LogicalResult checkOptionBlanks(
    mlir::Pass &pass, llvm::StringRef options,
    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> errorHandler);

/// A pass whose option string is checked by `checkOptionBlanks` before
/// `PassBase` (the pass's generated base class) parses it.
template <typename PassBase> class BlankCheckedOptions : public PassBase {
public:
  using PassBase::PassBase;

  mlir::LogicalResult
  initializeOptions(llvm::StringRef options,
                    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)>
                        errorHandler) override {
    if (mlir::failed(checkOptionBlanks(*this, options, errorHandler)))
      return mlir::failure();
    return PassBase::initializeOptions(options, errorHandler);
  }
};

} // namespace remat

#endif // REMAT_TRANSFORMS_PASSOPTIONS_H
