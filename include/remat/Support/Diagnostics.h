//===- Diagnostics.h - diagnostics of the remat tools -----------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// How the remat tools print diagnostics beyond MLIR's SourceMgr handler.
// Imported models write a training step's signature on one line of 100 KB
// and more; a diagnostic located there (an infeasible budget is reported at
// the function) would echo that line. The handler here prints such a
// diagnostic, and its notes, as "<file>:<line>:<col>: <severity>: <message>"
// without the line, and leaves every other diagnostic to the next handler.
//
// Usage, on a context whose SourceMgr handler is already registered (and
// not while diagnostics are verified: -verify-diagnostics must see them):
//
//   registerLongLineDiagnosticHandler(context);
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SUPPORT_DIAGNOSTICS_H
#define REMAT_SUPPORT_DIAGNOSTICS_H

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace remat {

/// Source lines longer than this are not echoed.
inline constexpr unsigned kMaxEchoedLineLength = 1000;

/// Registers on `context`, ahead of the handlers registered so far, a
/// handler for the diagnostics located (they or one of their notes) on a
/// source line longer than `maxLineLength`: it prints them without echoing
/// any source line. It reads the located files to measure their lines;
/// locations in files it cannot read (stdin) go on to the next handler.
void registerLongLineDiagnosticHandler(
    mlir::MLIRContext *context, unsigned maxLineLength = kMaxEchoedLineLength);

} // namespace remat

#endif // REMAT_SUPPORT_DIAGNOSTICS_H
