//===- Budget.h - memory budgets as users write them ------------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The one parser of budget strings, shared by remat-solve's `--budget` and the
// passes' `budget=` options: a byte count (`1048576`, `512KiB`, `6GiB`, `64B`)
// or a percentage of a reference peak (`70%`, `33.3 %`).
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_CORE_BUDGET_H
#define REMAT_SOLVER_CORE_BUDGET_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace remat {

/// Parses `text` into bytes; a percentage is taken of `reference` (the
/// checkpoint-all peak), rounded down. An empty text means 100 % of
/// `reference`. Returns std::nullopt and sets `error` when malformed or too
/// large to represent.
std::optional<int64_t> parseBudget(std::string_view text, int64_t reference,
                                   std::string &error);

/// `fraction` as a percentage with one decimal: 0.1234 -> "12.3%".
std::string formatPercent(double fraction);

} // namespace remat

#endif // REMAT_SOLVER_CORE_BUDGET_H
