//===- RunnerSupport.cpp - shared pieces of the step runners --------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Runner/RunnerSupport.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

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
  return kind == ElemKind::F32 || kind == ElemKind::I32 ? 4 : 8;
}

FailureOr<ValueSpec> remat::getValueSpec(Type type, std::string &reason) {
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
      reason = "dynamic shapes are not supported (inputs are built from "
               "static shapes)";
      return failure();
    }
    spec.isMemRef = true;
    spec.shape.assign(shaped.getShape().begin(), shaped.getShape().end());
    elementType = shaped.getElementType();
  }
  if (elementType.isF32())
    spec.kind = ElemKind::F32;
  else if (elementType.isF64())
    spec.kind = ElemKind::F64;
  else if (elementType.isSignlessInteger(32))
    spec.kind = ElemKind::I32;
  else if (elementType.isSignlessInteger(64))
    spec.kind = ElemKind::I64;
  else {
    reason = "element type must be f32, f64, i32 or i64";
    return failure();
  }
  return spec;
}

func::FuncOp remat::findEntry(ModuleOp module, StringRef name,
                              std::string &error) {
  if (!name.empty()) {
    auto entry = module.lookupSymbol<func::FuncOp>(name);
    if (!entry) {
      error = ("no func.func named '" + name + "'").str();
      return nullptr;
    }
    if (entry.isExternal()) {
      error = ("entry '" + name + "' has no body").str();
      return nullptr;
    }
    return entry;
  }
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() && func.isPublic() && func.getName() != "main")
      return func;
  error = "no public func.func with a body other than 'main' (use --entry)";
  return nullptr;
}

void remat::fillInput(const ValueSpec &spec, unsigned arg, void *data) {
  int64_t n = spec.isMemRef ? spec.numElements() : 1;
  for (int64_t i = 0; i < n; ++i) {
    double f = std::sin(0.1 * static_cast<double>(i) + arg) * 0.5;
    int64_t k = (i + arg) % 4;
    switch (spec.kind) {
    case ElemKind::F32:
      static_cast<float *>(data)[i] = static_cast<float>(f);
      break;
    case ElemKind::F64:
      static_cast<double *>(data)[i] = f;
      break;
    case ElemKind::I32:
      static_cast<int32_t *>(data)[i] = static_cast<int32_t>(k);
      break;
    case ElemKind::I64:
      static_cast<int64_t *>(data)[i] = k;
      break;
    }
  }
}

static double loadAsDouble(ElemKind kind, const char *p) {
  switch (kind) {
  case ElemKind::F32: {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case ElemKind::F64: {
    double v;
    std::memcpy(&v, p, 8);
    return v;
  }
  case ElemKind::I32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case ElemKind::I64: {
    int64_t v;
    std::memcpy(&v, p, 8);
    return static_cast<double>(v);
  }
  }
  return 0;
}

void remat::addElement(Checksum &c, ElemKind kind, const char *p,
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

void remat::addMemRef(Checksum &c, const ValueSpec &spec, const char *base,
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

unsigned remat::getLoweredSize(const ValueSpec &spec) {
  return spec.isMemRef ? 8 * (3 + 2 * spec.rank()) : spec.elemBytes();
}

unsigned remat::getLoweredAlign(const ValueSpec &spec) {
  return spec.isMemRef ? 8 : spec.elemBytes();
}

llvm::SmallVector<int64_t> remat::makeDescriptorWords(const ValueSpec &spec,
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

std::string remat::formatHex64(uint64_t v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format_hex(v, 18);
  return s;
}
