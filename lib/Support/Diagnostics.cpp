//===- Diagnostics.cpp - diagnostics of the remat tools -------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Support/Diagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <vector>

using namespace mlir;
using namespace remat;

namespace {

/// The line lengths of the files diagnostics point at, read once each.
class LineLengths {
public:
  /// The length of 1-based line `line` of `file`; nullopt when the file
  /// cannot be read or has no such line.
  std::optional<size_t> get(StringRef file, unsigned line) {
    auto [it, inserted] = files.try_emplace(file);
    if (inserted)
      it->second = read(file);
    const std::vector<size_t> &lengths = it->second;
    if (line == 0 || line > lengths.size())
      return std::nullopt;
    return lengths[line - 1];
  }

private:
  static std::vector<size_t> read(StringRef file) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
        llvm::MemoryBuffer::getFile(file, /*IsText=*/true);
    std::vector<size_t> lengths;
    if (!buffer)
      return lengths;
    StringRef text = (*buffer)->getBuffer();
    while (!text.empty()) {
      auto [line, rest] = text.split('\n');
      lengths.push_back(line.size());
      text = rest;
    }
    return lengths;
  }

  llvm::StringMap<std::vector<size_t>> files;
};

llvm::SourceMgr::DiagKind getDiagKind(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Note:
    return llvm::SourceMgr::DK_Note;
  case DiagnosticSeverity::Warning:
    return llvm::SourceMgr::DK_Warning;
  case DiagnosticSeverity::Error:
    return llvm::SourceMgr::DK_Error;
  case DiagnosticSeverity::Remark:
    return llvm::SourceMgr::DK_Remark;
  }
  llvm_unreachable("unknown diagnostic severity");
}

/// Prints one diagnostic or note as "<file>:<line>:<col>: <severity>:
/// <message>" (or "<location>: ..." without a file location), no source
/// line.
void printWithoutLine(Location loc, DiagnosticSeverity severity,
                      const llvm::Twine &message) {
  llvm::SourceMgr noSources;
  auto fileLoc = loc->findInstanceOf<FileLineColLoc>();
  if (!fileLoc) {
    std::string text;
    llvm::raw_string_ostream os(text);
    if (!isa<UnknownLoc>(loc))
      os << loc << ": ";
    os << message;
    noSources.PrintMessage(llvm::errs(), llvm::SMLoc(), getDiagKind(severity),
                           text);
    return;
  }
  // Without a line number SMDiagnostic prints no source line.
  std::string where = (fileLoc.getFilename().getValue() + ":" +
                       llvm::Twine(fileLoc.getLine()) + ":" +
                       llvm::Twine(fileLoc.getColumn()))
                          .str();
  llvm::SMDiagnostic diag(where, getDiagKind(severity), message.str());
  diag.print(nullptr, llvm::errs());
}

} // namespace

void remat::registerLongLineDiagnosticHandler(MLIRContext *context,
                                              unsigned maxLineLength) {
  auto lengths = std::make_shared<LineLengths>();
  auto isOnLongLine = [=](Location loc) {
    auto fileLoc = loc->findInstanceOf<FileLineColLoc>();
    if (!fileLoc)
      return false;
    std::optional<size_t> length =
        lengths->get(fileLoc.getFilename(), fileLoc.getLine());
    return length && *length > maxLineLength;
  };
  context->getDiagEngine().registerHandler(
      [=](Diagnostic &diag) -> LogicalResult {
        if (!isOnLongLine(diag.getLocation()) &&
            llvm::none_of(diag.getNotes(), [&](Diagnostic &note) {
              return isOnLongLine(note.getLocation());
            }))
          return failure(); // the next handler prints it
        printWithoutLine(diag.getLocation(), diag.getSeverity(), diag.str());
        for (Diagnostic &note : diag.getNotes())
          printWithoutLine(note.getLocation(), note.getSeverity(), note.str());
        return success();
      });
}
