//===- Roofline.h - predicted time of a tensor op on a device ---*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The roofline cost: the time an op takes on a device is bounded by its
// arithmetic and by its memory traffic, whichever is slower,
//
//   time = max(flops / peak FLOP/s, bytes moved / HBM bytes/s),
//
// so recomputing a pointwise op costs what it reads and writes, not what it
// computes. docs/CostModel.md ("Time on a device") gives the rules:
//   * bytes moved = bytes of every tensor operand the op reads + bytes of
//     every tensor result it writes, by type (elements x element bytes under
//     the data layout); a destination (`outs`) counts as read only when a
//     linalg payload uses its value. Views, uninitialized allocations and
//     constants (ownsNoStorage) run no kernel: 0;
//   * the peak: the dense BF16/FP16 tensor-core peak for a contraction or
//     convolution on 16-bit floats, the FP64 tensor-core peak for one on
//     f64; the FP64 peak for any other op on f64; the FP32 peak otherwise
//     (f32 matmuls included: PyTorch leaves TF32 off for them). The element
//     type is that of the first tensor operand (of the first result without
//     one).
//
// The devices and their data-sheet numbers live in Devices.h, the table the
// importer reads too.
//
// Usage:
//
//   const DeviceSpec *h100 = lookupDevice("h100");
//   FailureOr<int64_t> ps = computeRooflinePs(op, flops, *h100, std::nullopt);
//   if (failed(ps))
//     return failure(); // a located error was emitted on `op`
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_ANALYSIS_ROOFLINE_H
#define REMAT_ANALYSIS_ROOFLINE_H

#include "remat/Analysis/Devices.h"

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace remat {

#define REMAT_DEVICE_ENUMERATOR(Id, ...) , Id

/// A device of the table in Devices.h, or None: costs in FLOPs only.
enum class Device { None REMAT_DEVICES(REMAT_DEVICE_ENUMERATOR) };

#undef REMAT_DEVICE_ENUMERATOR

/// The `llvm::cl::values` of a Device option: `none` and every device of
/// Devices.h by its name.
#define REMAT_DEVICE_CL_VALUE(Id, Name, Description, ...)                      \
  , clEnumValN(::remat::Device::Id, Name, Description)
#define REMAT_DEVICE_CL_VALUES                                                 \
  ::llvm::cl::values(clEnumValN(::remat::Device::None, "none",                 \
                                "no device: compute costs in FLOPs")           \
                         REMAT_DEVICES(REMAT_DEVICE_CL_VALUE))

/// One row of the device table: peaks in FLOP/s, bandwidth in bytes/s.
struct DeviceSpec {
  Device device;
  /// The option value (`h100`).
  llvm::StringRef name;
  /// The part the numbers are for (`NVIDIA H100 SXM5 80 GB`).
  llvm::StringRef description;
  /// FP64 on the CUDA cores.
  double fp64Flops;
  /// FP64 on the tensor cores (contractions on f64).
  double fp64TensorFlops;
  /// FP32 on the CUDA cores (everything not on a tensor core).
  double fp32Flops;
  /// BF16 and FP16 on the tensor cores, dense (contractions on 16-bit floats).
  double tensor16Flops;
  /// HBM bandwidth.
  double bytesPerSecond;
};

/// Every device of Devices.h, in its order.
llvm::ArrayRef<DeviceSpec> getDeviceSpecs();

/// The row of `device`; null for Device::None.
const DeviceSpec *getDeviceSpec(Device device);

/// The row named `name` (`h100`); null for an unknown name.
const DeviceSpec *lookupDevice(llvm::StringRef name);

/// The names of all devices, comma-separated, for messages.
std::string getDeviceNames();

/// The peak FLOP/s `op` runs at on `device` (the rules above).
double getPeakFlops(mlir::Operation *op, const DeviceSpec &device);

/// Bytes `op` reads from its tensor operands and writes to its tensor results
/// (the rules above); every dynamic dimension counts as `dynamicSize`. Emits
/// a located error and fails for a size that is unknown (dynamic without a
/// size, unranked, an element type of unknown size) or beyond int64_t.
mlir::FailureOr<int64_t> getBytesMoved(mlir::Operation *op,
                                       std::optional<int64_t> dynamicSize);

/// max(flops / peak, bytes moved / bandwidth) of `op` on `device`, in
/// picoseconds rounded to the nearest; 0 for an op that runs no kernel (a
/// view, an uninitialized allocation, a constant). Fails as getBytesMoved
/// does, and for a time beyond int64_t picoseconds (106 days).
mlir::FailureOr<int64_t> computeRooflinePs(mlir::Operation *op, int64_t flops,
                                           const DeviceSpec &device,
                                           std::optional<int64_t> dynamicSize);

} // namespace remat

#endif // REMAT_ANALYSIS_ROOFLINE_H
