//===- Roofline.cpp - predicted time of a tensor op on a device -----------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Implements the rules documented in Roofline.h and docs/CostModel.md.
//
//===----------------------------------------------------------------------===//

#include "remat/Analysis/Roofline.h"

#include "remat/Analysis/Storage.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace remat;

//===----------------------------------------------------------------------===//
// The device table
//===----------------------------------------------------------------------===//

#define REMAT_DEVICE_ROW(Id, Name, Description, Fp64, Fp64Tensor, Fp32,        \
                         Tensor16, Bandwidth)                                  \
  DeviceSpec{Device::Id, Name, Description, Fp64,                              \
             Fp64Tensor, Fp32, Tensor16,    Bandwidth},

static const DeviceSpec kDevices[] = {REMAT_DEVICES(REMAT_DEVICE_ROW)};

#undef REMAT_DEVICE_ROW

llvm::ArrayRef<DeviceSpec> remat::getDeviceSpecs() { return kDevices; }

const DeviceSpec *remat::getDeviceSpec(Device device) {
  for (const DeviceSpec &spec : kDevices)
    if (spec.device == device)
      return &spec;
  return nullptr;
}

const DeviceSpec *remat::lookupDevice(llvm::StringRef name) {
  for (const DeviceSpec &spec : kDevices)
    if (spec.name == name)
      return &spec;
  return nullptr;
}

std::string remat::getDeviceNames() {
  std::string names;
  for (const DeviceSpec &spec : kDevices)
    names += (names.empty() ? "" : ", ") + spec.name.str();
  return names;
}

//===----------------------------------------------------------------------===//
// Peak
//===----------------------------------------------------------------------===//

/// Whether `op` multiplies and accumulates over a reduction: a contraction
/// (matmul, batch_matmul, a generic of that form) or a convolution whose
/// payload multiplies (pooling does not): the work tensor cores take.
static bool isTensorCoreWork(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return false;
  if (linalg::isaContractionOpInterface(linalgOp))
    return true;
  if (!linalg::isaConvolutionOpInterface(linalgOp))
    return false;
  bool multiplies = false;
  op->getRegion(0).walk([&](Operation *nested) {
    multiplies |= isa<arith::MulFOp, arith::MulIOp>(nested);
  });
  return multiplies;
}

/// The element type of the first tensor operand, else of the first tensor
/// result; null when the op has neither.
static Type getWorkElementType(Operation *op) {
  for (Type type :
       llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
    if (auto tensor = dyn_cast<TensorType>(type))
      return tensor.getElementType();
  return nullptr;
}

double remat::getPeakFlops(Operation *op, const DeviceSpec &device) {
  Type element = getWorkElementType(op);
  bool f64 = element && element.isF64();
  bool f16 = element && (element.isBF16() || element.isF16());
  if (isTensorCoreWork(op)) {
    if (f16)
      return device.tensor16Flops;
    if (f64)
      return device.fp64TensorFlops;
  }
  return f64 ? device.fp64Flops : device.fp32Flops;
}

//===----------------------------------------------------------------------===//
// Bytes moved
//===----------------------------------------------------------------------===//

/// Whether `op` reads `operand`: every operand but a destination, and a
/// destination whose value a linalg payload uses (an accumulator).
static bool readsOperand(Operation *op, OpOperand &operand) {
  auto dps = dyn_cast<DestinationStyleOpInterface>(op);
  if (!dps || !dps.isDpsInit(&operand))
    return true;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.payloadUsesValueFromOperand(&operand);
}

/// Adds the bytes of `value` (0 unless a tensor) to `total`; fails with an
/// error naming `what` when its size is unknown or too large.
static LogicalResult addTensorBytes(Operation *op, Value value,
                                    const llvm::Twine &what,
                                    std::optional<int64_t> dynamicSize,
                                    int64_t &total) {
  auto tensor = dyn_cast<TensorType>(value.getType());
  if (!tensor)
    return success();
  std::optional<int64_t> bytes = getStorageBytes(tensor, op, dynamicSize);
  if (!bytes)
    return op->emitOpError()
           << "has " << what << " of type " << tensor
           << " whose size the roofline cost cannot know (it needs static "
              "shapes or a dynamic-size hint, and element types of known "
              "size)";
  if (isSaturated(*bytes) || llvm::AddOverflow(total, *bytes, total))
    return op->emitOpError() << "moves more bytes than a 64-bit integer holds";
  return success();
}

FailureOr<int64_t> remat::getBytesMoved(Operation *op,
                                        std::optional<int64_t> dynamicSize) {
  int64_t total = 0;
  for (OpOperand &operand : op->getOpOperands())
    if (readsOperand(op, operand) &&
        failed(addTensorBytes(op, operand.get(),
                              "operand #" +
                                  llvm::Twine(operand.getOperandNumber()),
                              dynamicSize, total)))
      return failure();
  for (OpResult result : op->getResults())
    if (failed(addTensorBytes(
            op, result, "result #" + llvm::Twine(result.getResultNumber()),
            dynamicSize, total)))
      return failure();
  return total;
}

//===----------------------------------------------------------------------===//
// Time
//===----------------------------------------------------------------------===//

FailureOr<int64_t>
remat::computeRooflinePs(Operation *op, int64_t flops, const DeviceSpec &device,
                         std::optional<int64_t> dynamicSize) {
  if (ownsNoStorage(op))
    return 0;
  FailureOr<int64_t> bytes = getBytesMoved(op, dynamicSize);
  if (failed(bytes))
    return failure();
  double seconds =
      std::max(static_cast<double>(flops) / getPeakFlops(op, device),
               static_cast<double>(*bytes) / device.bytesPerSecond);
  double picoseconds = std::round(seconds * 1e12);
  // Unreachable for the devices of Devices.h (an int64_t of FLOPs or bytes
  // takes under 2^63 ps at their slowest peak), kept for a slower device.
  if (!(picoseconds < 9.2e18)) // below 2^63, with room for rounding
    return op->emitOpError() << "has a predicted time on " << device.name
                             << " beyond 2^63 picoseconds";
  return static_cast<int64_t>(picoseconds);
}
