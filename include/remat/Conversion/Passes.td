//===- Passes.td - remat-opt conversion passes -------------*- tablegen -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Passes that move a bufferized training step onto a GPU. They run inside
// `--remat-lower-to-nvvm` (see include/remat/Pipelines/Pipelines.h) between
// bufferization and the upstream parallel-loop-to-GPU passes.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_CONVERSION_PASSES_TD
#define REMAT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def RematHostAllocToGPU : Pass<"remat-host-alloc-to-gpu", "::mlir::func::FuncOp"> {
  let summary = "Place the buffers of a bufferized function in device memory";
  let description = [{
    After bufferization every buffer of a training step is a host
    `memref.alloc` released by a `memref.dealloc` at the point the
    rematerialization plan (through buffer deallocation) lets the value die.
    No upstream pass moves such buffers to the GPU. This pass makes every
    buffer of the function device memory, so that the plan's frees become
    device frees and the device peak follows the plan:

    - `memref.alloc` becomes `gpu.alloc` (same type, same dynamic sizes and
      symbol operands; the `alignment` attribute is dropped, device
      allocations are at least 256-byte aligned);
    - `memref.dealloc` becomes `gpu.dealloc`;
    - `memref.copy` becomes `linalg.copy`, so that it runs as a kernel on any
      layout instead of a host `memcpy` on device pointers;
    - `memref.get_global` (bufferized constants) read by the function is
      uploaded once into a `gpu.alloc` buffer with `gpu.memcpy` and released
      with `gpu.dealloc` before each `func.return`.

    The new ops are synchronous (no async tokens); `gpu-async-region` turns
    them and the kernel launches into one stream-ordered chain later.

    Calling convention: memref arguments and results of the function are
    device buffers. The caller (our `remat-gpu-run`) allocates the arguments
    on the device and uploads them, downloads the results, and releases every
    result buffer that is not an argument.

    Every memory access left on the host after this pass would dereference
    a device pointer, so the pass rejects, with a located error, any host
    read or write of a memref (`memref.load`, `memref.store`, atomics, vector
    transfers outside linalg ops), stack buffers (`memref.alloca`),
    `memref.realloc`, and bufferization ops that still hold buffers
    (run `convert-bufferization-to-memref` first).

    Before:
    ```mlir
    %a = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
    linalg.fill ins(%cst : f32) outs(%a : memref<16xf32>)
    memref.copy %a, %out : memref<16xf32> to memref<16xf32>
    memref.dealloc %a : memref<16xf32>
    ```
    After:
    ```mlir
    %a = gpu.alloc () : memref<16xf32>
    linalg.fill ins(%cst : f32) outs(%a : memref<16xf32>)
    linalg.copy ins(%a : memref<16xf32>) outs(%out : memref<16xf32>)
    gpu.dealloc %a : memref<16xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::linalg::LinalgDialect",
  ];
}

def RematWrapSerialLinalg : Pass<"remat-wrap-serial-linalg", "::mlir::func::FuncOp"> {
  let summary = "Give linalg ops without parallel loops a one-iteration scf.parallel";
  let description = [{
    `convert-linalg-to-parallel-loops` emits `scf.parallel` only for the
    parallel iterators of a linalg op. An op with none (a full reduction such
    as a loss, or an op on rank-0 memrefs) becomes plain `scf.for` loops or
    bare loads and stores that `convert-parallel-loops-to-gpu` leaves on the
    host, where they would dereference device pointers. This pass wraps each
    such linalg op on memrefs, outside any `scf.parallel` or `gpu.launch`, in
    a one-iteration `scf.parallel`, so that it runs as a one-thread kernel.

    Before:
    ```mlir
    linalg.reduce ins(%x : memref<64x16xf32>) outs(%s : memref<f32>) dimensions = [0, 1] (...)
    ```
    After:
    ```mlir
    scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
      linalg.reduce ins(%x : memref<64x16xf32>) outs(%s : memref<f32>) dimensions = [0, 1] (...)
      scf.reduce
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect",
  ];
}

#endif // REMAT_CONVERSION_PASSES_TD
