// RUN: remat-opt %s --split-input-file --remat-pipeline="budget=min" 2>&1 | FileCheck %s --check-prefix=MIN
// RUN: remat-opt %s --split-input-file --remat-pipeline="budget=70000" 2>/dev/null | FileCheck %s

// Ops with memory effects keep their program order in every plan: the graph
// orders each after the previous one (an ordering edge that holds nothing
// live), so the solvers never call a plan optimal that
// --remat-rematerialize would then refuse ("plan moves this op with memory
// effects before an earlier one").

// Two opaque calls, costed by hand. @k1's 16 KiB result is read only at the
// end: computing it after @k2 and the 32 KiB %big would lower the peak from
// x + a + b + big = 16384 + 16384 + 16 + 32768 = 65,552 bytes to 49,168, but
// @k1 runs first. The order leaves nothing to plan: the smallest budget is
// the checkpoint-all peak (65,568 with the arena's alignment), and it plans.
// MIN: remark: budget=min: the smallest feasible budget of solver 'auto' is 65568 bytes (100.0% of the checkpoint-all peak, its arena included)
// MIN: remark: peak memory 65552 bytes within the budget of 65568 bytes
// CHECK-LABEL: func.func @two_calls
// CHECK:         call @k1
// CHECK:         call @k2
#id = affine_map<(d0) -> (d0)>
func.func private @k1(tensor<4096xf32>) -> tensor<4096xf32>
func.func private @k2(tensor<4096xf32>) -> tensor<4xf32>
func.func @two_calls(%x: tensor<4096xf32>) -> (tensor<f32>, tensor<4096xf32>) {
  %a = func.call @k1(%x) {remat.cost = #remat.cost<bytes = [16384], flops = 1000>} : (tensor<4096xf32>) -> tensor<4096xf32>
  %b = func.call @k2(%x) {remat.cost = #remat.cost<bytes = [16], flops = 1000>} : (tensor<4096xf32>) -> tensor<4xf32>
  %eb = tensor.empty() : tensor<8192xf32>
  %big = linalg.generic {indexing_maps = [affine_map<(d0) -> (0)>, #id], iterator_types = ["parallel"]} ins(%b : tensor<4xf32>) outs(%eb : tensor<8192xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<8192xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%big : tensor<8192xf32>) outs(%f : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %e2 = tensor.empty() : tensor<4096xf32>
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%a, %x : tensor<4096xf32>, tensor<4096xf32>) outs(%e2 : tensor<4096xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %m = arith.mulf %i, %j : f32
    linalg.yield %m : f32
  } -> tensor<4096xf32>
  return %loss, %g : tensor<f32>, tensor<4096xf32>
}

// -----

// The same calls with a recomputable 16 KiB %t between them, read only at
// the end: it may move, the calls may not. Computed after %loss, the peak is
// at %big: x + a + b + big = 65,552 bytes, 80 % of the checkpoint-all peak
// of 81,936 (which holds %t there too).
// MIN: remark: budget=min: the smallest feasible budget of solver 'auto' is 65568 bytes (80.0% of the checkpoint-all peak, its arena included)
// MIN: remark: peak memory 65552 bytes within the budget of 65568 bytes (checkpoint-all 81936 bytes)
// At 70,000 bytes the plan computes %g = a * t before @k2 instead (%t is
// freed at once; the peak at %big is x + g + b + big, the same 65,552).
// CHECK-LABEL: func.func @calls_and_a_recomputable_op
// CHECK-SAME:    predicted_peak = 65552, baseline_peak = 81936
// CHECK:         call @k1
// CHECK-NEXT:    math.tanh
// CHECK-NEXT:    arith.mulf
// CHECK-NEXT:    call @k2
func.func private @k1(tensor<4096xf32>) -> tensor<4096xf32>
func.func private @k2(tensor<4096xf32>) -> tensor<4xf32>
func.func @calls_and_a_recomputable_op(%x: tensor<4096xf32>) -> (tensor<f32>, tensor<4096xf32>) {
  %a = func.call @k1(%x) {remat.cost = #remat.cost<bytes = [16384], flops = 1000>} : (tensor<4096xf32>) -> tensor<4096xf32>
  %t = math.tanh %x : tensor<4096xf32>
  %b = func.call @k2(%a) {remat.cost = #remat.cost<bytes = [16], flops = 1000>} : (tensor<4096xf32>) -> tensor<4xf32>
  %eb = tensor.empty() : tensor<8192xf32>
  %big = linalg.generic {indexing_maps = [affine_map<(d0) -> (0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%b : tensor<4xf32>) outs(%eb : tensor<8192xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<8192xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%big : tensor<8192xf32>) outs(%f : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %g = arith.mulf %a, %t : tensor<4096xf32>
  return %loss, %g : tensor<f32>, tensor<4096xf32>
}
