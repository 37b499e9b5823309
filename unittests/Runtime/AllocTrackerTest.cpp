//===- AllocTrackerTest.cpp - libremat_alloc_tracker counters -------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Runtime/AllocTracker.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <cstdlib>

namespace {

RematAllocStats stats() {
  RematAllocStats s;
  rematAllocTrackerGetStats(&s);
  return s;
}

TEST(AllocTracker, CountsRequestedBytesExactly) {
  rematAllocTrackerReset();
  uint64_t base = stats().currentBytes;

  void *a = _mlir_memref_to_llvm_alloc(100);
  void *b = _mlir_memref_to_llvm_alloc(50);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(rematAllocTrackerSizeOf(a), 100);
  EXPECT_EQ(rematAllocTrackerSizeOf(b), 50);
  EXPECT_EQ(stats().currentBytes, base + 150);
  EXPECT_EQ(stats().peakBytes, base + 150);

  // Freeing a lowers the live count but not the peak; a third allocation of
  // 120 brings the live count to 170 > 150, a new peak.
  _mlir_memref_to_llvm_free(a);
  EXPECT_EQ(stats().currentBytes, base + 50);
  EXPECT_EQ(rematAllocTrackerSizeOf(a), -1);
  void *c = _mlir_memref_to_llvm_alloc(120);
  EXPECT_EQ(stats().peakBytes, base + 170);

  _mlir_memref_to_llvm_free(b);
  _mlir_memref_to_llvm_free(c);
  RematAllocStats s = stats();
  EXPECT_EQ(s.currentBytes, base);
  EXPECT_EQ(s.numAllocs, 3u);
  EXPECT_EQ(s.numFrees, 3u);
  EXPECT_EQ(s.totalBytes, 270u);
  EXPECT_EQ(s.unknownFrees, 0u);
}

TEST(AllocTracker, AlignedAllocHonoursAlignmentAndRecordsSize) {
  rematAllocTrackerReset();
  void *p = _mlir_memref_to_llvm_aligned_alloc(64, 192);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  EXPECT_EQ(rematAllocTrackerSizeOf(p), 192);
  EXPECT_EQ(stats().peakBytes - stats().currentBytes, 0u);
  _mlir_memref_to_llvm_free(p);
  EXPECT_EQ(stats().numFrees, 1u);
}

TEST(AllocTracker, ResetKeepsLivePointers) {
  rematAllocTrackerReset();
  uint64_t base = stats().currentBytes;
  void *p = _mlir_memref_to_llvm_alloc(40);
  void *q = _mlir_memref_to_llvm_alloc(8);
  _mlir_memref_to_llvm_free(q);
  rematAllocTrackerReset();
  // The live 40 bytes stay counted; the counters and the peak restart.
  RematAllocStats s = stats();
  EXPECT_EQ(s.currentBytes, base + 40);
  EXPECT_EQ(s.peakBytes, base + 40);
  EXPECT_EQ(s.numAllocs, 0u);
  EXPECT_EQ(s.currentBuffers, 1u);
  _mlir_memref_to_llvm_free(p);
  EXPECT_EQ(stats().currentBytes, base);
  EXPECT_EQ(stats().numFrees, 1u);
}

TEST(AllocTracker, ZeroByteAndForeignPointers) {
  rematAllocTrackerReset();
  // A zero-byte request still yields a distinct, trackable pointer.
  void *z = _mlir_memref_to_llvm_alloc(0);
  ASSERT_NE(z, nullptr);
  EXPECT_EQ(rematAllocTrackerSizeOf(z), 0);
  _mlir_memref_to_llvm_free(z);
  // Freeing null is a no-op; freeing a malloc'd pointer the tracker never
  // returned is counted and still freed.
  _mlir_memref_to_llvm_free(nullptr);
  _mlir_memref_to_llvm_free(std::malloc(16));
  RematAllocStats s = stats();
  EXPECT_EQ(s.unknownFrees, 1u);
  EXPECT_EQ(s.numFrees, 1u);
}

} // namespace
