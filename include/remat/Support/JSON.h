//===- JSON.h - reading JSON inputs with precise errors ---------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// What every JSON reader of remat-opt shares (remat-solve's graphs, the saved
// schedules of `schedule=`, the cost profiles of `profile=`, the runners' rank
// reports):
//
//   * parseJSON refuses input nested deeper than kMaxJSONDepth before
//     llvm::json parses it: its parser and its value destructor recurse once
//     per level, and 50,000 levels overflow the stack;
//   * JSONErrors turns the errors of a read through llvm::json::ObjectMapper
//     and llvm::json::Path into "<path>: <message>" ("nodes[3].bytes:
//     negative size -4", "$" for the root): json::Path records where, and
//     JSONErrors adds messages that name values, which json::Path cannot
//     hold (it takes string literals only).
//
// Usage (a json::Path refers to its parent path: keep each level that a
// later path is derived from in a variable, or pass it as an argument):
//
//   llvm::Expected<llvm::json::Value> root = parseJSON(text);
//   if (!root) ...;                        // syntax or nesting error
//   JSONErrors errors;
//   llvm::json::Path path = errors.root();
//   llvm::json::ObjectMapper o(*root, path);
//   JSONInt bytes;
//   if (!o || !o.map("bytes", bytes))      // type errors: json::Path
//     return errors.getMessage();          // "bytes: expected an integer"
//   if (bytes.value < 0) {                 // what values mean: JSONErrors
//     errors.fail(path.field("bytes"), "negative size " + Twine(bytes.value));
//     return errors.getMessage();          // "bytes: negative size -4"
//   }
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SUPPORT_JSON_H
#define REMAT_SUPPORT_JSON_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <string>

namespace remat {

/// The deepest nesting of arrays and objects the readers accept. Every
/// format of remat-opt needs at most 4 levels.
inline constexpr unsigned kMaxJSONDepth = 100;

/// The deepest nesting of arrays and objects in `text` (strings skipped),
/// and the 1-based line and column where it first exceeds `limit` (0 when
/// it does not). Reads `text` once, without recursion.
struct JSONDepth {
  unsigned depth = 0;
  unsigned line = 0, column = 0;
};
JSONDepth measureJSONDepth(llvm::StringRef text, unsigned limit);

/// Parses `text` as JSON. Fails with "JSON nested <N> levels deep (from
/// <line>:<column>); at most <kMaxJSONDepth> levels are accepted" before
/// parsing when the nesting is deeper, or with LLVM's syntax error
/// "invalid JSON [<line>:<column>, byte=<N>]: <message>".
llvm::Expected<llvm::json::Value> parseJSON(llvm::StringRef text);

/// The first error of a JSON read, with its path.
class JSONErrors {
public:
  JSONErrors() = default;
  JSONErrors(const JSONErrors &) = delete;
  JSONErrors &operator=(const JSONErrors &) = delete;

  /// The path of the root value: read through it (and paths derived from
  /// it) so that the errors of llvm::json's fromJSON are recorded here.
  llvm::json::Path root() { return llvm::json::Path(pathRoot); }

  /// Records `message` as the error at `path`, a path derived from root(),
  /// unless an error was recorded before; returns false.
  bool fail(llvm::json::Path path, const llvm::Twine &message);

  /// The recorded error as "<path>: <message>": the path without the root
  /// ("nodes[3].bytes"), or "$" for the root itself.
  std::string getMessage() const;

private:
  llvm::json::Path::Root pathRoot{"$"};
  std::string message;
  bool failed = false;
};

/// An integer read from JSON: a JSON integer, or a number with an integral
/// value (written as 1e3, say) whose magnitude is below 9e18. A larger or
/// infinite number is "out of range", anything else "expected an integer".
struct JSONInt {
  int64_t value = 0;
};
bool fromJSON(const llvm::json::Value &value, JSONInt &out,
              llvm::json::Path path);

/// A finite number read from JSON: "expected a number", or "number out of
/// range" for one beyond a double's range (1e400 reads as infinity).
struct JSONNumber {
  double value = 0;
};
bool fromJSON(const llvm::json::Value &value, JSONNumber &out,
              llvm::json::Path path);

/// Fails, with `missing "<key>"` at `path`, when `object` lacks one of
/// `keys`; the ObjectMapper's own message would be "missing value".
bool requireKeys(const llvm::json::Object &object,
                 llvm::ArrayRef<llvm::StringLiteral> keys,
                 llvm::json::Path path, JSONErrors &errors);

} // namespace remat

#endif // REMAT_SUPPORT_JSON_H
