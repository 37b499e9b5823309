// RUN: remat-opt %s --split-input-file | remat-opt --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @cost_phase_keep
// CHECK-SAME: remat.cost_device = "h100"
// CHECK: remat.cost = #remat.cost<bytes = [64], flops = 16>
// CHECK-SAME: remat.keep = #remat.keep<always>
// CHECK-SAME: remat.phase = #remat.phase<forward>
// CHECK: remat.cost = #remat.cost<bytes = [64], flops = 16, time_ns = 12>
// CHECK-SAME: remat.keep = #remat.keep<never>
// CHECK-SAME: remat.phase = #remat.phase<backward>
// CHECK: remat.cost = #remat.cost<bytes = [64], flops = 16, roofline_ps = 57, time_ns = 3>
// CHECK: remat.cost = #remat.cost<bytes = [64], flops = 16, roofline_ps = 57>
func.func @cost_phase_keep(%a: tensor<4x4xf32>) -> tensor<4x4xf32>
    attributes {remat.cost_device = "h100"} {
  %0 = arith.addf %a, %a {remat.cost = #remat.cost<bytes = [64], flops = 16>,
                          remat.phase = #remat.phase<forward>,
                          remat.keep = #remat.keep<always>} : tensor<4x4xf32>
  %1 = arith.mulf %0, %0 {remat.cost = #remat.cost<bytes = [64], flops = 16, time_ns = 12>,
                          remat.phase = #remat.phase<backward>,
                          remat.keep = #remat.keep<never>} : tensor<4x4xf32>
  %2 = arith.mulf %1, %1 {remat.cost = #remat.cost<bytes = [64], flops = 16, roofline_ps = 57, time_ns = 3>} : tensor<4x4xf32>
  %3 = arith.mulf %2, %2 {remat.cost = #remat.cost<bytes = [64], flops = 16, roofline_ps = 57>} : tensor<4x4xf32>
  return %3 : tensor<4x4xf32>
}

// -----

// A view owns no storage; a multi-result op lists one size per result.
// CHECK-LABEL: func.func @view_and_multi_result
// CHECK: tensor.collapse_shape {{.*}}remat.cost = #remat.cost<bytes = [0], flops = 0>
// CHECK: scf.execute_region
// CHECK: } {remat.cost = #remat.cost<bytes = [64, 4], flops = 0>}
func.func @view_and_multi_result(%a: tensor<4x4xf32>) -> (tensor<16xf32>, tensor<4x4xf32>, tensor<1xf32>) {
  %0 = tensor.collapse_shape %a [[0, 1]] {remat.cost = #remat.cost<bytes = [0], flops = 0>}
      : tensor<4x4xf32> into tensor<16xf32>
  %1:2 = scf.execute_region -> (tensor<4x4xf32>, tensor<1xf32>) {
    %e = tensor.empty() : tensor<1xf32>
    scf.yield %a, %e : tensor<4x4xf32>, tensor<1xf32>
  } {remat.cost = #remat.cost<bytes = [64, 4], flops = 0>}
  return %0, %1#0, %1#1 : tensor<16xf32>, tensor<4x4xf32>, tensor<1xf32>
}

// -----

// `remat.high` at the largest value each element type holds: [0, 2^31) for
// i32, 0 and 1 for i1, the largest i64 for i64; on a scalar, a memref and a
// declaration's argument.
// CHECK-LABEL: func.func @draw_bounds
// CHECK-SAME: tensor<4xi32> {remat.high = 2147483648 : i64}
// CHECK-SAME: memref<4xi1> {remat.high = 2 : i64}
// CHECK-SAME: i64 {remat.high = 9223372036854775807 : i64}
// CHECK: func.func private @draw_bounds_decl(tensor<2xi8> {remat.high = 128 : i64})
func.func @draw_bounds(%a: tensor<4xi32> {remat.high = 2147483648 : i64},
                       %m: memref<4xi1> {remat.high = 2 : i64},
                       %s: i64 {remat.high = 9223372036854775807 : i64}) -> tensor<4xi32> {
  return %a : tensor<4xi32>
}
func.func private @draw_bounds_decl(tensor<2xi8> {remat.high = 128 : i64})
