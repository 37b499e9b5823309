//===- PassOptions.cpp - checks on pass option strings --------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/PassOptions.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace remat;

/// `options` split at the blanks that are outside quotes and braces, the
/// way MLIR's option parser splits it.
static SmallVector<StringRef> splitAtBlanks(StringRef options) {
  SmallVector<StringRef> tokens;
  char quote = 0;
  int braces = 0;
  size_t start = 0;
  for (size_t i = 0, e = options.size(); i <= e; ++i) {
    char c = i < e ? options[i] : ' ';
    if (quote) {
      quote = c == quote ? 0 : quote;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '{') {
      ++braces;
    } else if (c == '}') {
      --braces;
    } else if (braces <= 0 && llvm::isSpace(c)) {
      if (i > start)
        tokens.push_back(options.slice(start, i));
      start = i + 1;
    }
  }
  return tokens;
}

/// The option names in `known`, a printed option list
/// (`name{budget= data-args=1 ...}` or `{...}`).
static llvm::StringSet<> getOptionNames(StringRef known) {
  size_t open = known.find('{');
  size_t close = known.rfind('}');
  llvm::StringSet<> names;
  if (open == StringRef::npos || close == StringRef::npos || close < open)
    return names;
  for (StringRef token : splitAtBlanks(known.slice(open + 1, close)))
    names.insert(token.split('=').first);
  return names;
}

LogicalResult remat::checkOptionBlanks(
    StringRef options, StringRef known, StringRef passName,
    function_ref<LogicalResult(const Twine &)> errorHandler) {
  llvm::StringSet<> names = getOptionNames(known);
  StringRef lastKey;
  bool lastValueEmpty = false;
  for (StringRef token : splitAtBlanks(options)) {
    if (token.contains('=')) {
      auto [key, value] = token.split('=');
      lastKey = key;
      lastValueEmpty = value.empty();
      continue;
    }
    // A flag without a value, or a name MLIR's parser reports itself.
    if (names.contains(token) || lastKey.empty())
      continue;
    if (lastValueEmpty)
      return errorHandler(passName + ": a blank follows '" + lastKey +
                          "=', so '" + token +
                          "' reads as another option; write " + lastKey +
                          "=VALUE without blanks, or quote a value that has "
                          "them: " +
                          lastKey + "='VALUE'");
    return errorHandler(passName + ": the value of '" + lastKey +
                        "' has a blank, so '" + token +
                        "' reads as another option; write it without "
                        "blanks, or quote it: " +
                        lastKey + "='VALUE'");
  }
  return success();
}

LogicalResult remat::checkOptionBlanks(
    Pass &pass, StringRef options,
    function_ref<LogicalResult(const Twine &)> errorHandler) {
  std::string known;
  llvm::raw_string_ostream os(known);
  pass.printAsTextualPipeline(os);
  return checkOptionBlanks(options, known, pass.getArgument(), errorHandler);
}
