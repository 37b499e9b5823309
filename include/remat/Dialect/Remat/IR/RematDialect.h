//===- RematDialect.h - remat dialect ---------------------------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// The remat dialect: cost, phase and pin attributes for training IR, and the
// operations rematerialization inserts.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_REMATDIALECT_H
#define REMAT_DIALECT_REMAT_IR_REMATDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "remat/Dialect/Remat/IR/RematDialect.h.inc"
#include "remat/Dialect/Remat/IR/RematEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "remat/Dialect/Remat/IR/RematAttributes.h.inc"

#define GET_OP_CLASSES
#include "remat/Dialect/Remat/IR/RematOps.h.inc"

namespace remat {
/// Checks the offloads `triples` of `op` (`remat.offloads`: triples (a, w,
/// p) of schedule steps: offloaded after step a, its device buffer waited
/// for right before step w, prefetched right before step p; a < w, a < p,
/// each triple after the last) against the steps that compute it
/// (`remat.steps`, empty when none): `op` has one ranked tensor result, is
/// computed at or before each a and never between a and p (an offloaded
/// value is prefetched, not recomputed). Emits a located error.
mlir::LogicalResult verifyOffloadSteps(mlir::Operation *op,
                                       llvm::ArrayRef<int64_t> triples,
                                       llvm::ArrayRef<int64_t> steps);

/// The memref memory space of host memory, where `remat.offload` copies go
/// once bufferized (docs/Offload.md): the integer 1.
mlir::Attribute getHostMemorySpace(mlir::MLIRContext *context);
/// Whether `memorySpace` (of a memref type; null for the default) is host
/// memory.
bool isHostMemorySpace(mlir::Attribute memorySpace);
} // namespace remat

#endif // REMAT_DIALECT_REMAT_IR_REMATDIALECT_H
