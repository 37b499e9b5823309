//===- Storage.h - which values own storage, and how many bytes -*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The storage model every part of remat-opt shares: which ops' results own a
// buffer once bufferized, which are views of another value's buffer, and how
// many bytes a value of a type takes. The cost model (`remat.cost` bytes),
// the memory analysis (its fallback without costs), the graph builder (its
// views) and the runners (the sizes they allocate) ask these functions and
// nothing else; docs/CostModel.md ("Bytes") gives the rationale of each rule.
//
//   * bytes of a value = elements x element bytes; the element bytes are
//     what the LLVM lowering allocates per element (LLVM's alloc size): the
//     data layout's size of an integer, float, `index` or fixed-size vector
//     rounded up to its ABI alignment (by default `i24` 4, `f80` 16,
//     `vector<3xf32>` 16, `index` 8), `complex<T>` twice T; other element
//     types are unknown;
//   * a size that does not fit in int64_t saturates at kSaturatedBytes;
//   * views (isViewOp) alias the buffer of their source and own nothing;
//     neither do uninitialized allocations (their buffer is the writer's),
//     constants (read-only global data) nor host copies (`remat.offload`:
//     host memory, not the device's).
//
// Usage:
//
//   DataLayout layout = DataLayout::closest(op);
//   std::optional<int64_t> bytes = getStorageBytes(type, layout);
//   if (!bytes || isSaturated(*bytes))
//     ... // unknown size, or too large to represent
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_ANALYSIS_STORAGE_H
#define REMAT_ANALYSIS_STORAGE_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Types.h"
#include "mlir/IR/Value.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

#include <cstdint>
#include <limits>
#include <optional>

namespace remat {

/// What getStorageBytes returns for a size that does not fit in int64_t.
inline constexpr int64_t kSaturatedBytes = std::numeric_limits<int64_t>::max();

/// Whether `bytes` is a saturated size (kSaturatedBytes): too large to
/// represent, not a real count.
inline bool isSaturated(int64_t bytes) { return bytes == kSaturatedBytes; }

/// The bytes one element of `type` occupies once bufferized and lowered
/// under `layout`, i.e. the stride between elements the lowering allocates:
/// the layout's size of an integer, float, `index` or fixed-size `vector`
/// rounded up to its ABI alignment; twice the part of a `complex`.
/// std::nullopt for any other type (the model does not guess sizes). This is
/// the only home of that number: the cost model, the memory analysis, the
/// arena and the runners all ask it.
std::optional<int64_t> getElementStorageBytes(mlir::Type type,
                                              const mlir::DataLayout &layout);

/// The bytes a value of `type` occupies once bufferized under `layout`:
/// elements times getElementStorageBytes for a ranked tensor, memref or
/// vector (every dynamic dimension taken as `dynamicSize`), the element bytes
/// of any other type. std::nullopt for unranked types, dynamic dimensions
/// without a size and element types of unknown size; kSaturatedBytes when the
/// size does not fit in int64_t.
std::optional<int64_t>
getStorageBytes(mlir::Type type, const mlir::DataLayout &layout,
                std::optional<int64_t> dynamicSize = std::nullopt);

/// getStorageBytes under the data layout in scope at `scope`.
std::optional<int64_t>
getStorageBytes(mlir::Type type, mlir::Operation *scope,
                std::optional<int64_t> dynamicSize = std::nullopt);

/// Whether `op` is a view: its results alias the buffer of one operand (its
/// view source, getViewSource) once bufferized, so they own no storage. The
/// tensor views are tensor.expand_shape, tensor.collapse_shape,
/// tensor.extract_slice, tensor.cast, tensor.reshape, tensor.bitcast and
/// bufferization.to_tensor; memref views are the ops implementing
/// ViewLikeOpInterface.
bool isViewOp(mlir::Operation *op);

/// The value whose buffer the results of the view `op` alias (operand 0 of a
/// tensor view, the view source of a ViewLikeOpInterface op); null when `op`
/// is not a view.
mlir::Value getViewSource(mlir::Operation *op);

/// Whether the tensor results of `op` own no storage: views; uninitialized
/// allocations (tensor.empty, bufferization.alloc_tensor without a copy),
/// whose buffer is accounted to the destination-style op that writes it; and
/// constants (ConstantLike), which are read-only global data.
bool ownsNoStorage(mlir::Operation *op);

/// The value whose buffer `result` shares when it owns none: the view source
/// of a view, or the destination a destination-style op writes into in
/// place. Null when there is none.
mlir::Value getStorageSource(mlir::OpResult result);

} // namespace remat

#endif // REMAT_ANALYSIS_STORAGE_H
