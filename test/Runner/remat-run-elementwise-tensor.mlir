// Elementwise arith and math ops applied to whole tensors (valid
// linalg-level IR that other front ends emit; the planning passes cost them)
// run: remat-lower-to-cpu converts them to linalg.generic ops before
// bufferizing. @ops computes with such ops what @generic computes in one
// linalg.generic: the same scalar operations in the same order, so the
// results are bitwise the same (same checksums and hashes).
//
// RUN: remat-run %s --entry=ops --print-results | FileCheck %s
// RUN: remat-run %s --entry=generic --print-results | FileCheck %s
// And planned first (--remat-pipeline accepts them too):
// RUN: remat-run %s --entry=ops --print-results --pipeline='builtin.module(remat-pipeline{budget=100%%},remat-lower-to-cpu)' 2>/dev/null | FileCheck %s
//
// x_i = 0.5 sin(0.1 i) < y_i = 0.5 sin(0.1 i + 1) for i < 8, so #0 is
// -(tanh x + exp y) x (element 0: -0, x_0 = 0); #1 = max(float(k), #0) =
// k_i = (i + 2) mod 4 (#0 < 0).
// CHECK:      result #0: tensor<8xf32> sum=-2.48889743 abs_sum=2.48889743 fnv1a64=0x7f02de9a91705ba6
// CHECK-NEXT:   values: [-0, -0.0804311782, -0.168138564, -0.260892063, -0.356133848, -0.451111168, -0.543022871, -0.629167736]
// CHECK-NEXT: result #1: tensor<8xf32> sum=12 abs_sum=12 fnv1a64=0x1c912a8a18a702e5
// CHECK-NEXT:   values: [2, 3, 0, 1, 2, 3, 0, 1]
// CHECK-NEXT: peak_bytes:
// CHECK:      leaked_bytes: 0
//
// The reproducer of the bad input (matmul, tanh, exp, addf, mulf on
// tensors), which failed with "op was not bufferized": it runs.
// RUN: remat-run %S/Inputs/elementwise-tensor-math.mlir | FileCheck %s --check-prefix=REPRO
// REPRO:      result #0: tensor<8x64xf32> sum=2883.08326 abs_sum=2885.20146 fnv1a64=0x422ae633ff11b4c3
// REPRO:      leaked_bytes: 0

func.func @ops(%x: tensor<8xf32>, %y: tensor<8xf32>, %k: tensor<8xi32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %t = math.tanh %x : tensor<8xf32>
  %e = math.exp %y : tensor<8xf32>
  %s = arith.addf %t, %e : tensor<8xf32>
  %m = arith.mulf %s, %x : tensor<8xf32>
  %n = arith.negf %m : tensor<8xf32>
  %c = arith.cmpf olt, %x, %y : tensor<8xf32>
  %r = arith.select %c, %n, %s : tensor<8xi1>, tensor<8xf32>
  %f = arith.sitofp %k : tensor<8xi32> to tensor<8xf32>
  %z = arith.maximumf %f, %r : tensor<8xf32>
  return %r, %z : tensor<8xf32>, tensor<8xf32>
}

#id = affine_map<(i) -> (i)>
func.func @generic(%x: tensor<8xf32>, %y: tensor<8xf32>, %k: tensor<8xi32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e0 = tensor.empty() : tensor<8xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %r, %z = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y, %k : tensor<8xf32>, tensor<8xf32>, tensor<8xi32>) outs(%e0, %e1 : tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %i: i32, %o1: f32, %o2: f32):
    %t = math.tanh %a : f32
    %e = math.exp %b : f32
    %s = arith.addf %t, %e : f32
    %m = arith.mulf %s, %a : f32
    %n = arith.negf %m : f32
    %c = arith.cmpf olt, %a, %b : f32
    %rr = arith.select %c, %n, %s : f32
    %f = arith.sitofp %i : i32 to f32
    %zz = arith.maximumf %f, %rr : f32
    linalg.yield %rr, %zz : f32, f32
  } -> (tensor<8xf32>, tensor<8xf32>)
  return %r, %z : tensor<8xf32>, tensor<8xf32>
}
