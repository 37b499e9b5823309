//===- RunReport.h - the report of a step run -------------------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The report of one run of a training step, which every runner prints the
// same way (runnerMain, RunnerMain.h): as text, or with --json as one JSON
// object. It holds the input file, the entry, the device, the checksums of
// the results and the figures the runner measured. A figure is one line of
// the text report and the JSON members it stands for, so a new measurement
// is one call in the runner that measures it:
//
//   report.addCount("peak_bytes", stats.peakBytes);
//   report.addCount("input_bytes", inputBytes,
//                   "(allocated by remat-run, not counted)");
//   report.addFigure({"time_ms", "min=1.0 median=1.2",
//                     {{"time_ms_min", 1.0}, {"time_ms_median", 1.2}}});
//
// A runner keeps what each of the --repeat runs measured as a RunStats and
// turns them into figures with addAllocationFigures and addRunTimes.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_RUNNER_RUNREPORT_H
#define REMAT_RUNNER_RUNREPORT_H

#include "remat/Runner/CallABI.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace remat {

/// The measurements of one run of the entry: the statistics of the
/// allocator (`MemoryStats`, which has a peakBytes field), the bytes the
/// results hold when the entry returns, the bytes still allocated after the
/// runner freed the results, and the time of the call.
template <typename MemoryStats> struct RunStats {
  MemoryStats memory;
  uint64_t returnedBytes = 0;
  uint64_t leakedBytes = 0;
  double seconds = 0;
  /// How far the process's peak resident set rose during the run
  /// (rematAllocTrackerRSSGrowth: the system allocator's own footprint);
  /// -1 when not measured.
  int64_t rssGrowthBytes = -1;
};

/// The run with the largest peak (the first of equals) of `runs` (not empty).
template <typename MemoryStats>
const RunStats<MemoryStats> &
getWorstRun(llvm::ArrayRef<RunStats<MemoryStats>> runs) {
  const RunStats<MemoryStats> *worst = &runs.front();
  for (const RunStats<MemoryStats> &r : runs)
    if (r.memory.peakBytes > worst->memory.peakBytes)
      worst = &r;
  return *worst;
}

/// The report of one run of the entry (see the file comment).
struct RunReport {
  /// One measurement: the text line "<name>: <text>" (no line when `name` is
  /// empty) and the JSON members it stands for, in order (none: text only).
  struct Figure {
    std::string name;
    std::string text;
    std::vector<std::pair<std::string, llvm::json::Value>> members;
  };

  std::string file;
  std::string entry;
  /// The device the step ran on ("cuda"), or empty for the host.
  std::string device;
  /// This process's rank and the number of ranks of a data-parallel run;
  /// `ranks` 0 when the run is not distributed.
  int rank = 0;
  int ranks = 0;
  llvm::SmallVector<ValueSpec> resultSpecs;
  /// One checksum per result; with `printValues`, holding the values.
  llvm::SmallVector<Checksum> checksums;
  bool printValues = false;
  /// The measurements, in print order.
  std::vector<Figure> figures;

  void addFigure(Figure figure) { figures.push_back(std::move(figure)); }
  /// A count, printed "<key>: <value>" (followed by " <note>" unless empty)
  /// and as "<key>": <value>.
  void addCount(llvm::StringRef key, uint64_t value, llvm::StringRef note = "");
  /// The minimum and median of `values` (not empty), printed
  /// "<key>: min=%.3f median=%.3f<suffix>" and as "<extra...>",
  /// "<key>_min", "<key>_median" (`extra` are members printed first, e.g.
  /// the repeat count the suffix names).
  void addMinMedian(
      llvm::StringRef key, llvm::ArrayRef<double> values,
      llvm::StringRef suffix = "",
      std::vector<std::pair<std::string, llvm::json::Value>> extra = {});
  /// The wall time of each of `repeat` runs in milliseconds, as the
  /// "time_ms" figure (addMinMedian) with the repeat count.
  void addRunTimes(llvm::ArrayRef<double> millis, unsigned repeat);

  /// One JSON object followed by a newline: "file", "entry", "device"
  /// (unless empty), "results" (index, type, sum, abs_sum, fnv1a64 and,
  /// with printValues, the values of each; a NaN or infinity as the string
  /// "nan", "inf" or "-inf"), "rank" and "ranks" (when
  /// distributed), then the members of every figure.
  void printJSON(llvm::raw_ostream &os) const;
  /// "rank <r> of <n>" (when distributed), "entry: @<entry>" (followed by
  /// " (<device>)" unless empty), one "result #i: <type> sum=.. abs_sum=..
  /// fnv1a64=.." line per result (and its values with printValues), then the
  /// line of every figure.
  void printText(llvm::raw_ostream &os) const;
};

/// Adds the entry's memory plan next to the peak a runner measured:
/// arena_bytes, the bytes of its arena (RunContext::arenaBytes; the text says
/// when none was planned), and with host copies (`hostCopies`, empty when
/// none: `remat.host_copies`, docs/Offload.md) host_peak_bytes,
/// host_copies and host_bytes_moved.
void addMemoryPlanFigures(RunReport &report, int64_t arenaBytes,
                          llvm::ArrayRef<int64_t> hostCopies);

/// Adds the allocation counts of `run` to `report`: num_allocs,
/// total_allocated_bytes, returned_bytes, leaked_bytes, unknown_frees (a
/// text line only when not 0), and `inputBytes` as input_bytes (followed by
/// `inputNote` in the text).
template <typename MemoryStats>
void addAllocationFigures(RunReport &report, const RunStats<MemoryStats> &run,
                          uint64_t inputBytes, llvm::StringRef inputNote) {
  report.addCount("num_allocs", run.memory.numAllocs);
  report.addCount("total_allocated_bytes", run.memory.totalBytes);
  report.addCount("returned_bytes", run.returnedBytes);
  report.addCount("leaked_bytes", run.leakedBytes);
  uint64_t unknownFrees = run.memory.unknownFrees;
  report.addFigure({unknownFrees ? "unknown_frees" : "",
                    std::to_string(unknownFrees),
                    {{"unknown_frees", static_cast<int64_t>(unknownFrees)}}});
  report.addCount("input_bytes", inputBytes, inputNote);
}

/// Adds the wall time of each of `runs` as the "time_ms" figure
/// (RunReport::addRunTimes) of `repeat` runs.
template <typename MemoryStats>
void addRunTimes(RunReport &report, llvm::ArrayRef<RunStats<MemoryStats>> runs,
                 unsigned repeat) {
  llvm::SmallVector<double> millis;
  for (const RunStats<MemoryStats> &r : runs)
    millis.push_back(r.seconds * 1e3);
  report.addRunTimes(millis, repeat);
}

} // namespace remat

#endif // REMAT_RUNNER_RUNREPORT_H
