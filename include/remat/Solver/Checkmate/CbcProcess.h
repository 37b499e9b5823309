//===- CbcProcess.h - CBC in a child process --------------------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The Checkmate MILP runs CBC in a child process: the fork, the pipe, and
// the encoding of CBC's answer on it. Plain POSIX; no COIN-OR.
//
// Why a child process: Debian's CBC 2.10 and CLP 1.17 keep their assertions,
// and some fire on small models (docs/Testing.md). In the caller's process an
// assertion would end remat-opt, a test binary, or a compiler that loaded
// the passes as a plugin; in a child it ends the child, and the MILP answers
// with its best warm start.
//
// What the child may touch after `fork()`: the caller may be multithreaded
// (remat-opt runs remat-select-checkpoints on several functions at once),
// and a lock that another thread held at the fork stays locked in the child
// for good. POSIX therefore allows only async-signal-safe calls in such a
// child; CBC is not that, so the child keeps to the following, and any
// change to what it runs must too:
//   * it reads only what the calling thread built before the fork (the
//     formulation, the MIP start, the options) and what it builds itself;
//   * it allocates with malloc/new, which glibc makes safe: its fork() holds
//     malloc's and stdio's locks across the fork and resets them in the
//     child (this relies on glibc);
//   * it takes no lock that other threads of the caller use: no MLIR
//     context, no LLVM statics, no streams. The progress callback
//     (`SolveOptions::progress`) runs in the child as well and must keep to
//     this (remat-solve's writes to the unbuffered llvm::errs());
//   * CBC's worker threads (`-threads`) start in the child, after the fork;
//   * it ends with `_exit`, running no atexit handler or static destructor
//     and flushing no stdio buffer inherited from the caller (the caller
//     flushes them before the fork).
// A helper executable started with posix_spawn would not rely on glibc, but
// needs the formulation serialized and a binary the library can find, also
// from a plugin loaded into the stock mlir-opt; the fork keeps the MILP a
// library call.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_CHECKMATE_CBCPROCESS_H
#define REMAT_SOLVER_CHECKMATE_CBCPROCESS_H

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace remat {
namespace checkmate {

/// What one CBC run leaves, as the child process sends it back.
struct CbcRaw {
  /// The best solution; empty when CBC has none.
  std::vector<double> best;
  double objective = 0;
  double bound = -std::numeric_limits<double>::max();
  bool provenOptimal = false;
  bool provenInfeasible = false;
  bool secondsLimitReached = false;
  bool nodeLimitReached = false;
  /// Branch-and-bound nodes it took (its work).
  int64_t nodes = 0;
};

/// Sends `answer` down `fd`: the child's side of `runIsolated`.
bool sendAnswer(int fd, const CbcRaw &answer);

/// Reads back what `sendAnswer` sent; false when `text` is not one whole
/// answer.
bool decodeAnswer(const std::string &text, CbcRaw &raw);

/// Runs `solve` in a child process (see the file comment for what it may
/// do there), so that an abort inside CBC or CLP ends the child and not the
/// caller; the child is killed when it has not answered after `seconds`.
/// Returns false, with `failure` saying what happened, when no whole answer
/// came back. Where a pipe or fork is not available the solve runs in this
/// process.
bool runIsolated(const std::function<CbcRaw()> &solve, double seconds,
                 CbcRaw &raw, std::string &failure);

} // namespace checkmate
} // namespace remat

#endif // REMAT_SOLVER_CHECKMATE_CBCPROCESS_H
