// RUN: remat-opt %s --remat-lower-to-nvvm | FileCheck %s
// RUN: remat-opt %s --remat-lower-to-nvvm=arena=false | FileCheck %s

// A rematerialized step with one value offloaded (docs/Offload.md): the
// host copy is page-locked host memory, the copies are stream-ordered
// memcpys, and the function records what they cost (16 bytes on the host
// at most, 2 copies of 16 bytes).
// CHECK-LABEL: llvm.func @offload_then_prefetch(
//  CHECK-SAME:   remat.host_copies = array<i64: 16, 2, 32>
//       CHECK:   llvm.call @mgpuMemHostRegisterMemRef
//       CHECK:   llvm.call @mgpuMemcpy
//       CHECK:   llvm.call @mgpuMemcpy
//       CHECK:   llvm.call @mgpuMemHostUnregisterMemRef
//       CHECK:   llvm.call @free
//       CHECK: gpu.binary @offload_then_prefetch_kernel
func.func @offload_then_prefetch(%x: tensor<4xf32>, %y: tensor<16xf32>) -> (tensor<16xf32>, tensor<4xf32>) {
  %a = math.tanh %x : tensor<4xf32>
  %h = remat.offload %a : tensor<4xf32>
  %b = math.tanh %y : tensor<16xf32>
  %c = math.tanh %b : tensor<16xf32>
  %p = remat.prefetch %h : tensor<4xf32>
  %ga = arith.mulf %p, %p : tensor<4xf32>
  return %c, %ga : tensor<16xf32>, tensor<4xf32>
}
