//===- Passes.td - remat-opt conversion passes -------------*- tablegen -*-===//
//
// Part of the remat-opt project.
//
//===----------------------------------------------------------------------===//
//
// Passes that move a bufferized training step onto a GPU. They run inside
// `--remat-lower-to-nvvm` (see include/remat/Pipelines/Pipelines.h) between
// bufferization and the upstream parallel-loop-to-GPU passes. And the pass
// that readies the `mpi` ops of a data-parallel step for the CPU lowering
// (`--remat-lower-to-cpu`, docs/Distributed.md).
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
      with `gpu.dealloc` before each `func.return`;
    - host copies (memory space 1, what `remat.offload` bufferizes to,
      docs/Offload.md) stay in host memory, in the default memory space,
      registered with the driver (`gpu.host_register`, page-locked): in a
      function of one block whose host copies have static shapes, all of
      them are views of one host arena (`remat.pinned_host`, offsets from
      the arena planner by their lifetimes) allocated and registered at the
      entry and released before each return, so that no host call is left
      between the kernels; otherwise each is registered until its free
      (`gpu.host_unregister` before the `memref.dealloc`). The copies to and
      from them become `gpu.memcpy`; what they cost is recorded as
      `remat.host_copies` (as remat-lower-host-memory does; the host peak is
      the arena's bytes when there is one), and the `remat.wait` ops, which
      only kept the offloaded buffers live until their copies are done, are
      erased.

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

def RematOverlapHostCopies
    : Pass<"remat-overlap-host-copies", "::mlir::func::FuncOp"> {
  let summary = "Run the copies to and from pinned host memory on streams of their own";
  let description = [{
    Runs after `gpu-async-region`, which orders every kernel, free and copy
    of a step on one stream. The planner's overlap model (docs/Offload.md)
    has offloads and prefetches run on a copy stream while the kernels go
    on. This pass gives each `gpu.memcpy` to or from page-locked host memory
    (a buffer remat-host-alloc-to-gpu marked `remat.pinned_host`) a stream
    of its own:

    - it forks from the compute stream where the copy was, and from the
      copy before it, with `gpu.wait async` (events recorded on both), so
      the copies keep their program order, as the planner's copy queue
      does, and a host buffer is never written before its last copy back;
    - the compute stream waits for it (`gpu.wait async` on both) right
      before the first later op that touches bytes the copy reads or
      writes: within the arena, a `memref.view` at a constant shift is
      known to the byte; anything else counts as all of its allocation, and
      function arguments as possibly one another;
    - a `gpu.dealloc` of what one copy touches goes on that copy's stream
      instead, so that the compute stream need not wait;
    - an op that is not stream-ordered (a host call) and touches those
      bytes, or has regions, waits on the host (`gpu.wait`) first;
    - before the return every stream it created or left is synchronized
      and destroyed.

    Functions of several blocks are left unchanged.

    Before (from gpu-async-region):
    ```mlir
    %t1 = gpu.launch_func async [%t0] @k::@k ... args(%a : memref<16xf32>)
    %t2 = gpu.memcpy async [%t1] %host, %a : memref<16xf32>, memref<16xf32>
    %t3 = gpu.launch_func async [%t2] @k::@k ... args(%b : memref<16xf32>)
    ```
    After:
    ```mlir
    %t1 = gpu.launch_func async [%t0] @k::@k ... args(%a : memref<16xf32>)
    %s = gpu.wait async [%t1]
    %t2 = gpu.memcpy async [%s] %host, %a : memref<16xf32>, memref<16xf32>
    %t3 = gpu.launch_func async [%t1] @k::@k ... args(%b : memref<16xf32>)
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
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

def RematLowerHostMemory
    : Pass<"remat-lower-host-memory", "::mlir::func::FuncOp"> {
  let summary = "Host copies of a CPU step into plain buffers, counted";
  let description = [{
    After bufferization, the copies `remat.offload` makes live in host
    memory (memref memory space 1, docs/Offload.md) and the arena leaves
    them out. On a CPU, host and device memory are one; upstream's LLVM
    lowering does not free a buffer outside the default memory space. This
    pass records what the copies cost on the function, as
    `remat.host_copies = array<i64: host peak bytes, copies, bytes moved>`
    (the most bytes of host buffers live at once in program order, the
    copies between the two memories and the bytes they move; the runners
    report them), erases the `remat.wait` ops (their buffers are freed and
    placed by now; copies are synchronous here), then moves every host
    buffer to the default memory space. A host buffer of dynamic size is an
    error at its allocation: its bytes are not known.
  }];
  let dependentDialects = ["::remat::RematDialect"];
}

def RematMathToLibm : Pass<"remat-math-to-libm", "::mlir::ModuleOp"> {
  let summary = "Call the C library for the math ops LLVM has no intrinsic for";
  let description = [{
    `convert-to-llvm` lowers most `math` ops to LLVM intrinsics, but not
    `math.erf` and `math.erfc` (the exact GELU of a transformer). This pass
    turns those, and only those, into calls of the C library's `erff`/`erf`
    and `erfcf`/`erfc` (upstream's `convert-math-to-libm` patterns; that
    pass would also call functions such as `rsqrtf` that the C library does
    not have). The GPU lowering keeps `math.erf` for libdevice.

    Before:
    ```mlir
    %y = math.erf %x : f32
    ```
    After:
    ```mlir
    func.func private @erff(f32) -> f32 attributes {llvm.readnone}
    ...
    %y = call @erff(%x) : (f32) -> f32
    ```
  }];
  let dependentDialects = [
    "::mlir::func::FuncDialect",
  ];
}

def RematLowerGatherScatter : Pass<"remat-lower-gather-scatter", "::mlir::ModuleOp"> {
  let summary = "Lower shard.all_gather and shard.reduce_scatter to MPI calls";
  let description = [{
    Upstream `--convert-shard-to-mpi` (MLIR 22) lowers `shard.all_reduce`
    but no `shard.all_gather` or `shard.reduce_scatter`, and the `mpi`
    dialect has no op for either. The per-rank step of a fully sharded
    data-parallel run (docs/Distributed.md) needs both, so this pass, run
    before convert-shard-to-mpi, turns each into a call of a C function of
    the runners (`MPI_Allgather`, `MPI_Reduce_scatter_block` on
    `MPI_COMM_WORLD`, lib/Runner/Collectives.cpp) on flat buffers:

    - the operand is collapsed to 1-D and taken as a buffer
      (`bufferization.to_buffer`), the result is one `memref.alloc` of its
      bytes, both cast to `memref<?xf32>` for
      `@remat_mpi_all_gather_f32` / `@remat_mpi_reduce_scatter_f32`
      (declared with `llvm.emit_c_interface`), and the result is read back
      as a tensor (`bufferization.to_tensor`) and expanded to its shape.

    Gathering or scattering along dimension 0 of a row-major tensor is
    concatenating or splitting its flat buffer, which is why only
    `gather_axis = 0` / `scatter_axis = 0` are accepted. Located errors: a
    collective over part of a grid (only a 1-D grid, whole, spans
    `MPI_COMM_WORLD`), another axis, an element type other than f32, a
    reduction other than sum.

    Before:
    ```mlir
    %g = shard.all_gather %w on @dp grid_axes = [0] gather_axis = 0
        : tensor<2x3xf32> -> tensor<4x3xf32>
    ```
    After:
    ```mlir
    %f = tensor.collapse_shape %w [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
    %in = bufferization.to_buffer %f read_only : tensor<6xf32> to memref<6xf32>
    %out = memref.alloc() : memref<12xf32>
    ... memref.cast to memref<?xf32> ...
    call @remat_mpi_all_gather_f32(%a, %b) : (memref<?xf32>, memref<?xf32>) -> ()
    %t = bufferization.to_tensor %out restrict writable : memref<12xf32> to tensor<12xf32>
    %g = tensor.expand_shape %t [[0, 1]] output_shape [4, 3] : tensor<12xf32> into tensor<4x3xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def RematFinishShardToMPI : Pass<"remat-finish-shard-to-mpi", "::mlir::ModuleOp"> {
  let summary = "Prepare the output of convert-shard-to-mpi for bufferization and LLVM";
  let description = [{
    Upstream `--convert-shard-to-mpi` turns the `shard` collectives of a
    per-rank step into `mpi` ops on buffers, but leaves three gaps before
    the CPU lowering. This pass closes them:

    - the `shard.grid` symbols that no op references any more are erased
      (the LLVM IR translation knows no `shard` op);
    - the MPI ABI that the `mpi` to LLVM conversion (`convert-to-llvm`)
      targets is read from the DLTI entry `"MPI:Implementation"` of the
      module, and MPICH is the default when there is none. When the module
      holds `mpi` ops and no such entry, this pass adds
      `dlti.map = #dlti.map<"MPI:Implementation" = "<mpi-implementation>">`
      (OpenMPI by default: the MPI of Debian's `libopenmpi-dev`). An
      existing entry is kept; a module that already has a `dlti.map`
      attribute without the entry is an error;
    - for OpenMPI, every `mpi.comm_split` whose color is a constant is
      replaced by its parent communicator: upstream's OpenMPI lowering of
      `mpi.comm_split` reads the new communicator back as a 32-bit integer
      and truncates OpenMPI's pointer, and convert-shard-to-mpi splits with
      a constant color exactly when a collective runs over the whole grid,
      whose ranks are then the world's in the world's order. A
      rank-dependent color is an error (use a 1-D grid, or MPICH);
    - `mpi` ops on buffers (`mpi.allreduce`, `mpi.send`, ...) declare no
      memory effects, which ownership-based buffer deallocation refuses. The
      pass registers, as a dependent-dialect extension, external
      `MemoryEffectOpInterface` models for them: every memref operand is read
      and written, and the default resource is written (so that nothing is
      moved across them).

    Before:
    ```mlir
    shard.grid @grid0(shape = 2)
    func.func @step(...) { ... mpi.allreduce(%b, %b, MPI_SUM, %comm) ... }
    ```
    After:
    ```mlir
    module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">} {
      func.func @step(...) { ... mpi.allreduce(%b, %b, MPI_SUM, %comm) ... }
    }
    ```
  }];
  let options = [
    Option<"mpiImplementation", "mpi-implementation", "std::string",
           /*default=*/"\"OpenMPI\"",
           "The MPI ABI to target when the module names none: OpenMPI or "
           "MPICH">,
  ];
  let dependentDialects = [
    "::mlir::DLTIDialect",
    "::mlir::mpi::MPIDialect",
  ];
}

def RematFoldPartialSumInits : Pass<"remat-fold-partial-sum-inits", "::mlir::func::FuncOp"> {
  let summary = "Drop the rank-dependent init of partial sums that shard-partition emits when it is already zero";
  let description = [{
    Upstream `shard-partition` turns a reduction over a split dimension (a
    weight gradient `x^T dy` over the batch) into a partial sum per rank,
    all-reduced afterwards. So that the init is counted once, it gives the
    reduction its original init on the first process and the neutral
    element on the others, through an `scf.if` on the process index. In a
    training step the init is a fill of zero, the neutral element itself:
    both branches are the same value. This pass replaces such an `scf.if`
    (then branch: a `linalg.fill` of a constant defined above; else branch:
    only a fill of a new tensor with the same constant) by the fill.

    The `scf.if` is not only dead weight: its result is an extra buffer per
    gradient, and ownership-based deallocation frees the buffers it may
    yield only at the end of the function, so the measured peak of the
    per-rank step would exceed what the planner predicts.

    Before:
    ```mlir
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x10xf32>) -> tensor<16x10xf32>
    %i = scf.if %first -> (tensor<16x10xf32>) {
      scf.yield %z : tensor<16x10xf32>
    } else {
      %e2 = tensor.empty() : tensor<16x10xf32>
      %z2 = linalg.fill ins(%zero2 : f32) outs(%e2 : tensor<16x10xf32>) -> tensor<16x10xf32>
      scf.yield %z2 : tensor<16x10xf32>
    }
    %g = linalg.matmul ins(%at, %dy : ...) outs(%i : tensor<16x10xf32>) -> tensor<16x10xf32>
    ```
    After:
    ```mlir
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x10xf32>) -> tensor<16x10xf32>
    %g = linalg.matmul ins(%at, %dy : ...) outs(%z : tensor<16x10xf32>) -> tensor<16x10xf32>
    ```
  }];
}

#endif // REMAT_CONVERSION_PASSES_TD
