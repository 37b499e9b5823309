//===- Inputs.cpp - the inputs the step runners build ---------------------===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#include "remat/Runner/Inputs.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Runner/RunnerError.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <string>
#include <utility>

using namespace mlir;
using namespace remat;

/// Reads how argument `arg` of `entry` is drawn (kBernoulliAttrName,
/// RematDialect::kHighAttrName) into `spec`; sets `reason` and fails on a
/// malformed or misplaced `remat.bernoulli` (the dialect verifies
/// `remat.high` when the input is parsed).
static LogicalResult readDrawAttributes(func::FuncOp entry, unsigned arg,
                                        ValueSpec &spec, std::string &reason) {
  bool isFloat = spec.kind == ElemKind::F32 || spec.kind == ElemKind::F64 ||
                 spec.kind == ElemKind::BF16;
  if (Attribute attr = entry.getArgAttr(arg, kBernoulliAttrName)) {
    auto p = dyn_cast<FloatAttr>(attr);
    if (!p || !isFloat || !(p.getValueAsDouble() >= 0.0) ||
        p.getValueAsDouble() > 1.0) {
      reason = ("'" + kBernoulliAttrName +
                "' must be a float probability in [0, 1] on a float argument")
                   .str();
      return failure();
    }
    spec.bernoulli = p.getValueAsDouble();
  }
  if (auto high = entry.getArgAttrOfType<IntegerAttr>(
          arg, RematDialect::kHighAttrName))
    spec.high = high.getInt();
  return success();
}

llvm::Error remat::getSignatureSpecs(StringRef tool, func::FuncOp entry,
                                     SmallVectorImpl<ValueSpec> &argSpecs,
                                     SmallVectorImpl<ValueSpec> &resultSpecs) {
  FunctionType funcType = entry.getFunctionType();
  DataLayout layout = DataLayout::closest(entry);
  for (auto [isResult, types] : {std::make_pair(false, funcType.getInputs()),
                                 std::make_pair(true, funcType.getResults())}) {
    for (auto [i, type] : llvm::enumerate(types)) {
      std::string reason;
      FailureOr<ValueSpec> spec = getValueSpec(type, layout, tool, reason);
      if (succeeded(spec) && !isResult &&
          failed(readDrawAttributes(entry, i, *spec, reason)))
        return makeRunnerError("argument #" + Twine(i) + " of '" +
                               entry.getName() + "': " + reason);
      if (failed(spec)) {
        std::string typeString;
        llvm::raw_string_ostream os(typeString);
        type.print(os);
        return makeRunnerError("unsupported type " + typeString + " of " +
                               (isResult ? "result" : "argument") + " #" +
                               Twine(i) + " of '" + entry.getName() +
                               "': " + reason);
      }
      (isResult ? resultSpecs : argSpecs).push_back(*spec);
    }
  }
  return llvm::Error::success();
}

/// The bfloat16 nearest to `f` (ties to even), as PyTorch rounds a float.
static uint16_t toBFloat16(float f) {
  llvm::APFloat value(f);
  bool lost = false;
  value.convert(llvm::APFloat::BFloat(), llvm::APFloat::rmNearestTiesToEven,
                &lost);
  return static_cast<uint16_t>(value.bitcastToAPInt().getZExtValue());
}

uint64_t remat::randomBits(unsigned arg, int64_t i) {
  uint64_t z = (static_cast<uint64_t>(arg) << 32) + static_cast<uint64_t>(i) +
               0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// The range of integer inputs without `remat.high` (docs/Running.md).
static constexpr int64_t kDefaultInputBound = 4;

int64_t remat::getInputBound(const ValueSpec &spec) {
  return spec.high.value_or(kDefaultInputBound);
}

void remat::fillInput(const ValueSpec &spec, unsigned arg, void *data) {
  int64_t n = spec.isMemRef ? spec.numElements() : 1;
  for (int64_t i = 0; i < n; ++i) {
    double f = std::sin(0.1 * static_cast<double>(i) + arg) * 0.5;
    int64_t k = (i + arg) % kDefaultInputBound;
    if (spec.bernoulli)
      f = std::ldexp(static_cast<double>(randomBits(arg, i) >> 11), -53) <
                  *spec.bernoulli
              ? 1.0
              : 0.0;
    if (spec.high)
      k = static_cast<int64_t>(randomBits(arg, i) %
                               static_cast<uint64_t>(*spec.high));
    switch (spec.kind) {
    case ElemKind::BF16:
      static_cast<uint16_t *>(data)[i] = toBFloat16(static_cast<float>(f));
      break;
    case ElemKind::F32:
      static_cast<float *>(data)[i] = static_cast<float>(f);
      break;
    case ElemKind::F64:
      static_cast<double *>(data)[i] = f;
      break;
    case ElemKind::I1:
      static_cast<uint8_t *>(data)[i] = static_cast<uint8_t>(k & 1);
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
