//===- Passes.td - remat-opt passes ------------------------*- tablegen -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TRANSFORMS_PASSES_TD
#define REMAT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def RematAnnotateCosts : Pass<"remat-annotate-costs", "::mlir::func::FuncOp"> {
  let summary = "Attach #remat.cost (bytes per result, FLOPs) to tensor ops";
  let description = [{
    Computes, for every tensor-producing operation of a function, the bytes
    each result occupies once bufferized and the FLOPs the operation performs,
    and records them as a `remat.cost` attribute. Views (`tensor.expand_shape`,
    `tensor.collapse_shape`, `tensor.extract_slice`) own no storage and get
    `bytes = [0]`. A profile file can override the compute cost with measured
    times.

    Before:
    ```mlir
    %0 = linalg.matmul ins(%a, %b : tensor<32x64xf32>, tensor<64x32xf32>)
                       outs(%i : tensor<32x32xf32>) -> tensor<32x32xf32>
    ```
    After:
    ```mlir
    %0 = linalg.matmul {remat.cost = #remat.cost<bytes = [4096], flops = 131072>}
           ins(%a, %b : tensor<32x64xf32>, tensor<64x32xf32>)
           outs(%i : tensor<32x32xf32>) -> tensor<32x32xf32>
    ```
  }];
  let dependentDialects = ["::remat::RematDialect"];
}

def RematInferPhases : Pass<"remat-infer-phases", "::mlir::func::FuncOp"> {
  let summary = "Mark each op of a training step as forward or backward";
  let description = [{
    In a training-step function (forward and backward in one `func.func` on
    tensors), the forward pass is every op that the forward outputs depend
    on — by default the first returned value, the loss — and the backward
    pass is the rest. Records the result as `remat.phase` on each op;
    explicit `remat.phase` marks are kept and win over inference.
  }];
  let dependentDialects = ["::remat::RematDialect"];
}

#endif // REMAT_TRANSFORMS_PASSES_TD
