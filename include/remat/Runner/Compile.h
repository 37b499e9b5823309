//===- Compile.h - from a runner's module to a callable entry ---*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// How a step runner turns its module into code it can call: the lowering
// (the pass pipeline given as text, e.g. by --pipeline, or the runner's
// default) and the JIT compilation of the lowered module, which yields the
// entry's packed wrapper (CallABI.h says how its arguments are laid out).
// runnerMain (RunnerMain.h) does both; prepareRankEntry (Ranks.h) lowers
// with the partitioning pass.
//
//   if (llvm::Error error = lowerModule(module, "", file, buildDefault))
//     return error;
//   llvm::Expected<JITEntry> jit = compileEntry(module, "step", 2, {}, {});
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_RUNNER_COMPILE_H
#define REMAT_RUNNER_COMPILE_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <utility>

namespace mlir {
class ExecutionEngine;
class PassManager;
} // namespace mlir

namespace remat {

/// Runs the lowering of --pipeline on `module`: nothing for "none",
/// `buildDefault` for the empty string, otherwise the given pass pipeline
/// ("builtin.module(a,b)" or "a,b"). Fails when the pipeline does not parse
/// or fails on `filename`.
llvm::Error
lowerModule(mlir::ModuleOp module, llvm::StringRef pipeline,
            llvm::StringRef filename,
            llvm::function_ref<void(mlir::PassManager &)> buildDefault);

/// The entry of a JIT-compiled module, called with ExecutionEngine's packed
/// convention (see PackedCall, CallABI.h).
struct JITEntry {
  std::unique_ptr<mlir::ExecutionEngine> engine;
  void (*call)(void **) = nullptr;
};

/// Initializes the native target, JIT-compiles `module` (in the LLVM
/// dialect) at LLVM `optLevel`, loading `sharedLibPaths` and binding each
/// (name, address) of `symbols` in the JIT'd code, runs its global
/// constructors, and looks up the packed wrapper of `entry`.
llvm::Expected<JITEntry>
compileEntry(mlir::ModuleOp module, llvm::StringRef entry, unsigned optLevel,
             llvm::ArrayRef<llvm::StringRef> sharedLibPaths,
             llvm::ArrayRef<std::pair<llvm::StringRef, void *>> symbols);

} // namespace remat

#endif // REMAT_RUNNER_COMPILE_H
