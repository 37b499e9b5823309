//===- IndexBounds.h - integer inputs that index tensors --------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// A runner draws each integer argument from [0, bound) (fillInput: its
// `remat.high`, else 4). When the step uses those values as indices (token
// ids reading an embedding table, gather and index positions), a bound larger
// than the dimension they index makes the compiled step read out of bounds:
// garbage, NaN or a crash with exit 0. checkIndexBounds refuses such a step
// before it runs.
//
// It follows each integer argument through the ops that keep its values
// (reshapes, casts, tensor.extract of an element, linalg payload arguments
// and yields, the negative-index wrap `select(x < 0, x + n, x)`) to the
// index operands of tensor.extract, tensor.insert and memref.load, and
// compares the bound with the static size of the indexed dimension. Values
// compared with an index (a one-hot or a class label in a loss) read nothing
// out of bounds and are not checked; indices computed by other arithmetic
// are not followed.
//
//   if (llvm::Error error = checkIndexBounds(entry, argSpecs))
//     return error;
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_RUNNER_INDEXBOUNDS_H
#define REMAT_RUNNER_INDEXBOUNDS_H

#include "remat/Runner/CallABI.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

namespace remat {

/// Checks that no integer argument of `entry`, drawn as `argSpecs` say
/// (getInputBound), indexes a dimension smaller than its bound. Emits a
/// located error at each such index, with a note at the argument, and
/// returns a RunnerError when there is one.
llvm::Error checkIndexBounds(mlir::func::FuncOp entry,
                             llvm::ArrayRef<ValueSpec> argSpecs);

} // namespace remat

#endif // REMAT_RUNNER_INDEXBOUNDS_H
