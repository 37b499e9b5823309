//===- RunnerSupport.h - shared pieces of the step runners ------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// What the training-step runners (remat-run on the CPU, remat-gpu-run on a
// CUDA GPU) must agree on so that their outputs are comparable: which types
// they accept, the deterministic inputs, the lowered calling convention of
// the entry, and the per-result checksums.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_RUNNER_RUNNERSUPPORT_H
#define REMAT_RUNNER_RUNNERSUPPORT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <string>

namespace remat {

/// Scalar element kinds the runners can build and read.
enum class ElemKind { F32, F64, I32, I64 };

/// How one argument or result of the entry is passed: a scalar, or a ranked
/// static memref (tensors become identity-layout memrefs when bufferized).
struct ValueSpec {
  ElemKind kind = ElemKind::F32;
  bool isMemRef = false;
  llvm::SmallVector<int64_t> shape;
  std::string typeString;

  int64_t numElements() const;
  unsigned elemBytes() const;
  int64_t rank() const { return shape.size(); }
  /// Bytes of the whole value (elements x element size).
  uint64_t byteSize() const { return numElements() * elemBytes(); }
};

/// Maps an argument or result type of the entry (before lowering) to a
/// ValueSpec, or sets `reason` and fails.
mlir::FailureOr<ValueSpec> getValueSpec(mlir::Type type, std::string &reason);

/// The entry named `name`, or the first public func.func with a body that is
/// not `main` when `name` is empty. Sets `error` and returns null on failure.
mlir::func::FuncOp findEntry(mlir::ModuleOp module, llvm::StringRef name,
                             std::string &error);

/// The documented deterministic input: element `i` (row-major) of argument
/// `arg` is sin(0.1 * i + arg) * 0.5 for floats and (i + arg) mod 4 for
/// integers. Scalars are element 0. Writes `spec.numElements()` elements (one
/// for scalars) to `data`.
void fillInput(const ValueSpec &spec, unsigned arg, void *data);

/// Checksum of one result over its elements in row-major order: the sum, the
/// sum of absolute values, and the FNV-1a 64-bit hash of the raw bytes.
struct Checksum {
  double sum = 0;
  double absSum = 0;
  uint64_t fnv = 0xcbf29ce484222325ULL; // FNV-1a 64 offset basis
  llvm::SmallVector<double> values;     // kept only when asked
};

/// Adds the element at `p` to `c`.
void addElement(Checksum &c, ElemKind kind, const char *p, unsigned bytes,
                bool keepValue);

/// Adds every element of a strided memref (row-major logical order) whose
/// aligned pointer is `base`, offset, sizes and strides in elements.
void addMemRef(Checksum &c, const ValueSpec &spec, const char *base,
               int64_t offset, const int64_t *sizes, const int64_t *strides,
               bool keepValues);

/// Size and alignment of one lowered value in the LLVM return struct: a
/// memref descriptor {ptr, ptr, i64, [rank x i64], [rank x i64]} or a scalar.
unsigned getLoweredSize(const ValueSpec &spec);
unsigned getLoweredAlign(const ValueSpec &spec);

/// The lowered descriptor fields of an identity-layout memref at `data`.
llvm::SmallVector<int64_t> makeDescriptorWords(const ValueSpec &spec,
                                               void *data);

/// `v` as 0x-prefixed 16-digit hex.
std::string formatHex64(uint64_t v);

} // namespace remat

#endif // REMAT_RUNNER_RUNNERSUPPORT_H
