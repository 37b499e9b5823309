//===- Inputs.h - the inputs the step runners build -------------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The arguments every runner feeds the entry, the same on the CPU and the GPU
// so that their checksums compare (docs/Running.md, remat-run): the entry's
// signature as ValueSpecs (CallABI.h), with how each argument is drawn
// (`remat.bernoulli`, `remat.high`), and the documented deterministic values
// of each element. A data-parallel rank feeds its block of the same values
// (fillInputBlock, Ranks.h).
//
//   SmallVector<ValueSpec> args, results;
//   if (llvm::Error error = getSignatureSpecs(tool, entry, args, results))
//     return error;
//   fillInput(args[0], /*arg=*/0, buffer);
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_RUNNER_INPUTS_H
#define REMAT_RUNNER_INPUTS_H

#include "remat/Runner/CallABI.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace remat {

/// The argument attributes that say how the runners draw an argument's
/// values: `remat.bernoulli = 0.9 : f64` on a float argument (a dropout
/// mask: 1 with probability 0.9, else 0), and the remat dialect's
/// `remat.high = 512 : i64` on an integer one (values in [0, 512): token
/// ids, labels; RematDialect::kHighAttrName, verified by the dialect).
inline constexpr llvm::StringLiteral kBernoulliAttrName = "remat.bernoulli";

/// The ValueSpecs of the arguments and results of `entry`, the arguments'
/// with how they are drawn (kBernoulliAttrName, remat.high). Fails naming
/// the first type it cannot handle or the first malformed or misplaced draw
/// attribute; `tool` names the runner in the reasons.
llvm::Error getSignatureSpecs(llvm::StringRef tool, mlir::func::FuncOp entry,
                              llvm::SmallVectorImpl<ValueSpec> &argSpecs,
                              llvm::SmallVectorImpl<ValueSpec> &resultSpecs);

/// The integers an integer argument described by `spec` is drawn from (see
/// fillInput) lie in [0, getInputBound(spec)): `spec.high`, else 4.
int64_t getInputBound(const ValueSpec &spec);

/// Element `i` of the documented pseudo-random stream of argument `arg`:
/// the first output of SplitMix64 seeded with `arg * 2^32 + i`.
uint64_t randomBits(unsigned arg, int64_t i);

/// The documented deterministic input: element `i` (row-major) of argument
/// `arg` is sin(0.1 * i + arg) * 0.5 for floats, (i + arg) mod 4 for
/// integers and (i + arg) mod 2 for booleans (i1, one byte each); with
/// `spec.bernoulli = p`, 1 when randomBits(arg, i) / 2^64 < p (its top 53
/// bits, as a double in [0, 1)) and 0 otherwise; with `spec.high = h`,
/// randomBits(arg, i) mod h. Scalars are element 0. Writes
/// `spec.numElements()` elements (one for scalars) to `data`.
void fillInput(const ValueSpec &spec, unsigned arg, void *data);

} // namespace remat

#endif // REMAT_RUNNER_INPUTS_H
