//===- CudaRuntime.cpp - CUDA runtime library for lowered MLIR ------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Implements include/remat/Runtime/CudaRuntime.h on the CUDA driver API.
// Debian ships no libmlir_cuda_runtime.so; this library provides the mgpu*
// functions with device-memory accounting on top.
//
//===----------------------------------------------------------------------===//

#include "remat/Runtime/CudaRuntime.h"

#include <cuda.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

/// Everything the library tracks, behind one mutex.
struct State {
  std::mutex mutex;
  bool initialized = false;
  CUdevice device = 0;
  int deviceOrdinal = 0;
  CUcontext context = nullptr;
  bool poolsSupported = false;
  CUmemoryPool pool = nullptr;
  /// Live allocations: requested size, and whether cuMemAllocAsync served
  /// it (then it is freed stream-ordered).
  struct Allocation {
    uint64_t bytes;
    bool streamOrdered;
  };
  std::unordered_map<const void *, Allocation> allocations;
  RematCudaStats stats = {};
  bool timing = false;
  /// Start/stop events of launches not yet summed into stats.kernelMs.
  std::vector<std::pair<CUevent, CUevent>> pendingTimings;
};

State &state() {
  static State *s = new State(); // never destroyed: used from atexit
  return *s;
}

/// The driver's name of `result`, or its number when the driver cannot name
/// it (the toolkit's stub libcuda names nothing).
const char *errorName(CUresult result) {
  const char *name = nullptr;
  if (cuGetErrorName(result, &name) == CUDA_SUCCESS && name)
    return name;
  static thread_local char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "CUDA error %d",
                static_cast<int>(result));
  return buffer;
}

const char *errorString(CUresult result) {
  const char *text = nullptr;
  if (cuGetErrorString(result, &text) == CUDA_SUCCESS && text)
    return text;
  if (result == CUDA_ERROR_STUB_LIBRARY)
    return "libcuda is the CUDA toolkit's stub, not a driver";
  return "the driver gives no description";
}

[[noreturn]] void fatal(const char *call, CUresult result) {
  std::fprintf(stderr, "remat-cuda: error: %s failed: %s (%s)\n", call,
               errorName(result), errorString(result));
  std::fflush(stderr);
  std::_Exit(REMAT_CUDA_EXIT_CODE);
}

#define REMAT_CUDA_CHECK(expr)                                                 \
  do {                                                                         \
    CUresult result_ = (expr);                                                 \
    if (result_ != CUDA_SUCCESS)                                               \
      fatal(#expr, result_);                                                   \
  } while (false)

void printStatsAtExit() {
  const char *report = std::getenv("REMAT_CUDA_REPORT");
  if (!report || !*report || std::strcmp(report, "0") == 0)
    return;
  rematCudaPrintStats(std::strcmp(report, "json") == 0);
}

/// Initializes the driver and the primary context once. Returns the error.
CUresult initializeLocked(State &s) {
  if (s.initialized)
    return CUDA_SUCCESS;
  CUresult result = cuInit(0);
  if (result != CUDA_SUCCESS)
    return result;
  int count = 0;
  if ((result = cuDeviceGetCount(&count)) != CUDA_SUCCESS)
    return result;
  if (count == 0)
    return CUDA_ERROR_NO_DEVICE;
  if (s.deviceOrdinal >= count)
    return CUDA_ERROR_INVALID_DEVICE;
  if ((result = cuDeviceGet(&s.device, s.deviceOrdinal)) != CUDA_SUCCESS)
    return result;
  if ((result = cuDevicePrimaryCtxRetain(&s.context, s.device)) != CUDA_SUCCESS)
    return result;
  int pools = 0;
  if (cuDeviceGetAttribute(&pools, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED,
                           s.device) == CUDA_SUCCESS &&
      pools && cuDeviceGetDefaultMemPool(&s.pool, s.device) == CUDA_SUCCESS)
    s.poolsSupported = true;
  s.initialized = true;
  std::atexit(printStatsAtExit);
  return CUDA_SUCCESS;
}

/// Makes the library's context current on this thread, initializing on
/// first use; exits with a clear message when there is no usable GPU.
void enter() {
  State &s = state();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    CUresult result = initializeLocked(s);
    if (result != CUDA_SUCCESS) {
      std::fprintf(stderr,
                   "remat-cuda: error: cannot use a CUDA GPU: %s (%s); "
                   "a GPU and the NVIDIA driver are needed to run "
                   "GPU code\n",
                   errorName(result), errorString(result));
      std::fflush(stderr);
      std::_Exit(REMAT_CUDA_EXIT_CODE);
    }
  }
  CUcontext current = nullptr;
  REMAT_CUDA_CHECK(cuCtxGetCurrent(&current));
  if (current != s.context)
    REMAT_CUDA_CHECK(cuCtxSetCurrent(s.context));
}

/// Adds the elapsed time of finished timed launches to the stats.
void collectTimingsLocked(State &s) {
  for (auto &[start, stop] : s.pendingTimings) {
    float ms = 0;
    if (cuEventElapsedTime(&ms, start, stop) == CUDA_SUCCESS)
      s.stats.kernelMs += ms;
    cuEventDestroy(start);
    cuEventDestroy(stop);
  }
  s.pendingTimings.clear();
}

/// A high watermark of the pool (CU_MEMPOOL_ATTR_USED_MEM_HIGH or
/// CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH); 0 without pools.
uint64_t poolHigh(State &s, CUmemPool_attribute attribute) {
  if (!s.poolsSupported)
    return 0;
  cuuint64_t high = 0;
  if (cuMemPoolGetAttribute(s.pool, attribute, &high) != CUDA_SUCCESS)
    return 0;
  return high;
}

} // namespace

//===----------------------------------------------------------------------===//
// Accounting interface
//===----------------------------------------------------------------------===//

extern "C" int rematCudaInitialize(char *message, size_t size) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  CUresult result = initializeLocked(s);
  if (result != CUDA_SUCCESS && message && size)
    std::snprintf(message, size, "%s (%s)", errorName(result),
                  errorString(result));
  return static_cast<int>(result);
}

extern "C" int rematCudaGetDeviceCount(int *count) {
  *count = 0;
  CUresult result = cuInit(0);
  if (result == CUDA_SUCCESS)
    result = cuDeviceGetCount(count);
  return static_cast<int>(result);
}

extern "C" void rematCudaGetStats(RematCudaStats *stats) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.stats.poolPeakBytes = poolHigh(s, CU_MEMPOOL_ATTR_USED_MEM_HIGH);
  s.stats.poolReservedPeakBytes =
      poolHigh(s, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH);
  *stats = s.stats;
}

extern "C" void rematCudaReset(void) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  collectTimingsLocked(s);
  uint64_t live = s.stats.currentBytes;
  s.stats = RematCudaStats();
  s.stats.currentBytes = live;
  s.stats.peakBytes = live;
  if (s.poolsSupported) {
    cuuint64_t zero = 0;
    cuMemPoolSetAttribute(s.pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &zero);
    cuMemPoolSetAttribute(s.pool, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &zero);
  }
}

extern "C" void rematCudaSetKernelTiming(int enabled) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.timing = enabled != 0;
}

extern "C" int64_t rematCudaSizeOf(const void *ptr) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.allocations.find(ptr);
  return it == s.allocations.end() ? -1
                                   : static_cast<int64_t>(it->second.bytes);
}

extern "C" void rematCudaCopyToDevice(void *device, const void *host,
                                      size_t bytes) {
  enter();
  REMAT_CUDA_CHECK(
      cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(device), host, bytes));
}

extern "C" void rematCudaCopyToHost(void *host, const void *device,
                                    size_t bytes) {
  enter();
  REMAT_CUDA_CHECK(
      cuMemcpyDtoH(host, reinterpret_cast<CUdeviceptr>(device), bytes));
}

extern "C" void rematCudaPrintStats(int json) {
  RematCudaStats st;
  rematCudaGetStats(&st);
  if (json) {
    std::fprintf(stderr,
                 "{\"current_bytes\": %" PRIu64 ", \"peak_bytes\": %" PRIu64
                 ", \"num_allocs\": %" PRIu64 ", \"num_frees\": %" PRIu64
                 ", \"total_bytes\": %" PRIu64 ", \"unknown_frees\": %" PRIu64
                 ", \"pool_peak_bytes\": %" PRIu64
                 ", \"num_launches\": %" PRIu64 ", \"kernel_ms\": %.6f}\n",
                 st.currentBytes, st.peakBytes, st.numAllocs, st.numFrees,
                 st.totalBytes, st.unknownFrees, st.poolPeakBytes,
                 st.numLaunches, st.kernelMs);
    return;
  }
  std::fprintf(stderr,
               "remat-cuda: device bytes: current=%" PRIu64 " peak=%" PRIu64
               " (pool high watermark %" PRIu64 "), allocs=%" PRIu64
               " frees=%" PRIu64 " total=%" PRIu64 " unknown_frees=%" PRIu64
               ", launches=%" PRIu64 " kernel_ms=%.3f\n",
               st.currentBytes, st.peakBytes, st.poolPeakBytes, st.numAllocs,
               st.numFrees, st.totalBytes, st.unknownFrees, st.numLaunches,
               st.kernelMs);
}

//===----------------------------------------------------------------------===//
// mgpu* interface
//===----------------------------------------------------------------------===//

extern "C" void mgpuSetDefaultDevice(int32_t device) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.initialized)
    s.deviceOrdinal = device;
}

extern "C" void *mgpuStreamCreate(void) {
  enter();
  CUstream stream = nullptr;
  REMAT_CUDA_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  return stream;
}

extern "C" void mgpuStreamDestroy(void *stream) {
  enter();
  REMAT_CUDA_CHECK(cuStreamDestroy(static_cast<CUstream>(stream)));
}

extern "C" void mgpuStreamSynchronize(void *stream) {
  enter();
  REMAT_CUDA_CHECK(cuStreamSynchronize(static_cast<CUstream>(stream)));
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  collectTimingsLocked(s);
}

extern "C" void mgpuStreamWaitEvent(void *stream, void *event) {
  enter();
  REMAT_CUDA_CHECK(cuStreamWaitEvent(static_cast<CUstream>(stream),
                                     static_cast<CUevent>(event), 0));
}

extern "C" void *mgpuEventCreate(void) {
  enter();
  CUevent event = nullptr;
  REMAT_CUDA_CHECK(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING));
  return event;
}

extern "C" void mgpuEventDestroy(void *event) {
  enter();
  REMAT_CUDA_CHECK(cuEventDestroy(static_cast<CUevent>(event)));
}

extern "C" void mgpuEventSynchronize(void *event) {
  enter();
  REMAT_CUDA_CHECK(cuEventSynchronize(static_cast<CUevent>(event)));
}

extern "C" void mgpuEventRecord(void *event, void *stream) {
  enter();
  REMAT_CUDA_CHECK(cuEventRecord(static_cast<CUevent>(event),
                                 static_cast<CUstream>(stream)));
}

extern "C" void *mgpuMemAlloc(uint64_t sizeBytes, void *stream,
                              int8_t isHostShared) {
  enter();
  State &s = state();
  CUdeviceptr ptr = 0;
  // cuMemAlloc rejects 0 bytes; keep a distinct pointer per allocation.
  size_t bytes = sizeBytes ? sizeBytes : 1;
  bool streamOrdered = !isHostShared && stream && s.poolsSupported;
  if (isHostShared)
    REMAT_CUDA_CHECK(cuMemAllocManaged(&ptr, bytes, CU_MEM_ATTACH_GLOBAL));
  else if (streamOrdered)
    REMAT_CUDA_CHECK(
        cuMemAllocAsync(&ptr, bytes, static_cast<CUstream>(stream)));
  else
    REMAT_CUDA_CHECK(cuMemAlloc(&ptr, bytes));
  void *result = reinterpret_cast<void *>(ptr);
  std::lock_guard<std::mutex> lock(s.mutex);
  s.allocations[result] = {sizeBytes, streamOrdered};
  s.stats.currentBytes += sizeBytes;
  s.stats.totalBytes += sizeBytes;
  s.stats.numAllocs += 1;
  if (s.stats.currentBytes > s.stats.peakBytes)
    s.stats.peakBytes = s.stats.currentBytes;
  return result;
}

extern "C" void mgpuMemFree(void *ptr, void *stream) {
  if (!ptr)
    return;
  enter();
  State &s = state();
  bool streamOrdered = false;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    auto it = s.allocations.find(ptr);
    if (it == s.allocations.end()) {
      s.stats.unknownFrees += 1;
    } else {
      s.stats.currentBytes -= it->second.bytes;
      s.stats.numFrees += 1;
      streamOrdered = it->second.streamOrdered;
      s.allocations.erase(it);
    }
  }
  CUdeviceptr devicePtr = reinterpret_cast<CUdeviceptr>(ptr);
  CUstream cuStream = static_cast<CUstream>(stream);
  // Stream-ordered: the free happens after the work queued before it.
  if (streamOrdered) {
    REMAT_CUDA_CHECK(cuMemFreeAsync(devicePtr, cuStream));
    return;
  }
  // cuMemFree is not ordered with the stream: wait for queued kernels.
  if (cuStream)
    REMAT_CUDA_CHECK(cuStreamSynchronize(cuStream));
  else
    REMAT_CUDA_CHECK(cuCtxSynchronize());
  REMAT_CUDA_CHECK(cuMemFree(devicePtr));
}

extern "C" void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                           void *stream) {
  enter();
  REMAT_CUDA_CHECK(cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                                 reinterpret_cast<CUdeviceptr>(src), sizeBytes,
                                 static_cast<CUstream>(stream)));
}

/// The bytes and first byte of a dense memref of `rank` whose descriptor
/// (allocated and aligned pointers, offset, sizes, strides) is at
/// `descriptor`, of elements of `elementBytes`.
static std::pair<char *, size_t> getDenseBytes(int64_t rank, void *descriptor,
                                              int64_t elementBytes) {
  struct Header {
    char *allocated;
    char *aligned;
    int64_t offset;
    int64_t sizes[1];
  };
  auto *header = static_cast<Header *>(descriptor);
  size_t elements = 1;
  for (int64_t dim = 0; dim < rank; ++dim)
    elements *= static_cast<size_t>(header->sizes[dim]);
  return {header->aligned + header->offset * elementBytes,
          elements * static_cast<size_t>(elementBytes)};
}

/// Page-locks a host buffer (a host copy of an offloaded value,
/// docs/Offload.md), so that copies to and from it are asynchronous.
extern "C" void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                                          int64_t elementBytes) {
  enter();
  auto [data, bytes] = getDenseBytes(rank, descriptor, elementBytes);
  if (bytes)
    REMAT_CUDA_CHECK(cuMemHostRegister(data, bytes, 0));
}

extern "C" void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                            int64_t elementBytes) {
  enter();
  auto [data, bytes] = getDenseBytes(rank, descriptor, elementBytes);
  if (bytes)
    REMAT_CUDA_CHECK(cuMemHostUnregister(data));
}

extern "C" void mgpuMemset32(void *dst, unsigned int value, size_t count,
                             void *stream) {
  enter();
  REMAT_CUDA_CHECK(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value,
                                    count, static_cast<CUstream>(stream)));
}

extern "C" void mgpuMemset16(void *dst, unsigned short value, size_t count,
                             void *stream) {
  enter();
  REMAT_CUDA_CHECK(cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst), value,
                                    count, static_cast<CUstream>(stream)));
}

extern "C" void *mgpuModuleLoad(void *data, size_t /*gpuBlobSize*/) {
  enter();
  CUmodule module = nullptr;
  REMAT_CUDA_CHECK(cuModuleLoadData(&module, data));
  return module;
}

extern "C" void *mgpuModuleLoadJIT(void *data, int optLevel) {
  enter();
  CUmodule module = nullptr;
  char log[8192] = {0};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log)),
                    reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
  CUresult result = cuModuleLoadDataEx(&module, data, 3, options, values);
  if (result != CUDA_SUCCESS) {
    std::fprintf(stderr, "remat-cuda: error: PTX JIT compilation failed: %s\n",
                 log);
    fatal("cuModuleLoadDataEx", result);
  }
  return module;
}

extern "C" void mgpuModuleUnload(void *module) {
  enter();
  REMAT_CUDA_CHECK(cuModuleUnload(static_cast<CUmodule>(module)));
}

extern "C" void *mgpuModuleGetFunction(void *module, const char *name) {
  enter();
  CUfunction function = nullptr;
  REMAT_CUDA_CHECK(
      cuModuleGetFunction(&function, static_cast<CUmodule>(module), name));
  return function;
}

extern "C" void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                                 intptr_t gridZ, intptr_t blockX,
                                 intptr_t blockY, intptr_t blockZ, int32_t smem,
                                 void *stream, void **params, void **extra,
                                 size_t /*paramsCount*/) {
  enter();
  State &s = state();
  bool timing;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    timing = s.timing;
    s.stats.numLaunches += 1;
  }
  CUstream cuStream = static_cast<CUstream>(stream);
  CUevent start = nullptr, stop = nullptr;
  if (timing) {
    REMAT_CUDA_CHECK(cuEventCreate(&start, CU_EVENT_DEFAULT));
    REMAT_CUDA_CHECK(cuEventCreate(&stop, CU_EVENT_DEFAULT));
    REMAT_CUDA_CHECK(cuEventRecord(start, cuStream));
  }
  REMAT_CUDA_CHECK(cuLaunchKernel(static_cast<CUfunction>(function), gridX,
                                  gridY, gridZ, blockX, blockY, blockZ, smem,
                                  cuStream, params, extra));
  if (timing) {
    REMAT_CUDA_CHECK(cuEventRecord(stop, cuStream));
    std::lock_guard<std::mutex> lock(s.mutex);
    s.pendingTimings.emplace_back(start, stop);
  }
}
