//===- RunnerError.cpp - the errors of the step runners -------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Runner/RunnerError.h"

#include "llvm/Support/raw_ostream.h"

using namespace remat;

char RunnerError::ID = 0;

void RunnerError::log(llvm::raw_ostream &os) const { os << message; }

std::error_code RunnerError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

llvm::Error remat::makeRunnerError(const llvm::Twine &message, int exitCode) {
  return llvm::make_error<RunnerError>(message, exitCode);
}
