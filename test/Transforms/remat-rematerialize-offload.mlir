// RUN: remat-opt %s --split-input-file --remat-rematerialize | FileCheck %s
// RUN: remat-opt %s --split-input-file --remat-rematerialize --remat-bufferize | FileCheck %s --check-prefix=BUF
// RUN: remat-opt %s --split-input-file --remat-rematerialize --remat-lower-to-cpu | FileCheck %s --check-prefix=CPU
// RUN: remat-opt %s --split-input-file --remat-rematerialize --remat-bufferize=arena=false | FileCheck %s --check-prefix=FREE

#c16 = #remat.cost<bytes = [16], flops = 4>
#c64 = #remat.cost<bytes = [64], flops = 16>
#fwd = #remat.phase<forward>
#bwd = #remat.phase<backward>

// %a is offloaded after its step (0), its copy done before step 2, and
// prefetched before its backward user (step 3): the copy goes out after %a,
// %a's device buffer lives until the wait, the copy comes back before %ga,
// and %ga reads what came back.
// CHECK-LABEL: func.func @offload_then_prefetch
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<16xf32>)
// CHECK:         %[[A:.*]] = math.tanh %[[X]]
// CHECK-NOT:       remat.offloads
//                The copies cost no compute; the host copy no device bytes.
// CHECK-NEXT:    %[[H:.*]] = remat.offload %[[A]] {remat.cost = #remat.cost<bytes = [0], flops = 0>} : tensor<4xf32>
// CHECK-NEXT:    %[[B:.*]] = math.tanh %[[Y]]
// CHECK-NEXT:    remat.wait %[[A]] : tensor<4xf32>
// CHECK-NEXT:    %[[C:.*]] = math.tanh %[[B]]
// CHECK-NEXT:    %[[P:.*]] = remat.prefetch %[[H]] {remat.cost = #remat.cost<bytes = [16], flops = 0>} : tensor<4xf32>
// CHECK-NEXT:    %[[GA:.*]] = arith.mulf %[[P]], %[[P]]
// CHECK-NEXT:    return %[[C]], %[[GA]]
// Bufferized: the host copy is a buffer in memory space 1, outside the
// arena; the wait reads the offloaded buffer.
// BUF-LABEL: func.func @offload_then_prefetch
// BUF:         %[[HOST:.*]] = memref.alloc() : memref<4xf32, 1>
// BUF-NEXT:    memref.copy %[[ABUF:.*]], %[[HOST]] : memref<4xf32> to memref<4xf32, 1>
// BUF:         remat.wait %[[ABUF]] : memref<4xf32>
// BUF:         memref.copy %[[HOST]], %{{.*}} : memref<4xf32, 1> to memref<4xf32>
// BUF-NEXT:    memref.dealloc %[[HOST]] : memref<4xf32, 1>
// Lowered for a CPU, counted (peak 16 bytes, 2 copies of 16 bytes), the
// wait erased, then plain buffers.
// CPU-LABEL: llvm.func @offload_then_prefetch
// CPU-SAME:    remat.host_copies = array<i64: 16, 2, 32>
// CPU-NOT:     remat.wait
func.func @offload_then_prefetch(%x: tensor<4xf32>, %y: tensor<16xf32>) -> (tensor<16xf32>, tensor<4xf32>) {
  %a = math.tanh %x {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 0>, remat.offloads = array<i64: 0, 2, 3>} : tensor<4xf32>
  %b = math.tanh %y {remat.cost = #c64, remat.phase = #fwd, remat.steps = array<i64: 1>} : tensor<16xf32>
  %c = math.tanh %b {remat.cost = #c64, remat.phase = #fwd, remat.steps = array<i64: 2>} : tensor<16xf32>
  %ga = arith.mulf %a, %a {remat.cost = #c16, remat.phase = #bwd, remat.steps = array<i64: 3>} : tensor<4xf32>
  return %c, %ga : tensor<16xf32>, tensor<4xf32>
}

// -----

#c16 = #remat.cost<bytes = [16], flops = 4>
#fwd = #remat.phase<forward>
#bwd = #remat.phase<backward>

// Offloaded twice: after step 0 back before step 2 (its copy done before
// step 1), after step 2 back before step 4 (its wait before step 4 too: the
// wait goes before the prefetch); each read takes the latest copy back, each
// wait names the value its offload copied.
// CHECK-LABEL: func.func @offload_twice
// CHECK:         %[[A:.*]] = math.tanh
// CHECK-NEXT:    %[[H1:.*]] = remat.offload %[[A]]
// CHECK-NEXT:    remat.wait %[[A]]
// CHECK-NEXT:    math.tanh
// CHECK-NEXT:    %[[P1:.*]] = remat.prefetch %[[H1]]
// CHECK-NEXT:    %[[G1:.*]] = arith.mulf %{{.*}}, %[[P1]]
// CHECK-NEXT:    %[[H2:.*]] = remat.offload %[[P1]]
// CHECK-NEXT:    math.tanh
// CHECK-NEXT:    remat.wait %[[P1]]
// CHECK-NEXT:    %[[P2:.*]] = remat.prefetch %[[H2]]
// CHECK-NEXT:    arith.mulf %[[G1]], %[[P2]]
func.func @offload_twice(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = math.tanh %x {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 0>, remat.offloads = array<i64: 0, 1, 2, 2, 4, 4>} : tensor<4xf32>
  %b = math.tanh %x {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 1>} : tensor<4xf32>
  %g1 = arith.mulf %b, %a {remat.cost = #c16, remat.phase = #bwd, remat.steps = array<i64: 2>} : tensor<4xf32>
  %d = math.tanh %g1 {remat.cost = #c16, remat.phase = #bwd, remat.steps = array<i64: 3>} : tensor<4xf32>
  %g2 = arith.mulf %g1, %a {remat.cost = #c16, remat.phase = #bwd, remat.steps = array<i64: 4>} : tensor<4xf32>
  %r = arith.addf %g2, %d {remat.cost = #c16, remat.phase = #bwd, remat.steps = array<i64: 5>} : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

#c16 = #remat.cost<bytes = [16], flops = 4>
#fwd = #remat.phase<forward>
#bwd = #remat.phase<backward>

// The wait keeps the offloaded buffer live: without the arena, %a's buffer
// is freed right after its wait (before step 2), not at its copy.
// FREE-LABEL: func.func @wait_keeps_the_buffer
// FREE:         %[[A:.*]] = memref.alloc() {{.*}}: memref<4xf32>
// FREE:         %[[HOST:.*]] = memref.alloc() : memref<4xf32, 1>
// FREE-NEXT:    memref.copy %[[A]], %[[HOST]]
// FREE-NOT:     memref.dealloc %[[A]]
// FREE:         remat.wait %[[A]] : memref<4xf32>
// FREE-NEXT:    memref.dealloc %[[A]] : memref<4xf32>
// FREE:         memref.copy %[[HOST]], %{{.*}} : memref<4xf32, 1> to memref<4xf32>
func.func @wait_keeps_the_buffer(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = math.tanh %x {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 0>, remat.offloads = array<i64: 0, 2, 3>} : tensor<4xf32>
  %b = math.exp %x {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 1>} : tensor<4xf32>
  %c = math.tanh %b {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 2>} : tensor<4xf32>
  %ga = arith.addf %a, %c {remat.cost = #c16, remat.phase = #bwd, remat.steps = array<i64: 3>} : tensor<4xf32>
  return %ga, %x : tensor<4xf32>, tensor<4xf32>
}
