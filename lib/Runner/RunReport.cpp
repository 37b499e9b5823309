//===- RunReport.cpp - the report of a step run ---------------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Runner/RunReport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <vector>

using namespace remat;

namespace {
/// The minimum and the median (upper median) of some measurements.
struct MinMedian {
  double min = 0;
  double median = 0;
};
} // namespace

/// The minimum and the median of `values` (not empty).
static MinMedian getMinAndMedian(llvm::ArrayRef<double> values) {
  std::vector<double> sorted(values.begin(), values.end());
  llvm::sort(sorted);
  return {sorted.front(), sorted[sorted.size() / 2]};
}

/// `value` as JSON, which has no NaN or infinity: those as the strings
/// "nan", "inf" and "-inf" (what Python's float() reads back).
static llvm::json::Value toJsonNumber(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  return value;
}

void RunReport::addCount(llvm::StringRef key, uint64_t value,
                         llvm::StringRef note) {
  std::string text = std::to_string(value);
  if (!note.empty())
    text += " " + note.str();
  addFigure({key.str(), text, {{key.str(), static_cast<int64_t>(value)}}});
}

void remat::addMemoryPlanFigures(RunReport &report, int64_t arenaBytes,
                                 llvm::ArrayRef<int64_t> hostCopies) {
  report.addCount("arena_bytes", arenaBytes,
                  arenaBytes ? "(one allocation, every planned buffer at its "
                               "offset: docs/Arena.md)"
                             : "(no arena planned: each buffer its own "
                               "allocation)");
  if (hostCopies.size() != 3)
    return;
  report.addCount("host_peak_bytes", hostCopies[0],
                  "(offloaded copies in host memory, the most live at once: "
                  "docs/Offload.md)");
  report.addCount("host_copies", hostCopies[1],
                  "(offloads and prefetches)");
  report.addCount("host_bytes_moved", hostCopies[2]);
}

void RunReport::addMinMedian(
    llvm::StringRef key, llvm::ArrayRef<double> values, llvm::StringRef suffix,
    std::vector<std::pair<std::string, llvm::json::Value>> extra) {
  MinMedian stats = getMinAndMedian(values);
  Figure figure{key.str(),
                llvm::formatv("min={0:F3} median={1:F3}", stats.min,
                              stats.median)
                        .str() +
                    suffix.str(),
                std::move(extra)};
  figure.members.push_back({key.str() + "_min", stats.min});
  figure.members.push_back({key.str() + "_median", stats.median});
  addFigure(std::move(figure));
}

void RunReport::addRunTimes(llvm::ArrayRef<double> millis, unsigned repeat) {
  addMinMedian("time_ms", millis, llvm::formatv(" (repeat={0})", repeat).str(),
               {{"repeat", static_cast<int64_t>(repeat)}});
}

void RunReport::printJSON(llvm::raw_ostream &os) const {
  llvm::json::OStream j(os, /*IndentSize=*/2);
  j.object([&] {
    j.attribute("file", file);
    j.attribute("entry", entry);
    if (!device.empty())
      j.attribute("device", device);
    j.attributeArray("results", [&] {
      for (auto [i, spec] : llvm::enumerate(resultSpecs)) {
        j.object([&] {
          j.attribute("index", static_cast<int64_t>(i));
          j.attribute("type", spec.typeString);
          j.attribute("sum", toJsonNumber(checksums[i].sum));
          j.attribute("abs_sum", toJsonNumber(checksums[i].absSum));
          j.attribute("fnv1a64", formatHex64(checksums[i].fnv));
          if (printValues)
            j.attributeArray("values", [&] {
              for (double v : checksums[i].values)
                j.value(toJsonNumber(v));
            });
        });
      }
    });
    if (ranks > 0) {
      j.attribute("rank", rank);
      j.attribute("ranks", ranks);
    }
    for (const Figure &figure : figures)
      for (const auto &[key, value] : figure.members)
        j.attribute(key, value);
  });
  os << "\n";
}

void RunReport::printText(llvm::raw_ostream &os) const {
  if (ranks > 0)
    os << "rank " << rank << " of " << ranks << "\n";
  os << "entry: @" << entry;
  if (!device.empty())
    os << " (" << device << ")";
  os << "\n";
  for (auto [i, spec] : llvm::enumerate(resultSpecs)) {
    os << "result #" << i << ": " << spec.typeString
       << llvm::format(" sum=%.9g abs_sum=%.9g", checksums[i].sum,
                       checksums[i].absSum)
       << " fnv1a64=" << formatHex64(checksums[i].fnv) << "\n";
    if (printValues) {
      os << "  values: [";
      llvm::interleaveComma(checksums[i].values, os,
                            [&](double v) { os << llvm::format("%.9g", v); });
      os << "]\n";
    }
  }
  for (const Figure &figure : figures)
    if (!figure.name.empty())
      os << figure.name << ": " << figure.text << "\n";
}
