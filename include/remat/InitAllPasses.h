//===- InitAllPasses.h - register every remat-opt pass ----------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_INITALLPASSES_H
#define REMAT_INITALLPASSES_H

#include "remat/Conversion/Passes.h"
#include "remat/Pipelines/Pipelines.h"
#include "remat/Transforms/Passes.h"

namespace remat {

/// Registers every remat-opt pass and pipeline with the global registry, so
/// that tools (remat-opt, plugins) expose them on the command line.
inline void registerAllPasses() {
  registerRematPasses();
  registerRematConversionPasses();
  registerRematPipelines();
}

} // namespace remat

#endif // REMAT_INITALLPASSES_H
