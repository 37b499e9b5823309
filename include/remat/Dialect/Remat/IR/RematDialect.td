//===- RematDialect.td - remat dialect definition ----------*- tablegen -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_REMATDIALECT_TD
#define REMAT_DIALECT_REMAT_IR_REMATDIALECT_TD

include "mlir/IR/OpBase.td"

def Remat_Dialect : Dialect {
  let name = "remat";
  let cppNamespace = "::remat";
  let summary = "Costs, phases and rematerialization plans for training IR";
  let description = [{
    The `remat` dialect records what a rematerialization (activation
    checkpointing) planner needs to know about a training step written in
    linalg-on-tensors, and what it decided:

    * `#remat.cost` — memory (bytes of each result) and compute (FLOPs, and
      optionally a profiled time) of a tensor-producing op, attached as the
      discardable attribute `remat.cost`;
    * `#remat.phase` — whether an op belongs to the forward or the backward
      pass, attached as `remat.phase`;
    * `#remat.keep` — a user pin: `always` keep (never recompute) or `never`
      keep (always recompute) the results of an op, attached as `remat.keep`,
      like JAX's `checkpoint_name` or PyTorch's `MUST_SAVE` policies.

    * `remat.high = N : i64` on an integer function argument (token ids,
      class labels) — the runners draw its values from [0, N), so N is
      positive and [0, N) fits the argument's element type.

    The dialect verifies every `remat.*` attribute it finds on an operation,
    and `remat.high` on function arguments: a malformed annotation is an
    error at the op's location, never silently ignored.

    Example:

    ```mlir
    %0 = linalg.matmul {remat.cost = #remat.cost<bytes = [4096], flops = 131072>,
                        remat.phase = #remat.phase<forward>}
           ins(%a, %b : tensor<32x64xf32>, tensor<64x32xf32>)
           outs(%init : tensor<32x32xf32>) -> tensor<32x32xf32>
    ```
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect"];
  let extraClassDeclaration = [{
    /// Attaches how one-shot bufferization lowers the copies to host memory
    /// (RematDialect.cpp).
    void registerBufferizationModels();
    /// Names of the discardable attributes this dialect verifies.
    static constexpr ::llvm::StringLiteral kCostAttrName = "remat.cost";
    static constexpr ::llvm::StringLiteral kPhaseAttrName = "remat.phase";
    static constexpr ::llvm::StringLiteral kKeepAttrName = "remat.keep";
    /// Rematerialization plans (see docs/Rematerialization.md).
    static constexpr ::llvm::StringLiteral kPlanAttrName = "remat.plan";
    static constexpr ::llvm::StringLiteral kStepsAttrName = "remat.steps";
    static constexpr ::llvm::StringLiteral kRecomputedAttrName =
        "remat.recomputed";
    /// Beside `remat.steps`: triples (a, w, p) of steps, the op's value
    /// offloaded after step a, waited for before step w and prefetched
    /// before step p (docs/Offload.md).
    static constexpr ::llvm::StringLiteral kOffloadsAttrName =
        "remat.offloads";
    /// On a function: the size (i64, positive) its costs and plan assume for
    /// every dynamic dimension (remat-annotate-costs{dynamic-size-hint}).
    static constexpr ::llvm::StringLiteral kDynamicSizeHintAttrName =
        "remat.dynamic_size_hint";
    /// On a function planned in max-batch mode: the batch (i64, positive,
    /// samples) the plan was made for, the largest that fits the budget.
    static constexpr ::llvm::StringLiteral kBatchAttrName = "remat.batch";
    /// On a bufferized function: the bytes (i64, non-negative) of the arena
    /// remat-plan-arena placed its buffers in (docs/Arena.md).
    static constexpr ::llvm::StringLiteral kArenaBytesAttrName =
        "remat.arena_bytes";
    /// On a function lowered for the CPU with host copies
    /// (remat-lower-host-memory): array<i64: the most bytes of host copies
    /// live at once, the copies between host and device memory, the bytes
    /// they move>.
    static constexpr ::llvm::StringLiteral kHostCopiesAttrName =
        "remat.host_copies";
    /// On a `memref.alloc` of a step lowered for the GPU (unit): page-locked
    /// host memory that holds host copies (remat-host-alloc-to-gpu), which
    /// remat-overlap-host-copies copies to and from on streams of their own.
    static constexpr ::llvm::StringLiteral kPinnedHostAttrName =
        "remat.pinned_host";
    /// On a function being lowered: the arena (i64, non-negative, bytes,
    /// arguments included) its remat.plan promised, which
    /// remat-strip-barriers{strip-attributes} keeps from the plan and
    /// remat-plan-arena searches on to meet, then replaces with
    /// remat.arena_bytes (docs/Arena.md).
    static constexpr ::llvm::StringLiteral kPlannedArenaAttrName =
        "remat.planned_arena";
    /// On a function: the device (a name of Analysis/Devices.h) its ops'
    /// `roofline_ps` were predicted for (remat-annotate-costs{device}).
    static constexpr ::llvm::StringLiteral kCostDeviceAttrName =
        "remat.cost_device";
    /// On an integer function argument: the runners draw its values from
    /// [0, high) (i64, positive, [0, high) fits the element type).
    static constexpr ::llvm::StringLiteral kHighAttrName = "remat.high";

  private:
    void registerAttributes();
  public:
  }];
}

#endif // REMAT_DIALECT_REMAT_IR_REMATDIALECT_TD
