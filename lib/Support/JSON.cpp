//===- JSON.cpp - reading JSON inputs with precise errors -----------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Support/JSON.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace remat;
namespace json = llvm::json;

JSONDepth remat::measureJSONDepth(llvm::StringRef text, unsigned limit) {
  JSONDepth result;
  unsigned depth = 0, line = 1, column = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
    }
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      result.depth = std::max(result.depth, ++depth);
      if (depth == limit + 1 && !result.line) {
        result.line = line;
        result.column = column;
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return result;
}

llvm::Expected<json::Value> remat::parseJSON(llvm::StringRef text) {
  JSONDepth nesting = measureJSONDepth(text, kMaxJSONDepth);
  if (nesting.depth > kMaxJSONDepth)
    return llvm::createStringError(
        "JSON nested " + llvm::Twine(nesting.depth) + " levels deep (from " +
        llvm::Twine(nesting.line) + ":" + llvm::Twine(nesting.column) +
        "); at most " + llvm::Twine(kMaxJSONDepth) +
        " levels are accepted");
  llvm::Expected<json::Value> root = json::parse(text);
  if (root)
    return root;
  std::string message;
  llvm::handleAllErrors(root.takeError(), [&](const json::ParseError &e) {
    llvm::raw_string_ostream os(message);
    e.log(os);
  });
  // ParseError prints "[line:column, byte=N]: message".
  return llvm::createStringError("invalid JSON " + message);
}

bool JSONErrors::fail(json::Path path, const llvm::Twine &text) {
  if (failed)
    return false;
  failed = true;
  message = text.str();
  // Records where; the message above says what.
  path.report("");
  return false;
}

std::string JSONErrors::getMessage() const {
  // Path::Root prints "<message> at $<segments>", or "<message> when
  // parsing $" at the root itself.
  std::string text = llvm::toString(pathRoot.getError());
  llvm::StringRef what = text, where = "$";
  size_t at = what.rfind(" at $");
  if (at != llvm::StringRef::npos) {
    where = what.drop_front(at + strlen(" at $"));
    where.consume_front(".");
    what = what.take_front(at);
  } else {
    what.consume_back(" when parsing $");
  }
  if (failed)
    what = message;
  return (where.empty() ? "$" : where.str()) + ": " + what.str();
}

bool remat::fromJSON(const json::Value &value, JSONInt &out, json::Path path) {
  if (std::optional<int64_t> i = value.getAsInteger()) {
    out.value = *i;
    return true;
  }
  std::optional<double> d = value.getAsNumber();
  if (!d || (std::isfinite(*d) && std::floor(*d) != *d)) {
    path.report("expected an integer");
    return false;
  }
  if (!std::isfinite(*d) || std::abs(*d) >= 9.0e18) {
    path.report("integer out of range (beyond 9e18)");
    return false;
  }
  out.value = static_cast<int64_t>(*d);
  return true;
}

bool remat::fromJSON(const json::Value &value, JSONNumber &out,
                     json::Path path) {
  std::optional<double> d = value.getAsNumber();
  if (!d) {
    path.report("expected a number");
    return false;
  }
  if (!std::isfinite(*d)) {
    path.report("number out of range (beyond 1.8e308)");
    return false;
  }
  out.value = *d;
  return true;
}

bool remat::requireKeys(const json::Object &object,
                        llvm::ArrayRef<llvm::StringLiteral> keys,
                        json::Path path, JSONErrors &errors) {
  for (llvm::StringLiteral key : keys)
    if (!object.get(key))
      return errors.fail(path, "missing \"" + key + "\"");
  return true;
}
