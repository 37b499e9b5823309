/*===- AllocTracker.h - heap allocation tracker for lowered MLIR -*- C -*-===*\
|*                                                                            *|
|* Part of the remat-opt project.                                             *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * C interface of libremat_alloc_tracker.so, the runtime library that counts
 * the heap memory a lowered MLIR program uses.
 *
 * `finalize-memref-to-llvm{use-generic-functions}` (on by default in
 * `--remat-lower-to-cpu`) makes every memref.alloc / memref.dealloc call
 * `_mlir_memref_to_llvm_alloc`, `_mlir_memref_to_llvm_aligned_alloc` and
 * `_mlir_memref_to_llvm_free`. This library defines them: each allocation is
 * served by malloc / aligned_alloc and its REQUESTED size is recorded per
 * pointer, so the live byte count goes up by exactly that size and back down
 * when the pointer is freed. The peak of the live count is the program's
 * peak heap usage in the bytes the program asked for (allocator headers and
 * size-class rounding of glibc are not included).
 *
 * remat-run links this library and binds the JIT'd code to these symbols.
 * Any other host (mlir-runner -shared-libs=..., a C program) can load it too;
 * with the environment variable REMAT_ALLOC_TRACKER_REPORT set to 1 (or
 * "json") the library prints its counters to stderr when the process exits.
 */

#ifndef REMAT_RUNTIME_ALLOCTRACKER_H
#define REMAT_RUNTIME_ALLOCTRACKER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Counters since the last rematAllocTrackerReset(). */
typedef struct RematAllocStats {
  uint64_t currentBytes;  /* bytes live now */
  uint64_t peakBytes;     /* maximum of currentBytes */
  uint64_t numAllocs;     /* successful allocations */
  uint64_t numFrees;      /* frees of tracked pointers */
  uint64_t totalBytes;    /* sum of all allocation sizes */
  uint64_t unknownFrees;  /* frees of pointers this library never returned */
  uint64_t currentBuffers; /* pointers live now */
} RematAllocStats;

/* Allocation hooks called by lowered MLIR code. */
void *_mlir_memref_to_llvm_alloc(size_t size);
void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size);
void _mlir_memref_to_llvm_free(void *ptr);

/* Copies the counters into *stats. */
void rematAllocTrackerGetStats(RematAllocStats *stats);

/* Starts a new measurement: zeroes the counters, keeps the live pointers
 * (their bytes stay in currentBytes, and peakBytes restarts from it), and
 * restarts the process's peak resident set from its current one (Linux:
 * /proc/self/clear_refs). */
void rematAllocTrackerReset(void);

/* How far the process's peak resident set (VmHWM) rose above its resident
 * set at the last rematAllocTrackerReset() (at load without one): what the
 * system allocator took from the system for the measured run, with its own
 * fragmentation and bookkeeping. -1 where /proc is not readable. */
int64_t rematAllocTrackerRSSGrowth(void);

/* The recorded size of a live tracked pointer, or -1 if it is not one. */
int64_t rematAllocTrackerSizeOf(const void *ptr);

/* Prints the counters and the RSS growth to stderr, as text or as one JSON
 * object. */
void rematAllocTrackerPrint(int json);

#ifdef __cplusplus
}
#endif

#endif /* REMAT_RUNTIME_ALLOCTRACKER_H */
