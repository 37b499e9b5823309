//===- RunnerMain.h - the main every step runner shares ---------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// remat-run and remat-gpu-run share one main, as upstream's runners share
// JitRunnerMain (mlir/ExecutionEngine/JitRunner.h): runnerMain parses the
// options and the input, picks the entry, prepares the ranks of a
// data-parallel run, refuses values too large to allocate, lowers, JIT-
// compiles, lets the runner run the entry and measure it, and prints the
// report (RunReport.h). What differs between the runners is a RunnerConfig:
// the default lowering, what the JIT'd code links to, and how the entry is
// run and measured. Every step returns its error; runnerMain prints it as
// "<tool>: error: <message>" and returns the exit status, which the tool's
// main returns: nothing in the library exits the process.
//
//   int main(int argc, char **argv) {
//     RunnerConfig config;
//     config.toolName = "remat-run";
//     ... // the callbacks
//     return runnerMain(argc, argv, config);
//   }
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_RUNNER_RUNNERMAIN_H
#define REMAT_RUNNER_RUNNERMAIN_H

#include "remat/Runner/Compile.h"
#include "remat/Runner/Ranks.h"
#include "remat/Runner/RunReport.h"
#include "remat/Runner/RunnerError.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mlir {
class DialectRegistry;
class PassManager;
} // namespace mlir

namespace remat {

/// The options every runner takes, registered in `category` on
/// construction (runnerMain constructs them).
struct RunnerOptions {
  /// `pipelineHelp` and `printLoweredHelp` describe the runner's lowering.
  RunnerOptions(llvm::cl::OptionCategory &category,
                llvm::StringRef pipelineHelp, llvm::StringRef printLoweredHelp);

  /// Parses the command line, showing only the options of `category` in
  /// --help. Fails on an unknown or malformed option (LLVM's message goes to
  /// stderr) and when --repeat or --opt-level is out of range.
  llvm::Error parseCommandLine(int argc, char **argv,
                               llvm::StringRef overview);

  llvm::cl::OptionCategory &category;

  llvm::cl::opt<std::string> inputFilename;
  llvm::cl::opt<std::string> pipeline;
  llvm::cl::opt<std::string> entryName;
  llvm::cl::opt<bool> emitJson;
  llvm::cl::opt<unsigned> repeatCount;
  llvm::cl::opt<bool> printResults;
  llvm::cl::opt<unsigned> optLevel;
  llvm::cl::opt<bool> printLowered;
};

/// What the JIT'd code links to besides the process: shared libraries to
/// load, and symbols bound by name (runnerMain adds the MPI ones).
struct JITLinkage {
  std::vector<std::string> sharedLibs;
  llvm::SmallVector<std::pair<llvm::StringRef, void *>> symbols;
};

/// What a runner's `runEntry` works with.
struct RunContext {
  /// The JIT-compiled entry.
  JITEntry &jit;
  /// The signature of the program that runs and how this rank's inputs are
  /// cut from the single-process ones.
  const RankEntry &entry;
  RankSession &session;
  const RunnerOptions &options;
  /// The bytes of the arena the lowering planned for the entry
  /// (`remat.arena_bytes` on the lowered entry, docs/Arena.md); 0 when none
  /// was planned (each buffer its own allocation).
  int64_t arenaBytes = 0;
  /// `remat.host_copies` on the lowered entry (host peak bytes, copies,
  /// bytes moved: docs/Offload.md); empty without host copies.
  llvm::SmallVector<int64_t, 3> hostCopies;
};

/// What differs between the runners.
struct RunnerConfig {
  /// Prefixes the errors ("remat-run: error: ...").
  llvm::StringRef toolName;
  /// The first line of --help.
  llvm::StringRef overview;
  /// The device the report names ("cuda"), or empty for the host.
  llvm::StringRef device;
  /// The category of the tool's own options; RunnerOptions joins it, and
  /// --help shows only it.
  llvm::cl::OptionCategory *category = nullptr;
  /// The help of --pipeline and of --print-lowered.
  llvm::StringRef pipelineHelp;
  llvm::StringRef printLoweredHelp;
  /// Adds the LLVM IR translations the JIT needs besides the builtin and
  /// LLVM dialects' (which the input's context always has); may be null.
  llvm::function_ref<void(mlir::DialectRegistry &)> registerTranslations;
  /// The lowering of `module` when --pipeline is not given.
  llvm::function_ref<void(mlir::PassManager &, mlir::ModuleOp)>
      buildDefaultPipeline;
  /// Called after lowering, before the JIT: prepares the device of this
  /// rank and returns what the JIT'd code links to.
  llvm::function_ref<llvm::Expected<JITLinkage>(const RankSession &)>
      prepareJIT;
  /// Runs the entry --repeat times on this rank's inputs; adds the results'
  /// checksums and the measurements to the report (whose file, entry,
  /// device, ranks and result types are set).
  llvm::function_ref<llvm::Error(const RunContext &, RunReport &)> runEntry;
};

/// The main of a runner (from llvm::InitLLVM on); returns the exit status
/// (0, 1 on an error, or the status a RunnerError carries).
int runnerMain(int argc, char **argv, const RunnerConfig &config);

/// Keeps only `entry` and the functions it references (transitively): the
/// others need not be lowered nor compiled.
void eraseUnreachableFunctions(mlir::ModuleOp module,
                               mlir::func::FuncOp entry);

} // namespace remat

#endif // REMAT_RUNNER_RUNNERMAIN_H
