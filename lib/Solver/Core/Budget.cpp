//===- Budget.cpp - memory budgets as users write them
//---------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Core/Budget.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace remat;

/// `text` without leading and trailing blanks.
static std::string_view trim(std::string_view text) {
  size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string_view::npos)
    return {};
  size_t end = text.find_last_not_of(" \t");
  return text.substr(begin, end - begin + 1);
}

/// Removes `suffix` from the end of `text` and returns true if it is there.
static bool consumeSuffix(std::string_view &text, std::string_view suffix) {
  if (text.size() < suffix.size() ||
      text.substr(text.size() - suffix.size()) != suffix)
    return false;
  text.remove_suffix(suffix.size());
  return true;
}

/// The whole of `text` as a finite non-negative number.
static std::optional<double> parseNumber(std::string_view text) {
  std::string copy(text);
  if (copy.empty() ||
      copy.find_first_not_of("0123456789.eE+-") != std::string::npos)
    return std::nullopt;
  char *end = nullptr;
  double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || !std::isfinite(value) || value < 0)
    return std::nullopt;
  return value;
}

std::optional<int64_t> remat::parseBudget(std::string_view text,
                                          int64_t reference,
                                          std::string &error) {
  text = trim(text);
  if (text.empty())
    return reference;
  // The unit: a percentage, a binary multiple, or plain bytes.
  double scale = 1;
  bool percent = consumeSuffix(text, "%");
  if (!percent) {
    if (consumeSuffix(text, "KiB"))
      scale = 1024.0;
    else if (consumeSuffix(text, "MiB"))
      scale = 1024.0 * 1024.0;
    else if (consumeSuffix(text, "GiB"))
      scale = 1024.0 * 1024.0 * 1024.0;
    else if (consumeSuffix(text, "TiB"))
      scale = 1024.0 * 1024.0 * 1024.0 * 1024.0;
    else
      consumeSuffix(text, "B");
  }
  text = trim(text);
  std::optional<double> value = parseNumber(text);
  if (!value) {
    error = "expected a non-negative number of bytes, optionally with a "
            "B/KiB/MiB/GiB/TiB suffix, or a percentage such as 70%";
    return std::nullopt;
  }
  if (!percent && scale == 1 && text.find_first_of(".eE") != text.npos) {
    error = "a byte count must be an integer";
    return std::nullopt;
  }
  double bytes = percent ? *value * static_cast<double>(reference) / 100.0
                         : *value * scale;
  // Round down, but not below a whole number that decimal input such as
  // `33.3%` of 1000 only misses through binary floating point.
  bytes += 1e-6;
  if (bytes >= 9.2e18) {
    error = "budget too large (at most 9.2e18 bytes)";
    return std::nullopt;
  }
  return static_cast<int64_t>(std::floor(bytes));
}

std::string remat::formatPercent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f%%", fraction * 100.0);
  return text;
}
