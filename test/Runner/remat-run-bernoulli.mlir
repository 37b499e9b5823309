// Dropout masks: an argument marked `remat.bernoulli = q` is filled with 0/1
// (1 with probability q, from the seeded SplitMix64 stream of
// docs/Running.md), in f32 and in bf16 alike (a bf16 language model's
// masks); the mark on an integer argument is a CLI error naming it.
//
// RUN: remat-run %s --entry=masks --print-results | FileCheck %s
// RUN: not remat-run %s --entry=on_int 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK:      result #0: tensor<8xf32>
// CHECK-NEXT:   values: [{{[01](, [01])+}}]
// CHECK-NEXT: result #1: tensor<8xbf16>
// CHECK-NEXT:   values: [{{[01](, [01])+}}]
// CHECK-NEXT: result #2: tensor<8xf32>
// CHECK-NEXT:   values: [1, 1, 1, 1, 1, 1, 1, 1]
func.func @masks(%m32: tensor<8xf32> {remat.data, remat.bernoulli = 0.5 : f64},
                 %m16: tensor<8xbf16> {remat.data, remat.bernoulli = 0.5 : f64},
                 %ones: tensor<8xf32> {remat.data, remat.bernoulli = 1.0 : f64})
    -> (tensor<8xf32>, tensor<8xbf16>, tensor<8xf32>) {
  return %m32, %m16, %ones : tensor<8xf32>, tensor<8xbf16>, tensor<8xf32>
}

// ERR: argument #0 of 'on_int': 'remat.bernoulli' must be a float probability in [0, 1] on a float argument
func.func @on_int(%m: tensor<8xi64> {remat.data, remat.bernoulli = 0.5 : f64})
    -> tensor<8xi64> {
  return %m : tensor<8xi64>
}
