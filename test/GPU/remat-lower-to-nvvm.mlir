// RUN: remat-opt %s --remat-lower-to-nvvm=arena=false | FileCheck %s
// RUN: remat-opt %s --remat-lower-to-nvvm | FileCheck %s --check-prefix=ARENA
// RUN: remat-opt %s --remat-lower-to-nvvm="chip=sm_80 features=+ptx70 tile-sizes=16,4" | FileCheck %s --check-prefix=SM80
// RUN: not remat-opt %s --remat-lower-to-nvvm="format=cubin" 2>&1 | FileCheck %s --check-prefix=BADFMT
// cubin and fatbin need ptxas from the CUDA toolkit.
// RUN: %if ptxas %{ remat-opt %s --remat-lower-to-nvvm="format=bin" | FileCheck %s --check-prefix=BIN %}
// RUN: %if ptxas %{ remat-opt %s --remat-lower-to-nvvm="format=fatbin" | FileCheck %s --check-prefix=FATBIN %}
// Elementwise ops on whole tensors (math.tanh %t : tensor<...>) become
// linalg.generic ops, hence kernels: fill, matmul, tanh, exp, addf, mulf.
// RUN: remat-opt %S/../Runner/Inputs/elementwise-tensor-math.mlir --remat-lower-to-nvvm | FileCheck %s --check-prefix=ELEMENTWISE
// ELEMENTWISE: llvm.func @z(
// ELEMENTWISE-COUNT-6: gpu.binary @z_kernel
// ELEMENTWISE-NOT: gpu.binary

// A small training-step-like function: matmul, bias + ReLU, and a full-sum
// loss. Every op becomes a kernel; buffers live in device memory.
//
// Kernels, with the default tile sizes 32,8 (a tile is a block, a point a
// thread):
//   fill 64x16, matmul 64x16 (k loop inside the thread), bias+relu 64x16:
//     2-D parallel loops -> blocks of 32x8 threads;
//   fill of the rank-0 loss and the full reduction: no parallel loop, so
//     remat-wrap-serial-linalg gives them a 1-iteration loop -> 32x1 threads
//     (one active).
// Device buffers, each on its own (arena=false): the matmul result
// (64*16*4 = 4096 B, freed after the bias kernel), the ReLU result and the
// loss (returned, owned by the caller): 3 mgpuMemAlloc, 1 mgpuMemFree.
//
// In one arena (the default; docs/Arena.md), offsets 256-byte aligned as
// cuMemAlloc aligns: the matmul result at 0 and the ReLU result at 4096
// (both live in the bias kernel), the loss (4 bytes, 256 aligned) at 0 once
// the matmul result is dead: 8192 bytes, one mgpuMemAlloc, no free (the
// results are in the arena, which the caller frees once). The kernels get
// the arena's pointer shifted by each buffer's offset.
// ARENA-LABEL: llvm.func @step(
// ARENA-SAME:    remat.arena_bytes = 8192 : i64
// ARENA:         %[[BASE:.*]] = llvm.call @mgpuMemAlloc
// ARENA-NOT:     llvm.call @mgpuMemAlloc
// ARENA:         gpu.launch_func {{.*}}@step_kernel::@step_kernel {{.*}}args({{.*}}%[[BASE]] : !llvm.ptr, %[[BASE]] : !llvm.ptr
// ARENA:         %[[RELU:.*]] = llvm.getelementptr %[[BASE]][4096] : (!llvm.ptr) -> !llvm.ptr, i8
// ARENA:         gpu.launch_func {{.*}}@step_kernel_1::@step_kernel {{.*}}%[[BASE]] : !llvm.ptr, %[[RELU]] : !llvm.ptr
// ARENA-NOT:     llvm.call @mgpuMemFree
// ARENA:         llvm.return
// ARENA:         gpu.binary @step_kernel [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">, {{.*}}.version 8.0{{.*}}.target sm_90

// CHECK-LABEL: llvm.func @step(
//       CHECK:   llvm.call @mgpuStreamCreate()
//       CHECK:   llvm.call @mgpuMemAlloc
//       CHECK:   gpu.launch_func
//       CHECK:   gpu.launch_func
//       CHECK:   llvm.call @mgpuMemAlloc
//       CHECK:   gpu.launch_func
//       CHECK:   llvm.call @mgpuMemFree
//       CHECK:   llvm.call @mgpuMemAlloc
//       CHECK:   gpu.launch_func
//       CHECK:   gpu.launch_func
//       CHECK:   llvm.call @mgpuStreamSynchronize
//       CHECK:   llvm.call @mgpuStreamDestroy
//   CHECK-NOT:   llvm.call @mgpuMemFree
//       CHECK:   llvm.return

// The kernels are PTX for sm_90 with PTX ISA 8.0.
//       CHECK: gpu.binary @step_kernel [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">, {{.*}}assembly = "{{.*}}.version 8.0{{.*}}.target sm_90{{.*}}.maxntid 32, 8, 1
//       CHECK: gpu.binary @step_kernel_0 [{{.*}}.maxntid 32, 8, 1
//       CHECK: gpu.binary @step_kernel_1 [{{.*}}.maxntid 32, 8, 1
//       CHECK: gpu.binary @step_kernel_2 [{{.*}}.maxntid 32, 1, 1
//       CHECK: gpu.binary @step_kernel_3 [{{.*}}.maxntid 32, 1, 1
//   CHECK-NOT: gpu.module

//      SM80: gpu.binary @step_kernel [#gpu.object<#nvvm.target<chip = "sm_80", features = "+ptx70">, {{.*}}.target sm_80{{.*}}.maxntid 16, 4, 1
//      SM80: gpu.binary @step_kernel_2 [{{.*}}.maxntid 16, 1, 1

//    BADFMT: for the --format option: Cannot find option named 'cubin'!

// A cubin is an ELF file; a fatbinary starts with the magic 0xBA55ED50
// (little endian: "P\EDU\BA").
//       BIN: gpu.binary @step_kernel [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">, {{.*}}ISAToBinaryTimeInMs{{.*}}bin = "\7FELF
//    FATBIN: gpu.binary @step_kernel [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">, {{.*}}ISAToBinaryTimeInMs{{.*}}}, "P\EDU\BA

func.func @step(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>, %c: tensor<16xf32>)
    -> (tensor<64x16xf32>, tensor<f32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x16xf32>)
                     outs(%z : tensor<64x16xf32>) -> tensor<64x16xf32>
  %e2 = tensor.empty() : tensor<64x16xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                       affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%m, %c : tensor<64x16xf32>, tensor<16xf32>) outs(%e2 : tensor<64x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.maximumf %s, %zero : f32
    linalg.yield %t : f32
  } -> tensor<64x16xf32>
  %e3 = tensor.empty() : tensor<f32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%r : tensor<64x16xf32>) outs(%z3 : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %q = arith.addf %in, %acc : f32
      linalg.yield %q : f32
    }
  return %r, %sum : tensor<64x16xf32>, tensor<f32>
}
