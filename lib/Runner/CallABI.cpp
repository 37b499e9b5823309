//===- CallABI.cpp - how the step runners call a lowered entry ------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Runner/CallABI.h"

#include "remat/Analysis/Storage.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace mlir;
using namespace remat;

int64_t ValueSpec::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

unsigned ValueSpec::elemBytes() const {
  switch (kind) {
  case ElemKind::I1:
    return 1;
  case ElemKind::BF16:
    return 2;
  case ElemKind::F32:
  case ElemKind::I32:
    return 4;
  case ElemKind::F64:
  case ElemKind::I64:
    return 8;
  }
  return 8;
}

FailureOr<ValueSpec> remat::getValueSpec(Type type, const DataLayout &layout,
                                         StringRef tool, std::string &reason) {
  ValueSpec spec;
  llvm::raw_string_ostream os(spec.typeString);
  type.print(os);
  Type elementType = type;
  if (auto shaped = dyn_cast<ShapedType>(type)) {
    if (!isa<RankedTensorType, MemRefType>(type)) {
      reason = "only ranked tensors and memrefs are supported";
      return failure();
    }
    if (auto memref = dyn_cast<MemRefType>(type);
        memref && !memref.getLayout().isIdentity()) {
      reason = "only memrefs with the identity layout are supported";
      return failure();
    }
    if (!shaped.hasStaticShape()) {
      reason = ("dynamic shapes are not supported (" + tool +
                " builds inputs from static shapes)")
                   .str();
      return failure();
    }
    spec.isMemRef = true;
    spec.shape.assign(shaped.getShape().begin(), shaped.getShape().end());
    elementType = shaped.getElementType();
  }
  if (elementType.isBF16())
    spec.kind = ElemKind::BF16;
  else if (elementType.isF32())
    spec.kind = ElemKind::F32;
  else if (elementType.isF64())
    spec.kind = ElemKind::F64;
  else if (elementType.isSignlessInteger(1))
    spec.kind = ElemKind::I1;
  else if (elementType.isSignlessInteger(32))
    spec.kind = ElemKind::I32;
  else if (elementType.isSignlessInteger(64))
    spec.kind = ElemKind::I64;
  else {
    reason = "element type must be bf16, f32, f64, i1, i32 or i64";
    return failure();
  }
  // The storage model saturates instead of wrapping: a value this large
  // cannot be allocated, and its lowering would compute a wrapped size.
  std::optional<int64_t> bytes = getStorageBytes(type, layout);
  if (!bytes || isSaturated(*bytes)) {
    reason = "it takes more than 2^63 bytes, more than " + tool.str() +
             " can allocate";
    return failure();
  }
  return spec;
}

/// The value of the bfloat16 with bits `bits`.
static double fromBFloat16(uint16_t bits) {
  uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &wide, sizeof(f));
  return f;
}

/// The element of type `T` at `p` (which may be unaligned).
template <typename T> static double load(const char *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return static_cast<double>(v);
}

static double loadAsDouble(ElemKind kind, const char *p) {
  switch (kind) {
  case ElemKind::BF16: {
    uint16_t bits;
    std::memcpy(&bits, p, sizeof(bits));
    return fromBFloat16(bits);
  }
  case ElemKind::F32:
    return load<float>(p);
  case ElemKind::F64:
    return load<double>(p);
  case ElemKind::I1:
    return static_cast<unsigned char>(*p) & 1;
  case ElemKind::I32:
    return load<int32_t>(p);
  case ElemKind::I64:
    return load<int64_t>(p);
  }
  return 0;
}

/// Adds the element at `p` to `c`.
static void addElement(Checksum &c, ElemKind kind, const char *p,
                       unsigned bytes, bool keepValue) {
  double v = loadAsDouble(kind, p);
  c.sum += v;
  c.absSum += std::fabs(v);
  for (unsigned b = 0; b < bytes; ++b) {
    c.fnv ^= static_cast<unsigned char>(p[b]);
    c.fnv *= 0x100000001b3ULL; // FNV-1a 64 prime
  }
  if (keepValue)
    c.values.push_back(v);
}

/// Adds every element of a strided memref (row-major logical order) whose
/// aligned pointer is `base`, offset, sizes and strides in elements.
static void addMemRef(Checksum &c, const ValueSpec &spec, const char *base,
                      int64_t offset, const int64_t *sizes,
                      const int64_t *strides, bool keepValues) {
  unsigned bytes = spec.elemBytes();
  int64_t n = spec.numElements();
  llvm::SmallVector<int64_t> index(spec.rank(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t linear = offset;
    for (int64_t dim = 0; dim < spec.rank(); ++dim)
      linear += index[dim] * strides[dim];
    addElement(c, spec.kind, base + linear * bytes, bytes, keepValues);
    for (int64_t dim = spec.rank() - 1; dim >= 0; --dim) {
      if (++index[dim] < sizes[dim])
        break;
      index[dim] = 0;
    }
  }
}

std::string remat::formatHex64(uint64_t v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format_hex(v, 18);
  return s;
}

/// Size and alignment of one lowered value in the LLVM return struct: a
/// memref descriptor {ptr, ptr, i64, [rank x i64], [rank x i64]} or a scalar.
static unsigned getLoweredSize(const ValueSpec &spec) {
  return spec.isMemRef ? 8 * (3 + 2 * spec.rank()) : spec.elemBytes();
}

static unsigned getLoweredAlign(const ValueSpec &spec) {
  return spec.isMemRef ? 8 : spec.elemBytes();
}

/// The lowered descriptor fields of an identity-layout memref at `data`.
static SmallVector<int64_t> makeDescriptorWords(const ValueSpec &spec,
                                                void *data) {
  llvm::SmallVector<int64_t> words;
  words.push_back(reinterpret_cast<int64_t>(data)); // allocated
  words.push_back(reinterpret_cast<int64_t>(data)); // aligned
  words.push_back(0);                               // offset
  words.append(spec.shape.begin(), spec.shape.end());
  llvm::SmallVector<int64_t> strides(spec.rank());
  int64_t stride = 1;
  for (int64_t d = spec.rank() - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= spec.shape[d];
  }
  words.append(strides.begin(), strides.end());
  return words;
}

PackedCall::PackedCall(ArrayRef<ValueSpec> argSpecs,
                       ArrayRef<ValueSpec> resultSpecs,
                       ArrayRef<void *> memRefData)
    : resultSpecs(resultSpecs) {
  for (auto [i, spec] : llvm::enumerate(argSpecs)) {
    if (spec.isMemRef)
      argWords.push_back(makeDescriptorWords(spec, memRefData[i]));
    else
      argWords.push_back({0}); // 8 bytes hold any scalar kind
  }
  for (auto &words : argWords)
    for (int64_t &w : words)
      packedArgs.push_back(&w);
  unsigned resultBytes = 0;
  for (const ValueSpec &spec : resultSpecs) {
    resultBytes = llvm::alignTo(resultBytes, getLoweredAlign(spec));
    resultOffsets.push_back(resultBytes);
    resultBytes += getLoweredSize(spec);
  }
  resultStorage.assign(llvm::divideCeil(resultBytes, 8) + 1, 0);
  if (!resultSpecs.empty())
    packedArgs.push_back(resultStorage.data());
}

void PackedCall::clearResults() {
  std::fill(resultStorage.begin(), resultStorage.end(), 0);
}

const char *PackedCall::getResult(unsigned i) const {
  return reinterpret_cast<const char *>(resultStorage.data()) +
         resultOffsets[i];
}

DescriptorView PackedCall::getMemRefResult(unsigned i) const {
  const int64_t *w = reinterpret_cast<const int64_t *>(getResult(i));
  int64_t rank = resultSpecs[i].rank();
  return {reinterpret_cast<void *>(w[0]), reinterpret_cast<const char *>(w[1]),
          w[2], w + 3, w + 3 + rank};
}

SmallVector<Checksum> PackedCall::checksumResults(
    bool keepValues,
    function_ref<const char *(unsigned, const DescriptorView &)> readMemRef)
    const {
  SmallVector<Checksum> checksums(resultSpecs.size());
  for (auto [i, spec] : llvm::enumerate(resultSpecs)) {
    if (!spec.isMemRef) {
      addElement(checksums[i], spec.kind, getResult(i), spec.elemBytes(),
                 keepValues);
      continue;
    }
    DescriptorView d = getMemRefResult(i);
    addMemRef(checksums[i], spec, readMemRef(i, d), /*offset=*/0, d.sizes,
              d.strides, keepValues);
  }
  return checksums;
}

SmallVector<void *> PackedCall::getResultAllocations() const {
  SmallVector<void *> allocations;
  for (auto [i, spec] : llvm::enumerate(resultSpecs)) {
    if (!spec.isMemRef)
      continue;
    void *allocated = getMemRefResult(i).allocated;
    if (!llvm::is_contained(allocations, allocated))
      allocations.push_back(allocated);
  }
  return allocations;
}
