//===- Solver.cpp - the names of solve statuses ---------------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Solver.h's functions that every solver may call. The registry
// (`allSolvers`), which calls the solvers, is Registry.cpp.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Solver.h"

using namespace remat;

const char *remat::toString(SolveStatus status) {
  switch (status) {
  case SolveStatus::Optimal:
    return "optimal";
  case SolveStatus::Feasible:
    return "feasible";
  case SolveStatus::Infeasible:
    return "infeasible";
  case SolveStatus::Timeout:
    return "timeout";
  case SolveStatus::Unsupported:
    return "unsupported";
  }
  return "unknown";
}
