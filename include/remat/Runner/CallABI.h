//===- CallABI.h - how the step runners call a lowered entry ----*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The calling convention the runners (remat-run, remat-gpu-run) share with
// the entry they JIT-compile, as upstream's MemRefUtils and ExecutionEngine's
// packed wrappers describe it: which values they pass (ValueSpec: a scalar
// or a static identity-layout memref of bf16, f32, f64, i1, i32 or i64), how
// a packed call lays them out (every memref argument as its expanded
// descriptor words; the results in one naturally aligned struct), and what
// the runners read back: one Checksum per result, computed alike by both so
// that their outputs compare.
//
//   PackedCall call(argSpecs, resultSpecs, argBuffers);
//   jit.call(call.getArgs());
//   SmallVector<Checksum> sums = call.checksumResults(
//       /*keepValues=*/false, [](unsigned, const DescriptorView &d) {
//         return d.aligned + d.offset * elementBytes;
//       });
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_RUNNER_CALLABI_H
#define REMAT_RUNNER_CALLABI_H

#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
class DataLayout;
} // namespace mlir

namespace remat {

/// Scalar element kinds the runners can build and read.
enum class ElemKind { BF16, F32, F64, I1, I32, I64 };

/// How one argument or result of the entry is passed: a scalar, or a ranked
/// static memref (tensors become identity-layout memrefs when bufferized).
struct ValueSpec {
  ElemKind kind = ElemKind::F32;
  bool isMemRef = false;
  llvm::SmallVector<int64_t> shape;
  std::string typeString;
  /// A float argument marked `remat.bernoulli = p`: a random 0/1 mask, 1
  /// with probability p (a dropout mask; see fillInput, Inputs.h).
  std::optional<double> bernoulli;
  /// An integer argument marked `remat.high = h`: values in [0, h) (token
  /// ids, class labels; see fillInput, Inputs.h).
  std::optional<int64_t> high;

  int64_t numElements() const;
  unsigned elemBytes() const;
  int64_t rank() const { return shape.size(); }
  /// Bytes of the whole value (elements x element size).
  uint64_t byteSize() const { return numElements() * elemBytes(); }
};

/// Maps an argument or result type of the entry (before lowering) to a
/// ValueSpec, or sets `reason` and fails: a type the runners cannot build or
/// read, or a value too large to allocate (its bytes under `layout`
/// saturate the storage model: elements x element size would wrap around).
/// `tool` names the runner in the reasons.
mlir::FailureOr<ValueSpec> getValueSpec(mlir::Type type,
                                        const mlir::DataLayout &layout,
                                        llvm::StringRef tool,
                                        std::string &reason);

/// Checksum of one result over its elements in row-major order: the sum, the
/// sum of absolute values, and the FNV-1a 64-bit hash of the raw bytes.
struct Checksum {
  double sum = 0;
  double absSum = 0;
  uint64_t fnv = 0xcbf29ce484222325ULL; // FNV-1a 64 offset basis
  llvm::SmallVector<double> values;     // kept only when asked
};

/// `v` as 0x-prefixed 16-digit hex.
std::string formatHex64(uint64_t v);

/// The fields of a lowered memref descriptor (every field 8 bytes).
struct DescriptorView {
  void *allocated;
  const char *aligned;
  int64_t offset;
  const int64_t *sizes;
  const int64_t *strides;
};

/// The arguments of a packed call (ExecutionEngine::lookupPacked) of the
/// lowered entry: every argument as its expanded descriptor words (memrefs)
/// or one 8-byte word (scalars), then the storage of the results (nothing,
/// one value, or the struct of the results, naturally aligned).
class PackedCall {
public:
  /// `memRefData[i]` is the buffer of argument `i` when it is a memref.
  PackedCall(llvm::ArrayRef<ValueSpec> argSpecs,
             llvm::ArrayRef<ValueSpec> resultSpecs,
             llvm::ArrayRef<void *> memRefData);
  PackedCall(const PackedCall &) = delete;
  PackedCall &operator=(const PackedCall &) = delete;

  /// The 8-byte word scalar argument `i` is passed in.
  void *getScalarArg(unsigned i) { return argWords[i].data(); }
  /// The pointer array to hand to the packed function.
  void **getArgs() { return packedArgs.data(); }
  /// Zeroes the result storage.
  void clearResults();
  /// Where result `i` lies in the result storage after the call.
  const char *getResult(unsigned i) const;
  /// The descriptor of memref result `i` after the call.
  DescriptorView getMemRefResult(unsigned i) const;
  /// The checksums of the results after the call. Scalars are read from the
  /// result storage; memref result `i` from the host pointer
  /// `readMemRef(i, descriptor)` returns, which addresses the element at the
  /// descriptor's offset (and stays valid until the next call of readMemRef).
  llvm::SmallVector<Checksum> checksumResults(
      bool keepValues,
      llvm::function_ref<const char *(unsigned, const DescriptorView &)>
          readMemRef) const;
  /// The distinct allocated pointers of the memref results after the call.
  llvm::SmallVector<void *> getResultAllocations() const;

private:
  llvm::SmallVector<ValueSpec> resultSpecs;
  llvm::SmallVector<llvm::SmallVector<int64_t>> argWords;
  llvm::SmallVector<unsigned> resultOffsets;
  llvm::SmallVector<int64_t> resultStorage;
  llvm::SmallVector<void *> packedArgs;
};

} // namespace remat

#endif // REMAT_RUNNER_CALLABI_H
