//===- Solver.cpp - checking options, allowances, names of statuses -------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Solver.h's functions that every solver may call: the check of options, the
// allowance a solve starts with, the names of statuses. The registry
// (`allSolvers`), which calls the solvers, is Algorithms/Registry.cpp.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Core/Solver.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

using namespace remat;

std::string remat::checkSolveOptions(const SolveOptions &options) {
  std::ostringstream os;
  if (!(options.timeLimitSeconds > 0) ||
      !std::isfinite(options.timeLimitSeconds))
    os << "the time limit must be a positive number of seconds, not "
       << options.timeLimitSeconds;
  else if (!(options.effort > 0) || !std::isfinite(options.effort))
    os << "the effort must be a positive number, not " << options.effort;
  else if (options.threads < 1)
    os << "the number of solver threads must be at least 1, not "
       << options.threads;
  else if (!std::isfinite(options.maxOverhead))
    os << "the overhead must be a finite fraction, not " << options.maxOverhead;
  return os.str();
}

SolveAllowance remat::startAllowance(const SolveOptions &options) {
  SolveAllowance allowance = options.allowance;
  if (allowance.work < 0) {
    double units = options.effort * static_cast<double>(kWorkPerEffort);
    allowance.work = units < 9e18 ? static_cast<int64_t>(units)
                                  : std::numeric_limits<int64_t>::max();
  }
  if (allowance.deadline == SolveAllowance::Clock::time_point{}) {
    double seconds = std::min(options.timeLimitSeconds, 1e9);
    allowance.deadline =
        SolveAllowance::Clock::now() +
        std::chrono::duration_cast<SolveAllowance::Clock::duration>(
            std::chrono::duration<double>(seconds));
  }
  return allowance;
}

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
