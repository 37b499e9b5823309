// A step that calls helpers runs: the buffer passed to a call is freed right
// after the call (remat-free-after-last-use; upstream
// optimize-allocation-liveness moved the dealloc after the return, and the
// lowering failed with "'func.return' op must be the last operation").

// Inputs (docs/Running.md): x_i = sin(0.1 i) / 2 = 0, 0.0499167, 0.0993347,
// 0.1477601. @first returns t_0 = x_0^2 = 0; @step returns
// sum_i x_i^2 = 0 + 0.0024917 + 0.0098674 + 0.0218330 = 0.0341921.
// RUN: remat-run %s --entry=first --print-results | FileCheck %s --check-prefix=FIRST
// FIRST:      result #0: f32 sum=0 abs_sum=0 fnv1a64
// t in the arena, freed after the call: 16 bytes.
// FIRST:      peak_bytes: 16
// FIRST-NEXT: arena_bytes: 16 (one allocation
// FIRST:      leaked_bytes: 0
// A helper returning a tensor, then one reading it.
// RUN: remat-run %s --entry=step --print-results | FileCheck %s
// CHECK:      result #0: f32 sum=0.0341921
// t (16 bytes, returned by @square, its own allocation) and the 4-byte sum
// inside @total: 20.
// CHECK:      peak_bytes: 20
// CHECK:      leaked_bytes: 0

// The planned step (remat-pipeline inlines the helper) computes the same bits.
// RUN: remat-run %s --entry=step --print-results | grep '^result' > %t.raw
// RUN: remat-opt %s --remat-pipeline=functions=step | remat-run - --entry=step --print-results \
// RUN:   | grep '^result' | diff %t.raw -
// And without the arena, with each buffer freed on its own.
// RUN: remat-run %s --entry=step --print-results \
// RUN:   --pipeline='builtin.module(remat-lower-to-cpu{arena=false})' \
// RUN:   | grep '^result' | diff %t.raw -

#id = affine_map<(d0) -> (d0)>
#sum = affine_map<(d0) -> ()>

func.func private @head(%a: tensor<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %e = tensor.extract %a[%c0] : tensor<4xf32>
  return %e : f32
}

func.func private @total(%a: tensor<4xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [#id, #sum], iterator_types = ["reduction"]}
      ins(%a : tensor<4xf32>) outs(%z : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %v = tensor.extract %s[] : tensor<f32>
  return %v : f32
}

func.func @square(%x: tensor<4xf32>) -> tensor<4xf32> {
  %init = tensor.empty() : tensor<4xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %t : tensor<4xf32>
}

// The reproducer: a temporary passed to a callee returning a scalar.
func.func @first(%x: tensor<4xf32>) -> f32 {
  %init = tensor.empty() : tensor<4xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %r = func.call @head(%t) : (tensor<4xf32>) -> f32
  return %r : f32
}

func.func @step(%x: tensor<4xf32>) -> f32 {
  %t = func.call @square(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %r = func.call @total(%t) : (tensor<4xf32>) -> f32
  return %r : f32
}
