// remat-run never reads out of bounds with its integer inputs: an argument
// whose drawn values (its remat.high, else [0, 4)) index past a dimension is
// refused before the step is compiled, at the index, with a note at the
// argument.

// The imported embedding step with token ids bounded by 50 for a 10-row
// table (the importer now refuses that bound): refused, where the garbage
// loss used to come out with exit 0.
// RUN: not remat-run %S/Inputs/emb-idx50.mlir --print-results 2>&1 | FileCheck %s --check-prefix=EMB
// EMB: emb-idx50.mlir:{{[0-9]+}}:{{[0-9]+}}: error: argument #3 of 'emb' indexes dimension 0 of 'tensor<10x4xf32>' (10 elements) with values up to 49: the step would read out of bounds
// EMB: emb-idx50.mlir:5:{{[0-9]+}}: note: argument #3 is drawn from [0, 50) (its 'remat.high'); give it a 'remat.high' of at most 10
// EMB: remat-run: error: 'emb' would index out of bounds with its inputs (see the diagnostics above)
// EMB-NOT: loss
//
// With the table's 10 rows as the bound it runs.
// RUN: sed 's/remat.high = 50 : i64/remat.high = 10 : i64/' %S/Inputs/emb-idx50.mlir > %t.emb10.mlir
// RUN: remat-run %t.emb10.mlir | FileCheck %s --check-prefix=EMB10
// EMB10: result #0: tensor<f32> sum=

// RUN: not remat-run %s --entry=default_draw 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: not remat-run %s --entry=wrapped_index 2>&1 | FileCheck %s --check-prefix=WRAP
// RUN: remat-run %s --entry=within --print-results | FileCheck %s --check-prefix=WITHIN

// Without remat.high integers are drawn from [0, 4): a gather from a
// 3-element dimension would read past it.
// DEFAULT: remat-run-index-bounds.mlir:[[@LINE+9]]:{{[0-9]+}}: error: argument #1 of 'default_draw' indexes dimension 1 of 'tensor<2x3xf32>' (3 elements) with values up to 3: the step would read out of bounds
// DEFAULT: remat-run-index-bounds.mlir:[[@LINE+2]]:{{[0-9]+}}: note: argument #1 is drawn from [0, 4) (integers without 'remat.high'); give it a 'remat.high' of at most 3
func.func @default_draw(%x: tensor<2x3xf32>,
                        %index: tensor<2x5xi32>) -> tensor<2x5xf32> {
  %e = tensor.empty() : tensor<2x5xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%index : tensor<2x5xi32>) outs(%e : tensor<2x5xf32>) {
  ^bb0(%a0: i32, %a1: f32):
    %i0 = linalg.index 0 : index
    %at = arith.index_cast %a0 : i32 to index
    %v = tensor.extract %x[%i0, %at] : tensor<2x3xf32>
    linalg.yield %v : f32
  } -> tensor<2x5xf32>
  return %g : tensor<2x5xf32>
}

// x[idx] as the importer lowers aten.index: negative indices wrapped
// (select(i < 0, i + n, i)), through a reshape of the indices.
// WRAP: error: argument #1 of 'wrapped_index' indexes dimension 0 of 'tensor<5x2xf32>' (5 elements) with values up to 5: the step would read out of bounds
func.func @wrapped_index(%x: tensor<5x2xf32>,
                         %idx: tensor<2x2xi64> {remat.data, remat.high = 6 : i64})
    -> tensor<4x2xf32> {
  %flat = tensor.collapse_shape %idx [[0, 1]] : tensor<2x2xi64> into tensor<4xi64>
  %e = tensor.empty() : tensor<4x2xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%flat : tensor<4xi64>) outs(%e : tensor<4x2xf32>) {
  ^bb0(%a0: i64, %a1: f32):
    %z = arith.constant 0 : i64
    %n = arith.constant 5 : i64
    %neg = arith.cmpi slt, %a0, %z : i64
    %up = arith.addi %a0, %n : i64
    %w = arith.select %neg, %up, %a0 : i64
    %at = arith.index_cast %w : i64 to index
    %i1 = linalg.index 1 : index
    %v = tensor.extract %x[%at, %i1] : tensor<5x2xf32>
    linalg.yield %v : f32
  } -> tensor<4x2xf32>
  return %g : tensor<4x2xf32>
}

// A bound within the dimension, and a label compared with the class index
// (read nowhere out of bounds): runs.
// WITHIN: result #0: tensor<4xf32> sum=
func.func @within(%x: tensor<5xf32>,
                  %idx: tensor<4xi64> {remat.data, remat.high = 5 : i64},
                  %label: tensor<4xi64> {remat.data, remat.high = 9 : i64})
    -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%idx, %label : tensor<4xi64>, tensor<4xi64>) outs(%e : tensor<4xf32>) {
  ^bb0(%a0: i64, %a1: i64, %a2: f32):
    %at = arith.index_cast %a0 : i64 to index
    %v = tensor.extract %x[%at] : tensor<5xf32>
    %two = arith.constant 2 : i64
    %hit = arith.cmpi eq, %a1, %two : i64
    %z = arith.constant 0.0 : f32
    %r = arith.select %hit, %v, %z : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// A remat.high that does not fit the argument's type: refused when the
// input is parsed (the remat dialect verifies it; test/Dialect/Remat has
// every case), never truncated into negative indices. (2^70 as an i64 does
// not parse.)
// RUN: not remat-run %S/Inputs/high-i32.mlir 2>&1 | FileCheck %s --check-prefix=I32
// I32: high-i32.mlir:2:1: error: 'remat.high' = 5000000000 of argument #0 does not fit 'tensor<4xi32>': its values [0, high) need high <= 2147483648
// I32: remat-run: error: could not parse '{{.*}}high-i32.mlir'

// RUN: not remat-run %S/Inputs/high-2-70.mlir 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: high-2-70.mlir:2:46: error: integer constant out of range for attribute
// HUGE: remat-run: error: could not parse '{{.*}}high-2-70.mlir'
