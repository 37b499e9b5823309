// RUN: remat-opt %s --split-input-file --remat-rematerialize | FileCheck %s
// RUN: remat-opt %s --split-input-file --remat-rematerialize --cse --canonicalize | FileCheck %s --check-prefix=CSE
// RUN: remat-opt %s --split-input-file --remat-rematerialize=insert-barriers=false | FileCheck %s --check-prefix=NOBAR

#c16 = #remat.cost<bytes = [16], flops = 4>
#fwd = #remat.phase<forward>
#bwd = #remat.phase<backward>

// A 3-op forward chain and its backward. The plan frees %a after %b and
// recomputes it (step 5) right before its backward user %ga (step 6).
// CHECK-LABEL: func.func @recompute_first
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf32>, %[[W:.*]]: tensor<4xf32>)
// CHECK:         %[[A:.*]] = math.tanh %[[X]]
// CHECK-NOT:       remat.steps
// CHECK-NEXT:    %[[B:.*]] = math.tanh %[[A]]
// CHECK-NEXT:    %[[C:.*]] = math.tanh %[[B]]
// CHECK-NEXT:    %[[GC:.*]] = arith.mulf %[[C]], %[[W]]
// CHECK-NEXT:    %[[GB:.*]] = arith.mulf %[[GC]], %[[B]]
//                The clone reads %x, as %a does: a barrier keeps cse off it.
// CHECK-NEXT:    %[[XB:.*]] = remat.barrier %[[X]]
// CHECK-NEXT:    %[[A2:.*]] = math.tanh %[[XB]] {{{.*}}remat.recomputed{{.*}}}
// CHECK-NEXT:    %[[GA:.*]] = arith.mulf %[[GB]], %[[A2]]
// CHECK-NEXT:    return %[[C]], %[[GA]]
// The original %a dies at %b: its only use.
// CSE-LABEL: func.func @recompute_first
// CSE-COUNT-4: math.tanh
// CSE-NOT:     math.tanh
// NOBAR-LABEL: func.func @recompute_first
// NOBAR-NOT:   remat.barrier
// NOBAR:       math.tanh %arg0 {{{.*}}remat.recomputed
func.func @recompute_first(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = math.tanh %x {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 0, 5>} : tensor<4xf32>
  %b = math.tanh %a {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 1>} : tensor<4xf32>
  %c = math.tanh %b {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 2>} : tensor<4xf32>
  %gc = arith.mulf %c, %w {remat.cost = #c16, remat.phase = #bwd, remat.steps = array<i64: 3>} : tensor<4xf32>
  %gb = arith.mulf %gc, %b {remat.cost = #c16, remat.phase = #bwd, remat.steps = array<i64: 4>} : tensor<4xf32>
  %ga = arith.mulf %gb, %a {remat.cost = #c16, remat.phase = #bwd, remat.steps = array<i64: 6>} : tensor<4xf32>
  return %c, %ga : tensor<4xf32>, tensor<4xf32>
}

// -----

#c16 = #remat.cost<bytes = [16], flops = 4>
#fwd = #remat.phase<forward>
#bwd = #remat.phase<backward>

// A chain of two recomputations: %b is recomputed from the recomputed %a, so
// only %a's clone needs a barrier; the users of %a and %b after the clones
// read the clones. Constants move to the top.
// CHECK-LABEL: func.func @recompute_chain
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf32>, %[[W:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[K:.*]] = arith.constant dense<2.000000e+00>
// CHECK-NEXT:    %[[A:.*]] = math.tanh %[[X]]
// CHECK-NEXT:    %[[B:.*]] = math.tanh %[[A]]
// CHECK-NEXT:    %[[C:.*]] = math.tanh %[[B]]
// CHECK-NEXT:    %[[GC:.*]] = arith.mulf %[[C]], %[[K]]
// CHECK-NEXT:    %[[XB:.*]] = remat.barrier %[[X]]
// CHECK-NEXT:    %[[A2:.*]] = math.tanh %[[XB]] {{{.*}}remat.recomputed
// CHECK-NEXT:    %[[B2:.*]] = math.tanh %[[A2]] {{{.*}}remat.recomputed
// CHECK-NEXT:    %[[GB:.*]] = arith.mulf %[[GC]], %[[B2]]
// CHECK-NEXT:    %[[GA:.*]] = arith.mulf %[[GB]], %[[A2]]
// CHECK-NEXT:    return %[[C]], %[[GA]]
// CSE-LABEL: func.func @recompute_chain
// CSE-COUNT-5: math.tanh
// CSE-NOT:     math.tanh
func.func @recompute_chain(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = math.tanh %x {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 0, 4>} : tensor<4xf32>
  %b = math.tanh %a {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 1, 5>} : tensor<4xf32>
  %c = math.tanh %b {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 2>} : tensor<4xf32>
  %k = arith.constant dense<2.0> : tensor<4xf32>
  %gc = arith.mulf %c, %k {remat.cost = #c16, remat.phase = #bwd, remat.steps = array<i64: 3>} : tensor<4xf32>
  %gb = arith.mulf %gc, %b {remat.cost = #c16, remat.phase = #bwd, remat.steps = array<i64: 6>} : tensor<4xf32>
  %ga = arith.mulf %gb, %a {remat.cost = #c16, remat.phase = #bwd, remat.steps = array<i64: 7>} : tensor<4xf32>
  return %c, %ga : tensor<4xf32>, tensor<4xf32>
}

// -----

#c16 = #remat.cost<bytes = [16], flops = 4>
#fwd = #remat.phase<forward>
#bwd = #remat.phase<backward>

// Reordering only: the plan computes %g (backward, independent of %c) before
// %c. No clone, no barrier.
// CHECK-LABEL: func.func @reorder
// CHECK-NEXT:    %[[A:.*]] = math.tanh %arg0
// CHECK-NEXT:    %[[G:.*]] = arith.mulf %[[A]], %arg1
// CHECK-NEXT:    %[[C:.*]] = math.tanh %[[A]]
// CHECK-NEXT:    return %[[C]], %[[G]]
// CHECK-NOT:   remat.barrier
// CSE-LABEL: func.func @reorder
func.func @reorder(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = math.tanh %x {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 0>} : tensor<4xf32>
  %c = math.tanh %a {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 2>} : tensor<4xf32>
  %g = arith.mulf %a, %w {remat.cost = #c16, remat.phase = #bwd, remat.steps = array<i64: 1>} : tensor<4xf32>
  return %c, %g : tensor<4xf32>, tensor<4xf32>
}

// -----

// Without remat.steps the function is left alone.
// CHECK-LABEL: func.func @no_plan
// CHECK-NEXT:    %[[A:.*]] = math.tanh %arg0 : tensor<4xf32>
// CHECK-NEXT:    return %[[A]]
// CSE-LABEL: func.func @no_plan
func.func @no_plan(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = math.tanh %x : tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

#c16 = #remat.cost<bytes = [16], flops = 4>
#c0 = #remat.cost<bytes = [0], flops = 0>
#fwd = #remat.phase<forward>
#bwd = #remat.phase<backward>
#id = affine_map<(d0) -> (d0)>

// A recomputed destination-style op gets its own allocation instead of the
// original's tensor.empty: sharing it would make bufferization keep one buffer
// alive from %a to %a's clone. The original gets one too (cse would merge two
// tensor.empty ops of one type), and the tensor.empty goes.
// CHECK-LABEL: func.func @own_init
// CHECK-NOT:     tensor.empty
// CHECK:         %[[E:.*]] = bufferization.alloc_tensor() {{.*}}: tensor<4xf32>
// CHECK-NEXT:    %[[A:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
// CHECK:         %[[G:.*]] = arith.mulf %[[A]], %arg1
// CHECK-NEXT:    %[[E2:.*]] = bufferization.alloc_tensor() {{.*}}: tensor<4xf32>
// CHECK-NEXT:    %[[A2:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<4xf32>) outs(%[[E2]] : tensor<4xf32>) attrs = {{{.*}}remat.recomputed
// CHECK:         %[[R:.*]] = arith.mulf %[[G]], %[[A2]]
// CHECK-NEXT:    return %[[R]]
// CSE-LABEL: func.func @own_init
// CSE-COUNT-2: linalg.generic
func.func @own_init(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() {remat.cost = #c0, remat.phase = #fwd, remat.steps = array<i64: 0>} : tensor<4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>)
      attrs = {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 1, 3>} {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %g = arith.mulf %a, %w {remat.cost = #c16, remat.phase = #bwd, remat.steps = array<i64: 2>} : tensor<4xf32>
  %r = arith.mulf %g, %a {remat.cost = #c16, remat.phase = #bwd, remat.steps = array<i64: 4>} : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

#c16 = #remat.cost<bytes = [16], flops = 4>
#c0 = #remat.cost<bytes = [0], flops = 0>
#fwd = #remat.phase<forward>
#bwd = #remat.phase<backward>
#id = affine_map<(d0) -> (d0)>

// A tensor.empty owns no bytes in the model, so a plan may schedule it early
// (step 0) although its writer runs at step 2; bufferization would allocate
// there. Its writer's own allocation is made right before the writer.
// CHECK-LABEL: func.func @sink_empty
// CHECK-NEXT:    %[[A:.*]] = math.tanh %arg0
// CHECK-NEXT:    %[[B:.*]] = math.tanh %[[A]]
// CHECK-NEXT:    %[[E:.*]] = bufferization.alloc_tensor()
// CHECK-NEXT:    %[[G:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
// CSE-LABEL: func.func @sink_empty
func.func @sink_empty(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() {remat.cost = #c0, remat.phase = #fwd, remat.steps = array<i64: 0>} : tensor<4xf32>
  %a = math.tanh %x {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 1>} : tensor<4xf32>
  %b = math.tanh %a {remat.cost = #c16, remat.phase = #fwd, remat.steps = array<i64: 2>} : tensor<4xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%b : tensor<4xf32>) outs(%e : tensor<4xf32>)
      attrs = {remat.cost = #c16, remat.phase = #bwd, remat.steps = array<i64: 3>} {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  return %g : tensor<4xf32>
}
