// RUN: remat-opt %s --remat-math-to-libm | FileCheck %s
// RUN: remat-run %s --print-results | FileCheck %s --check-prefix=EXEC

// math.erf and math.erfc (an exact GELU) become calls of the C library,
// declared once per function and type; other math ops (math.tanh) are left
// to convert-to-llvm's intrinsics.

// CHECK-DAG: func.func private @erff(f32) -> f32
// CHECK-DAG: func.func private @erf(f64) -> f64
// CHECK-DAG: func.func private @erfcf(f32) -> f32
// CHECK-LABEL: func.func @erfs(
// CHECK:         call @erff(%{{.*}}) : (f32) -> f32
// CHECK:         math.tanh
// CHECK:         call @erf(%{{.*}}) : (f64) -> f64
// CHECK:         call @erfcf(%{{.*}}) : (f32) -> f32
// CHECK-NOT:     math.erf

// remat-lower-to-cpu runs it: remat-run's inputs are x[i] = sin(0.1 i) / 2
// and y[i] = sin(0.1 i + 1) / 2, so erf(x) = [0, 0.0562782, 0.111720,
// 0.165524] (f32), erf(y) = [0.448163, 0.471422] (f64), and erfc(x) sums
// to 4 - 0.333522 (Python's math.erf on the same values).
// EXEC: result #0: tensor<4xf32> sum=0.33352174
// EXEC-NEXT: values: [0, 0.05627822{{[0-9]*}}, 0.11171958{{[0-9]*}}, 0.16552393{{[0-9]*}}]
// EXEC: result #1: tensor<2xf64> sum=0.91958547
// EXEC-NEXT: values: [0.44816310{{[0-9]*}}, 0.47142237{{[0-9]*}}]
// EXEC: result #2: tensor<4xf32> sum=3.6664782

#id = affine_map<(d0) -> (d0)>
func.func @erfs(%x: tensor<4xf32>, %y: tensor<2xf64>)
    -> (tensor<4xf32>, tensor<2xf64>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.erf %a : f32
    %t = math.tanh %r : f32
    %s = arith.subf %r, %t : f32
    %z = arith.subf %s, %s : f32
    %v = arith.addf %r, %z : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<2xf64>
  %ey = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%y : tensor<2xf64>) outs(%e2 : tensor<2xf64>) {
  ^bb0(%a: f64, %o: f64):
    %r = math.erf %a : f64
    linalg.yield %r : f64
  } -> tensor<2xf64>
  %e3 = tensor.empty() : tensor<4xf32>
  %cx = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e3 : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.erfc %a : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %ex, %ey, %cx : tensor<4xf32>, tensor<2xf64>, tensor<4xf32>
}
