//===- Remat.td - remat dialect umbrella -------------------*- tablegen -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_REMAT_TD
#define REMAT_DIALECT_REMAT_IR_REMAT_TD

include "remat/Dialect/Remat/IR/RematDialect.td"
include "remat/Dialect/Remat/IR/RematAttributes.td"
include "remat/Dialect/Remat/IR/RematOps.td"

#endif // REMAT_DIALECT_REMAT_IR_REMAT_TD
