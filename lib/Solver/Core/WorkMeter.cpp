//===- WorkMeter.cpp - solve budgets, time cap and progress ---------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The allowance of a solve (counted work and the wall-clock safety cap) and
// the meter each search charges, and the progress reports a solve sends:
// below every solver file, so that the
// order repair (Ordering.cpp) and the shared solver helpers
// (SolverSupport.cpp) can both use it without calling each other back.
//
//===----------------------------------------------------------------------===//

#include "remat/Solver/Core/WorkMeter.h"

#include <algorithm>
#include <limits>

using namespace remat;

SolveOptions remat::nestedOptions(const SolveOptions &options) {
  SolveOptions nested = options;
  if (options.progress)
    nested.progress = [outer = options.progress](const SolveProgress &p) {
      SolveProgress periodic = p;
      periodic.phase = false;
      outer(periodic);
    };
  return nested;
}

WorkMeter::WorkMeter(const SolveOptions &options) {
  SolveAllowance allowance = startAllowance(options);
  limit = allowance.work;
  deadline = allowance.deadline;
}

WorkMeter::WorkMeter(const WorkMeter &parent, int64_t units)
    : deadline(parent.deadline), limit(std::max<int64_t>(units, 0)) {}

WorkMeter::WorkMeter(int64_t units)
    : deadline(Clock::time_point::max()), limit(std::max<int64_t>(units, 0)) {}

int64_t WorkMeter::part(double fraction) const {
  return static_cast<int64_t>(static_cast<double>(limit) * fraction);
}

void WorkMeter::charge(const SolveResult &nested) {
  spentUnits += nested.work;
  capped |= nested.stoppedByTimeLimit;
}

void WorkMeter::charge(const WorkMeter &part) {
  spentUnits += part.spentUnits;
  capped |= part.capped;
}

bool WorkMeter::timeUp() const {
  if (!capped && Clock::now() >= deadline)
    capped = true;
  return capped;
}

double WorkMeter::secondsLeft() const {
  if (deadline == Clock::time_point::max())
    return 1e9;
  return std::chrono::duration<double>(deadline - Clock::now()).count();
}

SolveAllowance WorkMeter::allowance(int64_t units) const {
  SolveAllowance allowance;
  allowance.work = std::max<int64_t>(units, 0);
  allowance.deadline = deadline;
  return allowance;
}

SolveOptions WorkMeter::nested(const SolveOptions &options,
                               int64_t units) const {
  SolveOptions nested = nestedOptions(options);
  nested.allowance = allowance(units);
  return nested;
}

void ProgressReporter::report(double cost, int64_t peak, double lowerBound,
                              const std::string &message, bool phase) {
  if (!callback || (!phase && !due()))
    return;
  SolveProgress progress;
  progress.solver = solver;
  progress.incumbentCost = cost;
  progress.incumbentPeak = peak;
  progress.lowerBound = lowerBound;
  progress.seconds = watch.seconds();
  progress.message = message;
  progress.phase = phase;
  last = progress.seconds;
  callback(progress);
}
