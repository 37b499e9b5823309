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

//===----------------------------------------------------------------------===//
// OffloadOp, PrefetchOp
//===----------------------------------------------------------------------===//

def Remat_OffloadOp : Remat_Op<"offload",
    [AllTypesMatch<["input", "result"]>]> {
  let summary = "Copies a tensor to host memory";
  let description = [{
    Starts copying its operand to host memory (docs/Offload.md). The result
    is the host copy: it owns no device memory, and the only thing that may
    read it is one `remat.prefetch` later in the same block, which brings a
    device copy back. The operand's device buffer lives on until its last
    use: the `remat.wait` that names it, where the planner's link model has
    the copy done (on a GPU the copy runs on a stream of its own meanwhile).
    `--remat-rematerialize` inserts the three ops where the plan offloads a
    value; the data is copied bit for bit, so results do not change.

    Like `remat.barrier`, the op declares no memory effects: upstream passes
    then never merge, move or drop it.

    ```mlir
    %h = remat.offload %act : tensor<64x128xf32>
    ...
    remat.wait %act : tensor<64x128xf32>
    ...
    %back = remat.prefetch %h : tensor<64x128xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Remat_PrefetchOp : Remat_Op<"prefetch",
    [AllTypesMatch<["host", "result"]>]> {
  let summary = "Copies an offloaded tensor back to device memory";
  let description = [{
    Copies the host copy a `remat.offload` made back into a new device
    buffer, which its result owns; the host copy is freed. Every use of the
    value the plan offloaded after this point reads the result instead.
  }];
  let arguments = (ins AnyRankedTensor:$host);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$host attr-dict `:` type($host)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// WaitOp
//===----------------------------------------------------------------------===//

def Remat_WaitOp : Remat_Op<"wait",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Marks where a value's copy to the host is done";
  let description = [{
    Names a value that one `remat.offload` earlier in the same block copies
    to host memory: the copy is done here, so the value's device buffer,
    which this op keeps live, may be reused after it. `--remat-rematerialize`
    places it where the plan's simulator, with the copy's time on the link,
    stops counting the device bytes (docs/Offload.md), so that a static
    arena places no other buffer on them while the copy may still read
    them. It reads nothing at run time: the CPU and GPU lowerings erase it
    once buffers are freed and placed (on a GPU the compute stream joins the
    copy before the first op that touches its bytes).

    It declares a write to a resource of its own, so that upstream passes
    never drop, merge or move it. One-shot bufferization makes it the same
    op on the operand's buffer.

    ```mlir
    %h = remat.offload %act : tensor<64x128xf32>
    ...
    remat.wait %act : tensor<64x128xf32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[AnyRankedTensor, AnyMemRef]>:$input);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

#endif // REMAT_DIALECT_REMAT_IR_REMATOPS_TD
