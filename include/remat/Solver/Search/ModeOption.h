//===- ModeOption.h - the modes as command-line values ----------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The values of an `llvm::cl` enum option of type `Mode`, from the one table
// of modes (`allModes`, Modes.h): remat-solve's `--mode` takes every mode, the
// passes' and the pipeline's `mode=` the plan modes; and those of an
// `OffloadChoice` option (Offload.h), remat-solve's `--offload` and the
// passes' `offload=`. Header-only, for the tools and passes; lib/Solver
// itself needs no LLVM.
//
// Usage:
//   static llvm::cl::opt<remat::Mode> mode("mode", remat::allModeValues());
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_SEARCH_MODEOPTION_H
#define REMAT_SOLVER_SEARCH_MODEOPTION_H

#include "remat/Solver/Search/Modes.h"
#include "remat/Solver/Search/Offload.h"

#include "llvm/Support/CommandLine.h"

namespace remat {

/// An `llvm::cl` modifier, like `llvm::cl::values`, that adds the modes
/// (only the plan modes, `isPlanMode`, when `plansOnly`) to an option.
class ModeValues {
public:
  explicit ModeValues(bool plansOnly) : plansOnly(plansOnly) {}

  template <typename Opt> void apply(Opt &option) const {
    for (const ModeInfo &info : allModes())
      if (!plansOnly || isPlanMode(info.mode))
        option.getParser().addLiteralOption(info.name, info.mode,
                                            info.description);
  }

private:
  bool plansOnly;
};

/// Every mode: remat-solve's `--mode`.
inline ModeValues allModeValues() { return ModeValues(/*plansOnly=*/false); }
/// The plan modes: `mode=` of remat-select-checkpoints and remat-pipeline.
inline ModeValues planModeValues() { return ModeValues(/*plansOnly=*/true); }

/// The values of an `OffloadChoice` option.
inline auto offloadChoiceValues() {
  return llvm::cl::values(
      clEnumValN(OffloadChoice::Joint, toString(OffloadChoice::Joint),
                 "keep, recompute or offload (the default)"),
      clEnumValN(OffloadChoice::OffloadOnly,
                 toString(OffloadChoice::OffloadOnly),
                 "keep or offload, recompute nothing"),
      clEnumValN(OffloadChoice::RecomputeOnly,
                 toString(OffloadChoice::RecomputeOnly),
                 "keep or recompute (the time still predicted on the link)"));
}

} // namespace remat

#endif // REMAT_SOLVER_SEARCH_MODEOPTION_H
