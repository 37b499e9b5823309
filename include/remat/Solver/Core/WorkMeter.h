//===- WorkMeter.h - solve budgets, time cap and progress -------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// What a solve spends and reports while it runs: a stopwatch, the meter of
// its allowance (counted work units and the wall-clock safety cap,
// `SolveAllowance` in Solver.h), the options of a nested solve, and the
// progress reports of `SolveOptions::progress`. Below every solver file and
// below the shared solver helpers (SolverSupport.h).
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SOLVER_CORE_WORKMETER_H
#define REMAT_SOLVER_CORE_WORKMETER_H

#include "remat/Solver/Core/Solver.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>

namespace remat {

/// Wall-clock time since construction.
class Stopwatch {
public:
  Stopwatch() : start(std::chrono::steady_clock::now()) {}
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  }

private:
  std::chrono::steady_clock::time_point start;
};

/// One solve's allowance in use (`SolveAllowance`, Solver.h): counts the
/// work units the solve charges and watches its deadline. A search stops
/// when `exhausted()`: at once deterministic when the work is spent, and
/// remembered as a stop by the time limit when the deadline passed first.
/// Members and probes get a part (`allowance`, `nested`) and their work is
/// charged back (`charge(result)`), so a parent's decisions depend on
/// counts only.
///
///   WorkMeter meter(options);
///   while (!meter.exhausted()) {
///     CheckpointEval eval = evaluateCheckpoints(graph, keep, variant);
///     meter.charge(evaluationWork(eval.schedule, variant));
///     ...
///   }
///   return finishSolve(graph, options, name, schedule, status, meter);
class WorkMeter {
public:
  using Clock = SolveAllowance::Clock;

  /// Starts the clock; the allowance of `options`, its unset fields filled
  /// from `effort` and `timeLimitSeconds`.
  explicit WorkMeter(const SolveOptions &options);
  /// A meter for a part of a solve: `units` of work and `parent`'s deadline.
  WorkMeter(const WorkMeter &parent, int64_t units);
  /// `units` of work and no deadline (helpers called on their own, tests).
  explicit WorkMeter(int64_t units);

  /// Units of the allowance, used so far, and left (never negative).
  int64_t total() const { return limit; }
  int64_t used() const { return spentUnits; }
  int64_t left() const { return spentUnits < limit ? limit - spentUnits : 0; }
  /// `fraction` of the allowance, in units.
  int64_t part(double fraction) const;

  void charge(int64_t units) { spentUnits += units; }
  /// Charges a nested solve's work and its stop by the time limit.
  void charge(const SolveResult &nested);
  void charge(const WorkMeter &part);

  /// Whether the work is spent (deterministic).
  bool spent() const { return spentUnits >= limit; }
  /// Whether the deadline has passed; remembered (`stoppedByTimeLimit`).
  bool timeUp() const;
  /// Whether a search must stop now: the work is spent or the time is up.
  bool exhausted() const { return spent() || timeUp(); }
  /// Whether the deadline stopped this solve or a part of it.
  bool stoppedByTimeLimit() const { return capped; }
  /// Records that the deadline stopped a part of the solve that watched it
  /// on its own clock (CLP, CBC).
  void noteTimeLimit() { capped = true; }

  /// An allowance of `units` with this solve's deadline, for a nested solve.
  SolveAllowance allowance(int64_t units) const;
  /// `nestedOptions(options)` with `allowance(units)`.
  SolveOptions nested(const SolveOptions &options, int64_t units) const;

  const Stopwatch &clock() const { return watch; }
  double seconds() const { return watch.seconds(); }
  /// Seconds until the deadline (negative past it), for the limits of
  /// external solvers (CLP, CBC).
  double secondsLeft() const;

private:
  Stopwatch watch;
  Clock::time_point deadline;
  int64_t limit = 0;
  int64_t spentUnits = 0;
  mutable bool capped = false;
};

/// Sends one solve's `SolveOptions::progress` reports: phase reports always,
/// periodic ones at most once per `kInterval` seconds. Does nothing when the
/// options carry no callback, so solvers may call it unconditionally; test
/// `due()` first when building the message costs more than a comparison.
///
///   ProgressReporter progress(options, "local-search", watch);
///   if (progress.due())
///     progress.report(cost, peak, -1, "pass " + std::to_string(passes));
class ProgressReporter {
public:
  static constexpr double kInterval = 1.0;

  ProgressReporter(const SolveOptions &options, std::string solver,
                   const Stopwatch &watch)
      : callback(options.progress), solver(std::move(solver)), watch(watch) {}

  /// Whether a periodic report would be sent now.
  bool due() const { return callback && watch.seconds() >= last + kInterval; }
  /// Sends a report if `phase` or `due()`.
  void report(double cost, int64_t peak, double lowerBound,
              const std::string &message, bool phase = false);

private:
  ProgressFn callback;
  std::string solver;
  const Stopwatch &watch;
  double last = 0;
};

/// `options` for a solve nested in a longer one (a probe of a mode search, a
/// member of the portfolio): its reports reach the outer callback as
/// periodic ones, so that only the outer solve's phases always print.
SolveOptions nestedOptions(const SolveOptions &options);

} // namespace remat

#endif // REMAT_SOLVER_CORE_WORKMETER_H
