/*===- CudaRuntime.h - CUDA runtime library for lowered MLIR ----*- C -*-===*\
|*                                                                            *|
|* Part of the remat-opt project.                                             *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * C interface of libremat_cuda_runtime.so, our CUDA runtime library on the
 * CUDA driver API. It defines the mgpu* functions that host code lowered by
 * `--remat-lower-to-nvvm` (gpu-to-llvm + gpu-module-to-binary) calls, and
 * counts the device memory allocated through mgpuMemAlloc / mgpuMemFree:
 * bytes live now, their peak, allocation counts, and the peak the driver's
 * memory pool itself reports. It also times kernels with CUDA events.
 *
 * Allocation: with a stream and a device that supports memory pools,
 * mgpuMemAlloc/mgpuMemFree are stream-ordered (cuMemAllocAsync /
 * cuMemFreeAsync), which is what gpu-async-region's token chain means;
 * otherwise the stream is synchronized before cuMemFree. The live byte count
 * follows the order in which the host issues allocations and frees, which on
 * one stream is also the device order.
 *
 * Errors: every failing driver call prints "remat-cuda: error: ..." with the
 * call and the driver's message to stderr and exits with status
 * REMAT_CUDA_EXIT_CODE. In particular, without a driver or a GPU, the first
 * call (cuInit) fails with a clear message instead of a crash.
 *
 * With the environment variable REMAT_CUDA_REPORT=1 (or "json") the library
 * prints its counters to stderr at exit.
 */

#ifndef REMAT_RUNTIME_CUDARUNTIME_H
#define REMAT_RUNTIME_CUDARUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit status of the process after a CUDA driver error. */
#define REMAT_CUDA_EXIT_CODE 3

/* Counters since the last rematCudaReset(). */
typedef struct RematCudaStats {
  uint64_t currentBytes;  /* device bytes live now (mgpuMemAlloc'd) */
  uint64_t peakBytes;     /* maximum of currentBytes */
  uint64_t numAllocs;     /* successful mgpuMemAlloc calls */
  uint64_t numFrees;      /* mgpuMemFree calls of tracked pointers */
  uint64_t totalBytes;    /* sum of all allocation sizes */
  uint64_t unknownFrees;  /* frees of pointers this library never returned */
  uint64_t poolPeakBytes; /* the memory pool's used-memory high watermark
                             (0 when allocations do not go through it) */
  uint64_t poolReservedPeakBytes; /* the pool's reserved-memory high
                                     watermark: what it took from the
                                     device, fragmentation included */
  uint64_t numLaunches;   /* kernels launched */
  double kernelMs;        /* summed kernel time (CUDA events), when timing
                             is on; complete after a stream synchronize */
} RematCudaStats;

/* Initializes the driver and the context of the default device. Returns 0 on
 * success; otherwise writes a message into `message` (if non-null, at most
 * `size` bytes) and returns the CUDA error code. Never exits. */
int rematCudaInitialize(char *message, size_t size);

/* Writes the number of CUDA devices into *count (initializing the driver,
 * not a context: mgpuSetDefaultDevice may still pick the device). Returns 0
 * on success, otherwise the CUDA error code. Never exits. */
int rematCudaGetDeviceCount(int *count);

/* Copies the counters into *stats. */
void rematCudaGetStats(RematCudaStats *stats);

/* Starts a new measurement: zeroes the counters except the live bytes (peak
 * restarts from them) and resets the pool's high watermark. */
void rematCudaReset(void);

/* Turns per-kernel timing with CUDA events on or off (off by default). */
void rematCudaSetKernelTiming(int enabled);

/* The size of a live tracked device pointer, or -1 if it is not one. */
int64_t rematCudaSizeOf(const void *ptr);

/* Copies between host and device memory, synchronously (used by runners). */
void rematCudaCopyToDevice(void *device, const void *host, size_t bytes);
void rematCudaCopyToHost(void *host, const void *device, size_t bytes);

/* Prints the counters to stderr, as text or as one JSON object. */
void rematCudaPrintStats(int json);

/* The mgpu* interface called by lowered host code (MLIR 22 signatures). */
void *mgpuStreamCreate(void);
void mgpuStreamDestroy(void *stream);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamWaitEvent(void *stream, void *event);
void *mgpuEventCreate(void);
void mgpuEventDestroy(void *event);
void mgpuEventSynchronize(void *event);
void mgpuEventRecord(void *event, void *stream);
void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, int8_t isHostShared);
void mgpuMemFree(void *ptr, void *stream);
void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream);
void mgpuMemset32(void *dst, unsigned int value, size_t count, void *stream);
void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream);
void *mgpuModuleLoad(void *data, size_t gpuBlobSize);
void *mgpuModuleLoadJIT(void *data, int optLevel);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t paramsCount);
void mgpuSetDefaultDevice(int32_t device);

#ifdef __cplusplus
}
#endif

#endif /* REMAT_RUNTIME_CUDARUNTIME_H */
