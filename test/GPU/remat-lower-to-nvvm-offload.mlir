// RUN: remat-opt %s --remat-lower-to-nvvm | FileCheck %s
// RUN: remat-opt %s --remat-lower-to-nvvm=arena=false | FileCheck %s

// A rematerialized step with one value offloaded (docs/Offload.md): the
// host copy is in page-locked host memory (the host arena, 64 bytes), the
// copies run on streams of their own, and the function records what they
// cost (64 bytes on the host at most, 2 copies of 16 bytes). The value
// offloaded is in an argument, which the next kernel's argument may alias:
// the compute stream waits for the copy there (a new stream).
// CHECK-LABEL: llvm.func @offload_then_prefetch(
//  CHECK-SAME:   remat.host_copies = array<i64: 64, 2, 32>
//       CHECK:   llvm.call @mgpuMemHostRegisterMemRef
//       CHECK:   llvm.call @mgpuStreamCreate()
//       CHECK:   %[[OFF:.*]] = llvm.call @mgpuStreamCreate()
//       CHECK:   llvm.call @mgpuMemcpy(%{{.*}}, %{{.*}}, %{{.*}}, %[[OFF]])
//       CHECK:   %[[JOIN:.*]] = llvm.call @mgpuStreamCreate()
//       CHECK:   gpu.launch_func <%[[JOIN]] : !llvm.ptr>
//       CHECK:   %[[PRE:.*]] = llvm.call @mgpuStreamCreate()
//       CHECK:   llvm.call @mgpuMemcpy(%{{.*}}, %{{.*}}, %{{.*}}, %[[PRE]])
//       CHECK:   llvm.call @mgpuMemHostUnregisterMemRef
//       CHECK:   llvm.call @free
//   CHECK-DAG:   llvm.call @mgpuStreamDestroy(%[[OFF]])
//   CHECK-DAG:   llvm.call @mgpuStreamDestroy(%[[PRE]])
//       CHECK:   llvm.return
func.func @offload_then_prefetch(%x: tensor<4xf32>, %y: tensor<16xf32>) -> (tensor<16xf32>, tensor<4xf32>) {
  %a = math.tanh %x : tensor<4xf32>
  %h = remat.offload %a : tensor<4xf32>
  %b = math.tanh %y : tensor<16xf32>
  %c = math.tanh %b : tensor<16xf32>
  %p = remat.prefetch %h : tensor<4xf32>
  %ga = arith.mulf %p, %p : tensor<4xf32>
  return %c, %ga : tensor<16xf32>, tensor<4xf32>
}

// The offloaded value is in the arena (or its own buffer): the kernels
// after the offload run on the compute stream while the copy runs on its
// own; the prefetch waits for the compute stream where it is and for the
// offload; the first kernel on the prefetched buffer waits for it on a new
// stream; every stream is destroyed before the return.
// CHECK-LABEL: llvm.func @offload_overlaps(
//       CHECK:   %[[MAIN:.*]] = llvm.call @mgpuStreamCreate()
//       CHECK:   gpu.launch_func <%[[MAIN]] : !llvm.ptr>
//       CHECK:   %[[OFF:.*]] = llvm.call @mgpuStreamCreate()
//       CHECK:   llvm.call @mgpuMemcpy(%{{.*}}, %{{.*}}, %{{.*}}, %[[OFF]])
//   CHECK-NOT:   mgpuStreamCreate
//       CHECK:   gpu.launch_func <%[[MAIN]] : !llvm.ptr>
//   CHECK-NOT:   mgpuStreamCreate
//       CHECK:   gpu.launch_func <%[[MAIN]] : !llvm.ptr>
//       CHECK:   %[[PRE:.*]] = llvm.call @mgpuStreamCreate()
//       CHECK:   llvm.call @mgpuMemcpy(%{{.*}}, %{{.*}}, %{{.*}}, %[[PRE]])
//       CHECK:   %[[JOIN:.*]] = llvm.call @mgpuStreamCreate()
//       CHECK:   llvm.call @mgpuStreamWaitEvent(%[[JOIN]]
//       CHECK:   gpu.launch_func <%[[JOIN]] : !llvm.ptr>
//   CHECK-DAG:   llvm.call @mgpuStreamDestroy(%[[MAIN]])
//   CHECK-DAG:   llvm.call @mgpuStreamDestroy(%[[OFF]])
//   CHECK-DAG:   llvm.call @mgpuStreamDestroy(%[[PRE]])
//   CHECK-DAG:   llvm.call @mgpuStreamDestroy(%[[JOIN]])
//       CHECK:   llvm.return
func.func @offload_overlaps(%x: tensor<64xf32>, %y: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %a = math.tanh %x : tensor<64xf32>
  %h = remat.offload %a : tensor<64xf32>
  %b = math.tanh %y : tensor<64xf32>
  %c = math.tanh %b : tensor<64xf32>
  %p = remat.prefetch %h : tensor<64xf32>
  %g = arith.mulf %p, %x : tensor<64xf32>
  return %c, %g : tensor<64xf32>, tensor<64xf32>
}
