//===- RunnerError.h - the errors of the step runners -----------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// How the pieces of a step runner report failure: every function of
// lib/Runner returns an llvm::Error (or Expected) holding a RunnerError, its
// message and the status the tool exits with; only a tool's main exits
// (runnerMain, RunnerMain.h, prints it as "<tool>: error: <message>").
//
//   if (!buffer)
//     return makeRunnerError("out of memory allocating argument #0");
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_RUNNER_RUNNERERROR_H
#define REMAT_RUNNER_RUNNERERROR_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <string>
#include <system_error>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace remat {

/// An error of a runner: its message (printed "<tool>: error: <message>")
/// and the status the tool exits with.
class RunnerError : public llvm::ErrorInfo<RunnerError> {
public:
  static char ID;
  RunnerError(const llvm::Twine &message, int exitCode)
      : message(message.str()), exitCode(exitCode) {}
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;
  int getExitCode() const { return exitCode; }

private:
  std::string message;
  int exitCode;
};

/// A RunnerError: exit status 1 unless `exitCode` says otherwise.
llvm::Error makeRunnerError(const llvm::Twine &message, int exitCode = 1);

} // namespace remat

#endif // REMAT_RUNNER_RUNNERERROR_H
