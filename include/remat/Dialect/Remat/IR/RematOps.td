//===- RematOps.td - remat dialect operations --------------*- tablegen -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_REMATOPS_TD
#define REMAT_DIALECT_REMAT_IR_REMATOPS_TD

include "remat/Dialect/Remat/IR/RematDialect.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Remat_Op<string mnemonic, list<Trait> traits = []>
    : Op<Remat_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// BarrierOp
//===----------------------------------------------------------------------===//

def Remat_BarrierOp : Remat_Op<"barrier", [AllTypesMatch<["input", "result"]>]> {
  let summary = "Identity that keeps a recomputation from being CSE'd away";
  let description = [{
    Returns its operand unchanged. `--remat-rematerialize` routes an operand
    of a recomputed op through a barrier when the clone would otherwise be
    structurally identical to an earlier computation of the same op, which
    `cse` would merge back, undoing the rematerialization.

    The op declares no memory effects interface on purpose: upstream passes
    then assume unknown effects, so `cse` never merges two barriers and dead
    code elimination never drops one. `--remat-strip-barriers` replaces every
    barrier by its operand; run it right before bufferization (the
    `--remat-lower-to-cpu` pipeline does). Cost-model passes treat a barrier
    as a view of its operand (0 bytes).

    ```mlir
    %b = remat.barrier %x : tensor<32x32xf32>
    %r = linalg.generic ... ins(%b : tensor<32x32xf32>) ...
    ```
  }];
  let arguments = (ins AnyType:$input);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

#endif // REMAT_DIALECT_REMAT_IR_REMATOPS_TD
