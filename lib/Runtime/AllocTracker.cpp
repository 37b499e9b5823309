//===- AllocTracker.cpp - heap allocation tracker for lowered MLIR --------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Implements the allocation hooks of `finalize-memref-to-llvm
// {use-generic-functions}` with exact live/peak byte accounting. See
// include/remat/Runtime/AllocTracker.h.
//
// The library depends on nothing but the C++ standard library, so that it can
// be loaded into any host process (remat-run, mlir-runner, a C program).
//
//===----------------------------------------------------------------------===//

#include "remat/Runtime/AllocTracker.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

namespace {

/// Live pointers and counters. One instance per process; the JIT'd code is
/// single-threaded, the mutex only makes concurrent hosts safe.
struct Tracker {
  std::mutex mutex;
  std::unordered_map<const void *, uint64_t> sizes;
  RematAllocStats stats{};

  void recordAlloc(void *ptr, uint64_t size) {
    std::lock_guard<std::mutex> lock(mutex);
    sizes[ptr] = size;
    stats.currentBytes += size;
    stats.totalBytes += size;
    ++stats.numAllocs;
    ++stats.currentBuffers;
    if (stats.currentBytes > stats.peakBytes)
      stats.peakBytes = stats.currentBytes;
  }

  /// Forgets `ptr`; returns false if it was never handed out by us.
  bool recordFree(void *ptr) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = sizes.find(ptr);
    if (it == sizes.end()) {
      ++stats.unknownFrees;
      return false;
    }
    stats.currentBytes -= it->second;
    --stats.currentBuffers;
    ++stats.numFrees;
    sizes.erase(it);
    return true;
  }
};

/// Constructed on first use and never destroyed, so that allocations made
/// by other libraries' static destructors still find it.
Tracker &getTracker() {
  static Tracker *tracker = new Tracker();
  return *tracker;
}

/// The value in bytes of field `name` ("VmRSS", "VmHWM") of
/// /proc/self/status, or -1.
int64_t readStatusBytes(const char *name) {
  std::FILE *file = std::fopen("/proc/self/status", "r");
  if (!file)
    return -1;
  char line[256];
  int64_t bytes = -1;
  size_t length = std::strlen(name);
  while (std::fgets(line, sizeof(line), file))
    if (std::strncmp(line, name, length) == 0 && line[length] == ':') {
      bytes = std::strtoll(line + length + 1, nullptr, 10) * 1024;
      break;
    }
  std::fclose(file);
  return bytes;
}

/// Resets the peak resident set to the current one; returns the latter.
int64_t restartPeakRSS() {
  if (std::FILE *file = std::fopen("/proc/self/clear_refs", "w")) {
    std::fputs("5", file);
    std::fclose(file);
  }
  return readStatusBytes("VmRSS");
}

/// The resident set the RSS growth is measured from.
int64_t rssBase = readStatusBytes("VmRSS");

/// Prints the counters at exit when REMAT_ALLOC_TRACKER_REPORT is set.
struct ExitReporter {
  ~ExitReporter() {
    const char *mode = std::getenv("REMAT_ALLOC_TRACKER_REPORT");
    if (!mode || !*mode || std::strcmp(mode, "0") == 0)
      return;
    rematAllocTrackerPrint(std::strcmp(mode, "json") == 0);
  }
} exitReporter;

} // namespace

extern "C" void *_mlir_memref_to_llvm_alloc(size_t size) {
  // malloc(0) may return null or a unique pointer; ask for one byte so that
  // every allocation is a distinct, trackable pointer. The recorded size
  // stays the requested one.
  void *ptr = std::malloc(size ? size : 1);
  if (ptr)
    getTracker().recordAlloc(ptr, size);
  return ptr;
}

extern "C" void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment,
                                                    size_t size) {
  // The lowering rounds `size` up to a multiple of `alignment`, as C11
  // aligned_alloc requires; posix_memalign also accepts any other size.
  if (alignment < sizeof(void *))
    alignment = sizeof(void *);
  void *ptr = nullptr;
  if (posix_memalign(&ptr, alignment, size ? size : 1) != 0)
    return nullptr;
  getTracker().recordAlloc(ptr, size);
  return ptr;
}

extern "C" void _mlir_memref_to_llvm_free(void *ptr) {
  if (!ptr)
    return;
  // Unknown pointers are counted and still freed: they come from malloc in a
  // library that bypassed the hooks.
  getTracker().recordFree(ptr);
  std::free(ptr);
}

extern "C" void rematAllocTrackerGetStats(RematAllocStats *stats) {
  Tracker &tracker = getTracker();
  std::lock_guard<std::mutex> lock(tracker.mutex);
  *stats = tracker.stats;
}

extern "C" void rematAllocTrackerReset(void) {
  Tracker &tracker = getTracker();
  std::lock_guard<std::mutex> lock(tracker.mutex);
  RematAllocStats fresh{};
  fresh.currentBytes = tracker.stats.currentBytes;
  fresh.currentBuffers = tracker.stats.currentBuffers;
  fresh.peakBytes = fresh.currentBytes;
  tracker.stats = fresh;
  rssBase = restartPeakRSS();
}

extern "C" int64_t rematAllocTrackerRSSGrowth(void) {
  int64_t peak = readStatusBytes("VmHWM");
  if (peak < 0 || rssBase < 0)
    return -1;
  return peak > rssBase ? peak - rssBase : 0;
}

extern "C" int64_t rematAllocTrackerSizeOf(const void *ptr) {
  Tracker &tracker = getTracker();
  std::lock_guard<std::mutex> lock(tracker.mutex);
  auto it = tracker.sizes.find(ptr);
  return it == tracker.sizes.end() ? -1 : static_cast<int64_t>(it->second);
}

extern "C" void rematAllocTrackerPrint(int json) {
  RematAllocStats s;
  rematAllocTrackerGetStats(&s);
  if (json) {
    std::fprintf(stderr,
                 "{\"peak_bytes\": %" PRIu64 ", \"current_bytes\": %" PRIu64
                 ", \"num_allocs\": %" PRIu64 ", \"num_frees\": %" PRIu64
                 ", \"total_bytes\": %" PRIu64 ", \"unknown_frees\": %" PRIu64
                 ", \"rss_growth_bytes\": %" PRId64 "}\n",
                 s.peakBytes, s.currentBytes, s.numAllocs, s.numFrees,
                 s.totalBytes, s.unknownFrees, rematAllocTrackerRSSGrowth());
    return;
  }
  std::fprintf(stderr,
               "remat-alloc-tracker: peak_bytes=%" PRIu64
               " current_bytes=%" PRIu64 " num_allocs=%" PRIu64
               " num_frees=%" PRIu64 " total_bytes=%" PRIu64
               " unknown_frees=%" PRIu64 " rss_growth_bytes=%" PRId64 "\n",
               s.peakBytes, s.currentBytes, s.numAllocs, s.numFrees,
               s.totalBytes, s.unknownFrees, rematAllocTrackerRSSGrowth());
}
