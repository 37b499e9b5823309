// RUN: remat-opt %s --split-input-file --test-remat-memory=per-op --verify-diagnostics -o /dev/null
// RUN: remat-opt %s --split-input-file --test-remat-memory=count-arguments=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOARGS

// Liveness and peak memory of tensor IR: sizes come from `remat.cost`
// (deliberately odd numbers, so that every sum below is distinguishable). A
// value is live from its definition to its last use; entry #i counts the
// operands and the results of op #i. Arguments are resident.

// Resident: %x = 16 x f32 = 64 bytes.
//   #0 tensor.empty  0 bytes                      64
//   #1 %a = 1000                          64 + 1000 = 1064
//   #2 %b = 200, last use of %a     64 + 1000 + 200 = 1264  <- peak
//   #3 %c = 70                       64 + 200 + 70 = 334
//   #4 %d = 65, last use of %b, %c 64 + 200 + 70 + 65 = 399
//   #5 return %d                            64 + 65 = 129
// Total: 64 + 1000 + 200 + 70 + 65 = 1399.
// NOARGS: peak = 1200 bytes at #2 linalg.exp; resident = 0 bytes; total = 1335 bytes
// expected-remark @below {{peak = 1264 bytes at #2 linalg.exp; resident = 64 bytes; total = 1399 bytes}}
// expected-remark @below {{live at peak: %1 (1000), %2 (200), %arg0 (64)}}
func.func @chain(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-remark @below {{live = 64 bytes}}
  %e = tensor.empty() {remat.cost = #remat.cost<bytes = [0], flops = 0>} : tensor<16xf32>
  // expected-remark @below {{live = 1064 bytes}}
  %a = linalg.exp {remat.cost = #remat.cost<bytes = [1000], flops = 16>}
      ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  // expected-remark @below {{live = 1264 bytes}}
  %b = linalg.exp {remat.cost = #remat.cost<bytes = [200], flops = 16>}
      ins(%a : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  // expected-remark @below {{live = 334 bytes}}
  %c = linalg.add {remat.cost = #remat.cost<bytes = [70], flops = 16>}
      ins(%b, %x : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  // expected-remark @below {{live = 399 bytes}}
  %d = linalg.add {remat.cost = #remat.cost<bytes = [65], flops = 16>}
      ins(%c, %b : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  // expected-remark @below {{live = 129 bytes}}
  return %d : tensor<16xf32>
}

// -----

// Views own no bytes and keep their source's storage live until their own
// last use, through chains of views. Resident: %x = 4x4 x f32 = 64.
//   #0 tensor.empty                                 64
//   #1 %a = 100                            64 + 100 = 164
//   #2 collapse_shape of %a (view)                  164
//   #3 extract_slice of the view (view)             164
//   #4 tensor.empty                                 164
//   #5 %b = 40, last use of the slice 64 + 100 + 40 = 204  <- peak
//   #6 %c = 20                         64 + 40 + 20 = 124
//   #7 return %c                            64 + 20 = 84
// Total: 64 + 100 + 40 + 20 = 224.
// NOARGS: peak = 140 bytes at #5 linalg.exp; resident = 0 bytes; total = 160 bytes
// expected-remark @below {{peak = 204 bytes at #5 linalg.exp; resident = 64 bytes; total = 224 bytes}}
// expected-remark @below {{live at peak: %1 (100), %arg0 (64), %3 (40)}}
func.func @views(%x: tensor<4x4xf32>) -> tensor<4xf32> {
  // expected-remark @below {{live = 64 bytes}}
  %e = tensor.empty() {remat.cost = #remat.cost<bytes = [0], flops = 0>} : tensor<4x4xf32>
  // expected-remark @below {{live = 164 bytes}}
  %a = linalg.exp {remat.cost = #remat.cost<bytes = [100], flops = 16>}
      ins(%x : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  // expected-remark @below {{live = 164 bytes}}
  %v = tensor.collapse_shape %a [[0, 1]] {remat.cost = #remat.cost<bytes = [0], flops = 0>}
      : tensor<4x4xf32> into tensor<16xf32>
  // expected-remark @below {{live = 164 bytes}}
  %w = tensor.extract_slice %v[0] [4] [1] {remat.cost = #remat.cost<bytes = [0], flops = 0>}
      : tensor<16xf32> to tensor<4xf32>
  // expected-remark @below {{live = 164 bytes}}
  %e2 = tensor.empty() {remat.cost = #remat.cost<bytes = [0], flops = 0>} : tensor<4xf32>
  // expected-remark @below {{live = 204 bytes}}
  %b = linalg.exp {remat.cost = #remat.cost<bytes = [40], flops = 4>}
      ins(%w : tensor<4xf32>) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  // expected-remark @below {{live = 124 bytes}}
  %c = linalg.exp {remat.cost = #remat.cost<bytes = [20], flops = 4>}
      ins(%b : tensor<4xf32>) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  // expected-remark @below {{live = 84 bytes}}
  return %c : tensor<4xf32>
}

// -----

// A multi-result op: one size per result, each result with its own live
// range; returned values live to the end. Resident: %x = 4 x f32 = 16.
//   #0 tensor.empty                                16
//   #1 %r#0 = 40, %r#1 = 24             16 + 40 + 24 = 80
//   #2 %s = 20, last use of %r#0   16 + 40 + 24 + 20 = 100  <- peak
//   #3 return %s, %r#1                  16 + 24 + 20 = 60
// Total: 16 + 40 + 24 + 20 = 100.
// NOARGS: peak = 84 bytes at #2 linalg.exp; resident = 0 bytes; total = 84 bytes
// expected-remark @below {{peak = 100 bytes at #2 linalg.exp; resident = 16 bytes; total = 100 bytes}}
// expected-remark @below {{live at peak: %1#0 (40), %1#1 (24), %2 (20), %arg0 (16)}}
func.func @multi(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-remark @below {{live = 16 bytes}}
  %e = tensor.empty() {remat.cost = #remat.cost<bytes = [0], flops = 0>} : tensor<4xf32>
  // expected-remark @below {{live = 80 bytes}}
  %r:2 = linalg.generic {
      indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
      iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e, %e : tensor<4xf32>, tensor<4xf32>)
      attrs = {remat.cost = #remat.cost<bytes = [40, 24], flops = 8>} {
  ^bb0(%in: f32, %o0: f32, %o1: f32):
    %n = arith.negf %in : f32
    linalg.yield %in, %n : f32, f32
  } -> (tensor<4xf32>, tensor<4xf32>)
  // expected-remark @below {{live = 100 bytes}}
  %s = linalg.exp {remat.cost = #remat.cost<bytes = [20], flops = 4>}
      ins(%r#0 : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  // expected-remark @below {{live = 60 bytes}}
  return %s, %r#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Nested regions count at their enclosing top-level op: a use of %a inside
// the loop keeps %a live at the loop, and a tensor computed inside the loop
// (%y = 30) is a transient of the loop, counted once. The scf.for result has
// no cost: it falls back to its type size, 4 x f32 = 16. Resident: %x = 16.
//   #0, #1 arith.constant (index)                     16
//   #2 tensor.empty                                   16
//   #3 %a = 100                              16 + 100 = 116
//   #4 scf.for: %a, %y, result     16 + 100 + 30 + 16 = 162  <- peak
//   #5 %b = 20, last use of the loop result 16 + 16 + 20 = 52
//   #6 return %b                                16 + 20 = 36
// Total: 16 + 100 + 30 + 16 + 20 = 182.
// NOARGS: peak = 146 bytes at #4 scf.for; resident = 0 bytes; total = 166 bytes
// expected-remark @below {{peak = 162 bytes at #4 scf.for; resident = 16 bytes; total = 182 bytes}}
// expected-remark @below {{live at peak: %1 (100), %4 (30), %arg0 (16), %2 (16)}}
func.func @nested(%x: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  // expected-remark @below {{live = 16 bytes}}
  %c0 = arith.constant 0 : index
  // expected-remark @below {{live = 16 bytes}}
  %c1 = arith.constant 1 : index
  // expected-remark @below {{live = 16 bytes}}
  %e = tensor.empty() {remat.cost = #remat.cost<bytes = [0], flops = 0>} : tensor<4xf32>
  // expected-remark @below {{live = 116 bytes}}
  %a = linalg.exp {remat.cost = #remat.cost<bytes = [100], flops = 4>}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  // expected-remark @below {{live = 162 bytes}}
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%t = %x) -> (tensor<4xf32>) {
    %y = linalg.add {remat.cost = #remat.cost<bytes = [30], flops = 4>}
        ins(%t, %a : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %y : tensor<4xf32>
  }
  // expected-remark @below {{live = 52 bytes}}
  %b = linalg.exp {remat.cost = #remat.cost<bytes = [20], flops = 4>}
      ins(%r : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  // expected-remark @below {{live = 36 bytes}}
  return %b : tensor<4xf32>
}

// -----

// Without `remat.cost`, sizes fall back to the result types: constants and
// tensor.empty are free, views own nothing, other results take their type
// size. Resident: %x = 8 x f32 = 32.
//   #0 arith.constant (static data)          32
//   #1 tensor.empty                          32
//   #2 %a: 8 x f32                      32 + 32 = 64
//   #3 %h: 8 x f16, last use of %a 32 + 32 + 16 = 80  <- peak
//   #4 %v = expand_shape of %h (view)   32 + 16 = 48
//   #5 return %v: keeps %h live         32 + 16 = 48
// NOARGS: peak = 48 bytes at #3 arith.truncf; resident = 0 bytes; total = 48 bytes
// expected-remark @below {{peak = 80 bytes at #3 arith.truncf; resident = 32 bytes; total = 80 bytes}}
// expected-remark @below {{live at peak: %arg0 (32), %1 (32), %2 (16)}}
func.func @fallback(%x: tensor<8xf32>) -> tensor<2x4xf16> {
  // expected-remark @below {{live = 32 bytes}}
  %cst = arith.constant dense<1.0> : tensor<8xf32>
  // expected-remark @below {{live = 32 bytes}}
  %e = tensor.empty() : tensor<8xf32>
  // expected-remark @below {{live = 64 bytes}}
  %a = linalg.add ins(%x, %cst : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  // expected-remark @below {{live = 80 bytes}}
  %h = arith.truncf %a : tensor<8xf32> to tensor<8xf16>
  // expected-remark @below {{live = 48 bytes}}
  %v = tensor.expand_shape %h [[0, 1]] output_shape [2, 4] : tensor<8xf16> into tensor<2x4xf16>
  // expected-remark @below {{live = 48 bytes}}
  return %v : tensor<2x4xf16>
}

// -----

// A zero-byte destination-style result (insert_slice written in place)
// shares the storage of its destination, which stays live until the
// result's last use. Resident: %x = 4 x f32 = 16.
//   #0 arith.constant (scalar)                 16
//   #1 tensor.empty                            16
//   #2 %z = 32                           16 + 32 = 48
//   #3 %i = insert_slice into %z (0 bytes)       48
//   #4 tensor.empty                              48
//   #5 %y = 32, last use of %i      16 + 32 + 32 = 80  <- peak
//   #6 return %y                         16 + 32 = 48
// NOARGS: peak = 64 bytes at #5 linalg.exp; resident = 0 bytes; total = 64 bytes
// expected-remark @below {{peak = 80 bytes at #5 linalg.exp; resident = 16 bytes; total = 80 bytes}}
// expected-remark @below {{live at peak: %1 (32), %3 (32), %arg0 (16)}}
func.func @inplace(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-remark @below {{live = 16 bytes}}
  %f = arith.constant 0.0 : f32
  // expected-remark @below {{live = 16 bytes}}
  %e = tensor.empty() {remat.cost = #remat.cost<bytes = [0], flops = 0>} : tensor<8xf32>
  // expected-remark @below {{live = 48 bytes}}
  %z = linalg.fill {remat.cost = #remat.cost<bytes = [32], flops = 0>}
      ins(%f : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  // expected-remark @below {{live = 48 bytes}}
  %i = tensor.insert_slice %x into %z[0] [4] [1] {remat.cost = #remat.cost<bytes = [0], flops = 0>}
      : tensor<4xf32> into tensor<8xf32>
  // expected-remark @below {{live = 48 bytes}}
  %e2 = tensor.empty() {remat.cost = #remat.cost<bytes = [0], flops = 0>} : tensor<8xf32>
  // expected-remark @below {{live = 80 bytes}}
  %y = linalg.exp {remat.cost = #remat.cost<bytes = [32], flops = 8>}
      ins(%i : tensor<8xf32>) outs(%e2 : tensor<8xf32>) -> tensor<8xf32>
  // expected-remark @below {{live = 48 bytes}}
  return %y : tensor<8xf32>
}

// -----

// A dynamically shaped argument cannot be sized: it is not counted, and the
// remark says so. Resident: %y = 4 x f32 = 16.
//   #0 tensor.empty         16
//   #1 %a = 16         16 + 16 = 32  <- peak
//   #2 return %a            32
// NOARGS: peak = 16 bytes at #1 linalg.exp; resident = 0 bytes; total = 16 bytes
// expected-remark @below {{peak = 32 bytes at #1 linalg.exp; resident = 16 bytes; total = 32 bytes}}
// expected-remark @below {{1 argument(s) of dynamic size not counted}}
// expected-remark @below {{live at peak: %arg1 (16), %1 (16)}}
func.func @unsized(%x: tensor<?xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-remark @below {{live = 16 bytes}}
  %e = tensor.empty() {remat.cost = #remat.cost<bytes = [0], flops = 0>} : tensor<4xf32>
  // expected-remark @below {{live = 32 bytes}}
  %a = linalg.exp {remat.cost = #remat.cost<bytes = [16], flops = 4>}
      ins(%y : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  // expected-remark @below {{live = 32 bytes}}
  return %a : tensor<4xf32>
}

// -----

// Declarations have no body: nothing to report.
func.func private @declaration(tensor<4xf32>) -> tensor<4xf32>
