//===- Passes.h - remat-opt conversion passes -------------------*- C++ -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Passes that prepare a bufferized training step for the GPU, and the public
// functions they are thin shells over.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_CONVERSION_PASSES_H
#define REMAT_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace remat {

/// Makes every buffer of `func` device memory: `memref.alloc`/`dealloc`
/// become `gpu.alloc`/`gpu.dealloc`, `memref.copy` becomes `linalg.copy`,
/// and read globals are uploaded into device buffers. Memref arguments and
/// results are taken to be device buffers. Fails, after emitting a located
/// error for each offending op and leaving `func` unchanged, when a buffer
/// is accessed on the host or cannot be placed on the device.
mlir::LogicalResult moveHostAllocationsToGPU(mlir::func::FuncOp func);

/// Wraps every linalg op on memrefs of `func` that has no parallel iterator
/// and is not already inside an `scf.parallel` or `gpu.launch` in a
/// one-iteration `scf.parallel`. Returns the number of ops wrapped.
unsigned wrapSerialLinalgOps(mlir::func::FuncOp func);

#define GEN_PASS_DECL
#include "remat/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "remat/Conversion/Passes.h.inc"

} // namespace remat

#endif // REMAT_CONVERSION_PASSES_H
