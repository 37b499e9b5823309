//===- CheckedPipeline.h - pipelines that check their options ---*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// `registerCheckedPipeline<Options>`: as upstream's
// `PassPipelineRegistration<Options>`, but the option string is read by a
// function of the pipeline's own, which may reject what the plain parser
// accepts (a blank inside a value, a chip LLVM does not know) with an error
// through the pass manager's error handler. The home of what
// remat-pipeline and remat-lower-to-nvvm share.
//
//   static LogicalResult parseOptions(StringRef text, MyOptions &options,
//                                     PipelineErrorHandler errorHandler);
//   registerCheckedPipeline<MyOptions>("my-pipeline", "...", parseOptions,
//                                      buildMyPipeline);
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_PIPELINES_CHECKEDPIPELINE_H
#define REMAT_PIPELINES_CHECKEDPIPELINE_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

namespace remat {

/// Reports an error in a pipeline's option string (the pass manager's).
using PipelineErrorHandler =
    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)>;

/// Registers pipeline `name`: `parse` reads the option string into `Options`
/// (failing through the error handler, or as `parseFromString` fails), then
/// `build` adds the passes. `--help` lists the options of `Options`.
template <typename Options>
void registerCheckedPipeline(
    llvm::StringRef name, llvm::StringRef description,
    mlir::LogicalResult (*parse)(llvm::StringRef text, Options &options,
                                 PipelineErrorHandler errorHandler),
    void (*build)(mlir::OpPassManager &pm, const Options &options)) {
  mlir::registerPassPipeline(
      name, description,
      [parse, build](mlir::OpPassManager &pm, llvm::StringRef text,
                     PipelineErrorHandler errorHandler) {
        Options options;
        if (mlir::failed(parse(text, options, errorHandler)))
          return mlir::failure();
        build(pm, options);
        return mlir::success();
      },
      [](llvm::function_ref<void(const mlir::detail::PassOptions &)>
             optHandler) { optHandler(Options()); });
}

} // namespace remat

#endif // REMAT_PIPELINES_CHECKEDPIPELINE_H
