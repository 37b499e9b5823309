// RUN: remat-opt %s --remat-lower-to-nvvm --mlir-disable-threading --mlir-print-ir-after=remat-overlap-host-copies -o /dev/null 2>&1 | FileCheck %s

// A `remat.wait` keeps the offloaded value's bytes in the device arena until
// the copy is done (docs/Offload.md): no buffer is placed on them before the
// wait, so the kernels between the offload and the wait run on the compute
// stream while the copy runs on its own. Compile-only.

// With the wait two kernels later: %b gets bytes of its own, and the kernel
// that writes it launches right after the copy starts, waiting only for the
// compute stream.
// CHECK-LABEL: func.func @wait_defers_reuse
//       CHECK:   %[[A:.*]] = memref.view %[[ARENA:.*]][%{{.*}}][] : memref<512xi8> to memref<64xf32>
//       CHECK:   %[[K0:.*]] = gpu.launch_func async
//       CHECK:   %[[OFF:.*]] = gpu.memcpy async [%{{.*}}] %{{.*}}, %[[A]]
//  CHECK-NEXT:   memref.view %[[ARENA]]
//  CHECK-NEXT:   %[[K1:.*]] = gpu.launch_func async [%[[K0]]]
//  CHECK-NEXT:   %[[K2:.*]] = gpu.launch_func async [%[[K1]]]
//  CHECK-NEXT:   gpu.launch_func async [%[[K2]]]
func.func @wait_defers_reuse(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %a = math.tanh %x : tensor<64xf32>
  %h = remat.offload %a : tensor<64xf32>
  %b = math.exp %x : tensor<64xf32>
  %c = math.tanh %b : tensor<64xf32>
  remat.wait %a : tensor<64xf32>
  %d = math.exp %c : tensor<64xf32>
  %p = remat.prefetch %h : tensor<64xf32>
  %g = arith.mulf %p, %d : tensor<64xf32>
  return %g, %x : tensor<64xf32>, tensor<64xf32>
}

// Without it, the arena frees %a at its copy and places %b on its bytes: the
// compute stream waits for the copy before the very next kernel.
// CHECK-LABEL: func.func @no_wait
//       CHECK:   %[[K0:.*]] = gpu.launch_func async
//       CHECK:   %[[OFF:.*]] = gpu.memcpy async
//  CHECK-NEXT:   memref.view
//  CHECK-NEXT:   %[[JOIN:.*]] = gpu.wait async [%[[K0]], %[[OFF]]]
//  CHECK-NEXT:   gpu.launch_func async [%[[JOIN]]]
func.func @no_wait(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %a = math.tanh %x : tensor<64xf32>
  %h = remat.offload %a : tensor<64xf32>
  %b = math.exp %x : tensor<64xf32>
  %c = math.tanh %b : tensor<64xf32>
  %d = math.exp %c : tensor<64xf32>
  %p = remat.prefetch %h : tensor<64xf32>
  %g = arith.mulf %p, %d : tensor<64xf32>
  return %g, %x : tensor<64xf32>, tensor<64xf32>
}
