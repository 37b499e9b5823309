//===- CheckmateUnavailable.cpp - the Checkmate solvers without COIN-OR ---===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// What a build without COIN-OR CBC/CLP compiles in place of CheckmateLp.cpp
// and CheckmateMilp.cpp (lib/Solver/CMakeLists.txt picks one or the other):
// every Checkmate entry point answers Unsupported, saying why.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Checkmate/Checkmate.h"

#include "remat/Solver/Core/SolverSupport.h"

using namespace remat;

static const char *const kNoCoin =
    "this build has no COIN-OR CBC/CLP (REMAT_ENABLE_COINOR is off): install "
    "coinor-libcbc-dev and coinor-libclp-dev and reconfigure";

bool remat::checkmateAvailable() { return false; }

SolveResult remat::solveCheckmateMilp(const Graph &, const SolveOptions &,
                                      const CheckmateOptions &) {
  return failSolve("checkmate-milp", SolveStatus::Unsupported, kNoCoin,
                   WorkMeter(0));
}

SolveResult remat::solveCheckmateRounding(const Graph &, const SolveOptions &,
                                          const CheckmateOptions &) {
  return failSolve("checkmate-lp-rounding", SolveStatus::Unsupported, kNoCoin,
                   WorkMeter(0));
}

SolveResult remat::checkmateLpBound(const Graph &, const SolveOptions &) {
  return failSolve("checkmate-lp-bound", SolveStatus::Unsupported, kNoCoin,
                   WorkMeter(0));
}
