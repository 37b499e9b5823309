// A node of several results in the arena (docs/Arena.md, section 3): the
// lowering gives each result its own buffer, aligned on its own, so the
// plan's arena aligns each too. Here one op has two results of 4 bytes:
// 32 bytes at alignment 16, not 16. The arena the plan records is then the
// one remat-verify-memory plans again on the rematerialized IR, and the
// smallest budget budget=min names is one the verifier accepts (it used to
// name 52 bytes and fail the check with an arena of 64).
// RUN: remat-opt %s --remat-pipeline="budget=min" -o /dev/null 2>&1 | FileCheck %s
// CHECK: remark: budget=min: the smallest feasible budget of solver 'auto' is 64 bytes
// CHECK: remark: remat plan: {{.*}}predicted peak 36 bytes (budget 64, {{.*}}; arena 64 bytes
// CHECK: remark: peak memory 36 bytes within the budget of 64 bytes {{.*}}; arena 64 bytes
// CHECK-NOT: error

#map = affine_map<(d0) -> (d0)>
func.func @two_results(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e0 = tensor.empty() : tensor<1xf32>
  %e1 = tensor.empty() : tensor<1xf32>
  %c = arith.constant 2.0 : f32
  %x1 = tensor.extract_slice %x[0] [1] [1] : tensor<4xf32> to tensor<1xf32>
  %a:2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%x1 : tensor<1xf32>) outs(%e0, %e1 : tensor<1xf32>, tensor<1xf32>) {
  ^bb0(%in: f32, %o0: f32, %o1: f32):
    %m = arith.mulf %in, %c : f32
    %s = arith.addf %in, %c : f32
    linalg.yield %m, %s : f32, f32
  } -> (tensor<1xf32>, tensor<1xf32>)
  %e2 = tensor.empty() : tensor<1xf32>
  %b = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%a#0, %a#1 : tensor<1xf32>, tensor<1xf32>) outs(%e2 : tensor<1xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.addf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<1xf32>
  %y = tensor.insert_slice %b into %x[0] [1] [1] : tensor<1xf32> into tensor<4xf32>
  return %y : tensor<4xf32>
}
